//go:build !purego

// AVX2 depthwise convolution kernel for DepthwiseConvF32 and
// DepthwiseConvF32Int32 (dwconv.go): dwconv_avx512_amd64.s with blocks
// of 8 channels in YMM registers. The 4-pixel groups of a full block of 8
// channels use plain loads (memory operands of the VMULPS, each product then
// added by VADDPS: no fused multiply-add, TFLite's order); a last,
// partial block and the single pixels load and store through VMASKMOVPS
// with the block's lane mask, which neither reads nor writes masked-off
// lanes.

#include "textflag.h"

#define A_ROWS 0
#define A_COLS 8
#define A_C4 16
#define A_TH 24
#define A_TW 32
#define A_XROWSTEP 40
#define A_XCOLSTEP 48
#define A_XTAPROW 56
#define A_XTAPCOL 64
#define A_DROWSTEP 72
#define A_WTAPROW 80
#define A_MODE 88

// func dwConvAVX2(dst *uint32, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32, masks *int32)
//
// Registers as dwConvAVX512; Y0-Y3 sums, Y8 weights, Y9 inputs, Y12
// float start, Y13 int32 bias, Y14/Y10 lo/hi, Y15 lane mask. masks is
// ·tailMask32.
TEXT ·dwConvAVX2(SB), NOSPLIT, $40-56
	MOVQ         a+32(FP), BX
	VBROADCASTSS lo+40(FP), Y14
	VBROADCASTSS hi+44(FP), Y10
	MOVQ         A_XCOLSTEP(BX), R8
	LEAQ         (R8)(R8*2), R9
	MOVQ         $0, cb-8(SP)

cblk:
	// Y15: the lanes of this channel block, tailMask32[8-min(8, left)].
	MOVQ    A_C4(BX), CX
	SUBQ    cb-8(SP), CX
	SHRQ    $2, CX
	CMPQ    CX, $8
	JLE     cmask
	MOVQ    $8, CX

cmask:
	MOVQ       $0, fullblk-40(SP)
	CMPQ       CX, $8
	JNE        cmaskp
	MOVQ       $1, fullblk-40(SP)

cmaskp:
	NEGQ       CX
	MOVQ       masks+48(FP), AX
	VMOVDQU    32(AX)(CX*4), Y15
	MOVQ       bias+24(FP), AX
	ADDQ       cb-8(SP), AX
	VMASKMOVPS (AX), Y15, Y13
	VXORPS     Y12, Y12, Y12
	CMPQ       A_MODE(BX), $0
	JNE        biased
	VMOVAPS    Y13, Y12

biased:
	MOVQ A_ROWS(BX), AX
	MOVQ AX, rows-16(SP)
	MOVQ x+8(FP), AX
	ADDQ cb-8(SP), AX
	MOVQ AX, xrow-24(SP)
	MOVQ dst+0(FP), AX
	ADDQ cb-8(SP), AX
	MOVQ AX, drow-32(SP)

row:
	MOVQ xrow-24(SP), R12
	MOVQ drow-32(SP), R13
	MOVQ A_COLS(BX), R14

grp4:
	CMPQ    R14, $4
	JLT     single
	VMOVAPS Y12, Y0
	VMOVAPS Y12, Y1
	VMOVAPS Y12, Y2
	VMOVAPS Y12, Y3
	MOVQ    R12, R10
	MOVQ    w+16(FP), R11
	ADDQ    cb-8(SP), R11
	MOVQ    A_TH(BX), DX

ty4:
	MOVQ R10, SI
	MOVQ R11, DI
	MOVQ A_TW(BX), CX
	CMPQ fullblk-40(SP), $0
	JEQ  tx4m

tx4:
	VMOVUPS     (DI), Y8
	VMULPS      (SI), Y8, Y4
	VADDPS      Y4, Y0, Y0
	VMULPS      (SI)(R8*1), Y8, Y5
	VADDPS      Y5, Y1, Y1
	VMULPS      (SI)(R8*2), Y8, Y6
	VADDPS      Y6, Y2, Y2
	VMULPS      (SI)(R9*1), Y8, Y7
	VADDPS      Y7, Y3, Y3
	ADDQ        A_XTAPCOL(BX), SI
	ADDQ        A_C4(BX), DI
	DECQ        CX
	JNZ         tx4
	JMP         ty4next

tx4m:
	VMASKMOVPS  (DI), Y15, Y8
	VMASKMOVPS  (SI), Y15, Y9
	VMULPS      Y9, Y8, Y4
	VADDPS      Y4, Y0, Y0
	VMASKMOVPS  (SI)(R8*1), Y15, Y9
	VMULPS      Y9, Y8, Y5
	VADDPS      Y5, Y1, Y1
	VMASKMOVPS  (SI)(R8*2), Y15, Y9
	VMULPS      Y9, Y8, Y6
	VADDPS      Y6, Y2, Y2
	VMASKMOVPS  (SI)(R9*1), Y15, Y9
	VMULPS      Y9, Y8, Y7
	VADDPS      Y7, Y3, Y3
	ADDQ        A_XTAPCOL(BX), SI
	ADDQ        A_C4(BX), DI
	DECQ        CX
	JNZ         tx4m

ty4next:
	ADDQ        A_XTAPROW(BX), R10
	ADDQ        A_WTAPROW(BX), R11
	DECQ        DX
	JNZ         ty4

	MOVQ A_C4(BX), AX
	CMPQ A_MODE(BX), $0
	JNE  int4
	VMAXPS Y0, Y14, Y0
	VMAXPS Y1, Y14, Y1
	VMAXPS Y2, Y14, Y2
	VMAXPS Y3, Y14, Y3
	VMINPS Y0, Y10, Y0
	VMINPS Y1, Y10, Y1
	VMINPS Y2, Y10, Y2
	VMINPS Y3, Y10, Y3
	JMP    store4

int4:
	VCVTTPS2DQ Y0, Y0
	VCVTTPS2DQ Y1, Y1
	VCVTTPS2DQ Y2, Y2
	VCVTTPS2DQ Y3, Y3
	VPADDD     Y13, Y0, Y0
	VPADDD     Y13, Y1, Y1
	VPADDD     Y13, Y2, Y2
	VPADDD     Y13, Y3, Y3

store4:
	LEAQ       (AX)(AX*2), CX
	CMPQ       fullblk-40(SP), $0
	JEQ        store4m
	VMOVUPS    Y0, (R13)
	VMOVUPS    Y1, (R13)(AX*1)
	VMOVUPS    Y2, (R13)(AX*2)
	VMOVUPS    Y3, (R13)(CX*1)
	JMP        stored4

store4m:
	VMASKMOVPS Y0, Y15, (R13)
	VMASKMOVPS Y1, Y15, (R13)(AX*1)
	VMASKMOVPS Y2, Y15, (R13)(AX*2)
	VMASKMOVPS Y3, Y15, (R13)(CX*1)

stored4:
	LEAQ       (R12)(R8*4), R12
	LEAQ       (R13)(AX*4), R13
	SUBQ       $4, R14
	JMP        grp4

single:
	TESTQ   R14, R14
	JZ      rowdone
	VMOVAPS Y12, Y0
	MOVQ    R12, R10
	MOVQ    w+16(FP), R11
	ADDQ    cb-8(SP), R11
	MOVQ    A_TH(BX), DX

ty1:
	MOVQ R10, SI
	MOVQ R11, DI
	MOVQ A_TW(BX), CX

tx1:
	VMASKMOVPS  (DI), Y15, Y8
	VMASKMOVPS  (SI), Y15, Y9
	VMULPS      Y9, Y8, Y4
	VADDPS      Y4, Y0, Y0
	ADDQ        A_XTAPCOL(BX), SI
	ADDQ        A_C4(BX), DI
	DECQ        CX
	JNZ         tx1
	ADDQ        A_XTAPROW(BX), R10
	ADDQ        A_WTAPROW(BX), R11
	DECQ        DX
	JNZ         ty1

	CMPQ A_MODE(BX), $0
	JNE  int1
	VMAXPS Y0, Y14, Y0
	VMINPS Y0, Y10, Y0
	JMP    store1

int1:
	VCVTTPS2DQ Y0, Y0
	VPADDD     Y13, Y0, Y0

store1:
	VMASKMOVPS Y0, Y15, (R13)
	ADDQ       R8, R12
	ADDQ       A_C4(BX), R13
	DECQ       R14
	JMP        single

rowdone:
	DECQ rows-16(SP)
	JZ   cdone
	MOVQ A_XROWSTEP(BX), AX
	ADDQ AX, xrow-24(SP)
	MOVQ A_DROWSTEP(BX), AX
	ADDQ AX, drow-32(SP)
	JMP  row

cdone:
	ADDQ $32, cb-8(SP)
	MOVQ cb-8(SP), AX
	CMPQ AX, A_C4(BX)
	JLT  cblk
	VZEROUPPER
	RET
