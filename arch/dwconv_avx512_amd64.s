//go:build !purego

// AVX-512 depthwise convolution kernel for DepthwiseConvF32,
// DepthwiseConvF32Int32 and DepthwiseConvRequantizeInt8/Uint8
// (dwconv.go). For each block of 16 channels (the last under the opmask
// K1) and each output row, groups of 4 output pixels keep their sums in
// Z0-Z3; each filter tap loads one weight vector and adds it times the 4
// pixels' inputs with masked multiplies from memory (masked-off lanes
// neither read nor fault) and separate adds (no fused multiply-add:
// TensorFlow Lite's order on x86). The 1-3 pixels left in a row go one at a
// time. Mode 0 (float output): sums start at the bias, are clamped
// (VMAXPS lo then VMINPS hi, x second so a NaN passes) and stored. Mode 1
// (int32): sums start at 0, are converted with truncation (they are exact
// integers) and the int32 bias is added. Mode 2: as mode 1, then
// requantised in registers (RQ16, requant_channel_amd64.h, with the
// block's parameters loaded once) and stored as bytes.

#include "textflag.h"
#include "requant_channel_amd64.h"

// Offsets of dwArgs (dwconv.go); strides in bytes.
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
#define A_DC 96
#define A_QP 104
#define A_QSTRIDE 112
#define A_ZP 120
#define A_LO 124
#define A_HI 128
#define A_RQFLAGS 136

// func dwConvAVX512(dst *byte, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32)
//
// BX args; R8 pixel step S, R9 3S; R12/R13 input/output of the current
// pixel group; R14 pixels left in the row; R10/R11 input/weights of the
// current tap row; SI/DI of the current tap; DX/CX tap row/column
// counters. Locals: channel block offset (float bytes), rows left, row
// starts, the block's output offset. Z16 float start (bias or 0), Z17
// int32 bias, Z18/Z19 lo/hi, Z8 weights, Z4/Z5 temporaries. th, tw ≥ 1
// (the Go wrapper sends empty tap sets to the portable code).
TEXT ·dwConvAVX512(SB), NOSPLIT, $32-48
	MOVQ         a+32(FP), BX
	VBROADCASTSS lo+40(FP), Z18
	VBROADCASTSS hi+44(FP), Z19
	MOVQ         A_XCOLSTEP(BX), R8
	LEAQ         (R8)(R8*2), R9
	CMPQ         A_MODE(BX), $2
	JNE          start
	RQCONSTS(A_ZP(BX), A_LO(BX), A_HI(BX), AX)

start:
	MOVQ $0, cb-8(SP)

cblk:
	// K1: the lanes of this channel block.
	MOVQ  A_C4(BX), CX
	SUBQ  cb-8(SP), CX
	SHRQ  $2, CX
	MOVL  $0xffff, AX
	CMPQ  CX, $16
	JGE   cmask
	MOVL  $1, AX
	SHLL  CX, AX
	DECL  AX

cmask:
	KMOVW AX, K1
	MOVQ  bias+24(FP), AX
	ADDQ  cb-8(SP), AX
	MOVQ  cb-8(SP), CX
	CMPQ  A_MODE(BX), $0
	JNE   intbias
	VMOVUPS.Z (AX), K1, Z16
	JMP   biased

intbias:
	VPXORD      Z16, Z16, Z16
	VMOVDQU32.Z (AX), K1, Z17
	CMPQ        A_MODE(BX), $2
	JNE         biased
	SHRQ        $2, CX
	MOVQ        A_QP(BX), AX
	ADDQ        cb-8(SP), AX
	VMOVDQU32   (AX), Z22
	ADDQ        A_QSTRIDE(BX), AX
	VMOVDQU32   (AX), Z23
	ADDQ        A_QSTRIDE(BX), AX
	VMOVDQU32   (AX), Z24
	ADDQ        A_QSTRIDE(BX), AX
	VMOVDQU32   (AX), Z25
	ADDQ        A_QSTRIDE(BX), AX
	VMOVDQU32   (AX), Z26
	ADDQ        A_QSTRIDE(BX), AX
	VMOVDQU32   (AX), Z27
	ADDQ        A_QSTRIDE(BX), AX
	KMOVW       (AX), K5

biased:
	// CX: the block's offset in the output (bytes).
	MOVQ A_ROWS(BX), AX
	MOVQ AX, rows-16(SP)
	MOVQ x+8(FP), AX
	ADDQ cb-8(SP), AX
	MOVQ AX, xrow-24(SP)
	MOVQ dst+0(FP), AX
	ADDQ CX, AX
	MOVQ AX, drow-32(SP)

row:
	MOVQ xrow-24(SP), R12
	MOVQ drow-32(SP), R13
	MOVQ A_COLS(BX), R14

grp4:
	CMPQ    R14, $4
	JLT     single
	VMOVAPS Z16, Z0
	VMOVAPS Z16, Z1
	VMOVAPS Z16, Z2
	VMOVAPS Z16, Z3
	MOVQ    R12, R10
	MOVQ    w+16(FP), R11
	ADDQ    cb-8(SP), R11
	MOVQ    A_TH(BX), DX

ty4:
	MOVQ R10, SI
	MOVQ R11, DI
	MOVQ A_TW(BX), CX

tx4:
	VMOVUPS.Z   (DI), K1, Z8
	VMULPS.Z    (SI), Z8, K1, Z9
	VADDPS      Z9, Z0, Z0
	VMULPS.Z    (SI)(R8*1), Z8, K1, Z10
	VADDPS      Z10, Z1, Z1
	VMULPS.Z    (SI)(R8*2), Z8, K1, Z11
	VADDPS      Z11, Z2, Z2
	VMULPS.Z    (SI)(R9*1), Z8, K1, Z12
	VADDPS      Z12, Z3, Z3
	ADDQ        A_XTAPCOL(BX), SI
	ADDQ        A_C4(BX), DI
	DECQ        CX
	JNZ         tx4
	ADDQ        A_XTAPROW(BX), R10
	ADDQ        A_WTAPROW(BX), R11
	DECQ        DX
	JNZ         ty4

	MOVQ A_DC(BX), AX
	LEAQ (AX)(AX*2), CX
	CMPQ A_MODE(BX), $1
	JEQ  int4
	JGT  rq4
	VMAXPS Z0, Z18, Z0
	VMAXPS Z1, Z18, Z1
	VMAXPS Z2, Z18, Z2
	VMAXPS Z3, Z18, Z3
	VMINPS Z0, Z19, Z0
	VMINPS Z1, Z19, Z1
	VMINPS Z2, Z19, Z2
	VMINPS Z3, Z19, Z3
	JMP    store4

int4:
	VCVTTPS2DQ Z0, Z0
	VCVTTPS2DQ Z1, Z1
	VCVTTPS2DQ Z2, Z2
	VCVTTPS2DQ Z3, Z3
	VPADDD     Z17, Z0, Z0
	VPADDD     Z17, Z1, Z1
	VPADDD     Z17, Z2, Z2
	VPADDD     Z17, Z3, Z3

store4:
	VMOVUPS Z0, K1, (R13)
	VMOVUPS Z1, K1, (R13)(AX*1)
	VMOVUPS Z2, K1, (R13)(AX*2)
	VMOVUPS Z3, K1, (R13)(CX*1)
	JMP     next4

rq4:
	VCVTTPS2DQ Z0, Z0
	VCVTTPS2DQ Z1, Z1
	VCVTTPS2DQ Z2, Z2
	VCVTTPS2DQ Z3, Z3
	VPADDD     Z17, Z0, Z0
	VPADDD     Z17, Z1, Z1
	VPADDD     Z17, Z2, Z2
	VPADDD     Z17, Z3, Z3
	TESTQ      $RQF_LEFT, A_RQFLAGS(BX)
	JZ         noleft4
	RQLEFT(Z0)
	RQLEFT(Z1)
	RQLEFT(Z2)
	RQLEFT(Z3)

noleft4:
	RQCORE(Z0, Z4, Z5)
	RQCORE(Z1, Z6, Z7)
	RQCORE(Z2, Z4, Z5)
	RQCORE(Z3, Z6, Z7)
	TESTQ $RQF_SAT8, A_RQFLAGS(BX)
	JNZ   sat4
	TESTQ $RQF_USAT8, A_RQFLAGS(BX)
	JNZ   usat4
	RQCLAMP(Z0)
	RQCLAMP(Z1)
	RQCLAMP(Z2)
	RQCLAMP(Z3)
	VPMOVDB Z0, X0
	VPMOVDB Z1, X1
	VPMOVDB Z2, X2
	VPMOVDB Z3, X3
	JMP     narrowed4

sat4:
	VPMOVSDB Z0, X0
	VPMOVSDB Z1, X1
	VPMOVSDB Z2, X2
	VPMOVSDB Z3, X3
	JMP      narrowed4

usat4:
	VPMAXSD   Z31, Z0, Z0
	VPMAXSD   Z31, Z1, Z1
	VPMAXSD   Z31, Z2, Z2
	VPMAXSD   Z31, Z3, Z3
	VPMOVUSDB Z0, X0
	VPMOVUSDB Z1, X1
	VPMOVUSDB Z2, X2
	VPMOVUSDB Z3, X3

narrowed4:
	KORTESTW K1, K1
	JCC      rqpart4
	VMOVDQU  X0, (R13)
	VMOVDQU  X1, (R13)(AX*1)
	VMOVDQU  X2, (R13)(AX*2)
	VMOVDQU  X3, (R13)(CX*1)
	JMP      next4

rqpart4:
	VMOVDQU8 X0, K1, (R13)
	VMOVDQU8 X1, K1, (R13)(AX*1)
	VMOVDQU8 X2, K1, (R13)(AX*2)
	VMOVDQU8 X3, K1, (R13)(CX*1)

next4:
	LEAQ (R12)(R8*4), R12
	LEAQ (R13)(AX*4), R13
	SUBQ $4, R14
	JMP  grp4

single:
	TESTQ   R14, R14
	JZ      rowdone
	VMOVAPS Z16, Z0
	MOVQ    R12, R10
	MOVQ    w+16(FP), R11
	ADDQ    cb-8(SP), R11
	MOVQ    A_TH(BX), DX

ty1:
	MOVQ R10, SI
	MOVQ R11, DI
	MOVQ A_TW(BX), CX

tx1:
	VMOVUPS.Z   (DI), K1, Z8
	VMULPS.Z    (SI), Z8, K1, Z9
	VADDPS      Z9, Z0, Z0
	ADDQ        A_XTAPCOL(BX), SI
	ADDQ        A_C4(BX), DI
	DECQ        CX
	JNZ         tx1
	ADDQ        A_XTAPROW(BX), R10
	ADDQ        A_WTAPROW(BX), R11
	DECQ        DX
	JNZ         ty1

	CMPQ A_MODE(BX), $1
	JEQ  int1
	JGT  rq1
	VMAXPS  Z0, Z18, Z0
	VMINPS  Z0, Z19, Z0
	VMOVUPS Z0, K1, (R13)
	JMP     next1

int1:
	VCVTTPS2DQ Z0, Z0
	VPADDD     Z17, Z0, Z0
	VMOVUPS    Z0, K1, (R13)
	JMP        next1

rq1:
	VCVTTPS2DQ Z0, Z0
	VPADDD     Z17, Z0, Z0
	RQ16(Z0, Z4, Z5)
	VPMOVDB    Z0, X0
	VMOVDQU8   X0, K1, (R13)

next1:
	ADDQ R8, R12
	ADDQ A_DC(BX), R13
	DECQ R14
	JMP  single

rowdone:
	DECQ rows-16(SP)
	JZ   cdone
	MOVQ A_XROWSTEP(BX), AX
	ADDQ AX, xrow-24(SP)
	MOVQ A_DROWSTEP(BX), AX
	ADDQ AX, drow-32(SP)
	JMP  row

cdone:
	ADDQ $64, cb-8(SP)
	MOVQ cb-8(SP), AX
	CMPQ AX, A_C4(BX)
	JLT  cblk
	VZEROUPPER
	RET
