//go:build !purego

// AVX-512 depthwise convolution kernel for DepthwiseConvF32 and
// DepthwiseConvF32Int32 (dwconv.go). For each block of 16 channels (the
// last under the opmask K1) and each output row, groups of 4 output
// pixels keep their sums in Z0-Z3; each filter tap loads one weight
// vector and adds it times the 4 pixels' inputs with masked fused
// multiply-adds from memory (masked-off lanes neither read nor fault).
// The 1-3 pixels left in a row go one at a time. Float output: sums start
// at the bias, are clamped (VMAXPS lo then VMINPS hi, x second so a NaN
// passes) and stored; int32 output: sums start at 0, are converted with
// truncation (they are exact integers) and the int32 bias is added.

#include "textflag.h"

// Offsets of dwArgs (dwconv.go), all int64, strides in bytes.
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
#define A_INTOUT 88

// func dwConvAVX512(dst *uint32, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32)
//
// BX args; R8 pixel step S, R9 3S; R12/R13 input/output of the current
// pixel group; R14 pixels left in the row; R10/R11 input/weights of the
// current tap row; SI/DI of the current tap; DX/CX tap row/column
// counters. Locals: channel block offset, rows left, row starts. Z28
// float start (bias or 0), Z29 int32 bias, Z30/Z31 lo/hi, Z8 weights.
// th, tw ≥ 1 (the Go wrapper sends empty tap sets to the portable code).
TEXT ·dwConvAVX512(SB), NOSPLIT, $32-48
	MOVQ         a+32(FP), BX
	VBROADCASTSS lo+40(FP), Z30
	VBROADCASTSS hi+44(FP), Z31
	MOVQ         A_XCOLSTEP(BX), R8
	LEAQ         (R8)(R8*2), R9
	MOVQ         $0, cb-8(SP)

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
	CMPQ  A_INTOUT(BX), $0
	JNE   intbias
	VMOVUPS.Z (AX), K1, Z28
	JMP   biased

intbias:
	VPXORD      Z28, Z28, Z28
	VMOVDQU32.Z (AX), K1, Z29

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
	VMOVAPS Z28, Z0
	VMOVAPS Z28, Z1
	VMOVAPS Z28, Z2
	VMOVAPS Z28, Z3
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
	VFMADD231PS (SI), Z8, K1, Z0
	VFMADD231PS (SI)(R8*1), Z8, K1, Z1
	VFMADD231PS (SI)(R8*2), Z8, K1, Z2
	VFMADD231PS (SI)(R9*1), Z8, K1, Z3
	ADDQ        A_XTAPCOL(BX), SI
	ADDQ        A_C4(BX), DI
	DECQ        CX
	JNZ         tx4
	ADDQ        A_XTAPROW(BX), R10
	ADDQ        A_WTAPROW(BX), R11
	DECQ        DX
	JNZ         ty4

	MOVQ A_C4(BX), AX
	CMPQ A_INTOUT(BX), $0
	JNE  int4
	VMAXPS Z0, Z30, Z0
	VMAXPS Z1, Z30, Z1
	VMAXPS Z2, Z30, Z2
	VMAXPS Z3, Z30, Z3
	VMINPS Z0, Z31, Z0
	VMINPS Z1, Z31, Z1
	VMINPS Z2, Z31, Z2
	VMINPS Z3, Z31, Z3
	JMP    store4

int4:
	VCVTTPS2DQ Z0, Z0
	VCVTTPS2DQ Z1, Z1
	VCVTTPS2DQ Z2, Z2
	VCVTTPS2DQ Z3, Z3
	VPADDD     Z29, Z0, Z0
	VPADDD     Z29, Z1, Z1
	VPADDD     Z29, Z2, Z2
	VPADDD     Z29, Z3, Z3

store4:
	VMOVUPS Z0, K1, (R13)
	VMOVUPS Z1, K1, (R13)(AX*1)
	VMOVUPS Z2, K1, (R13)(AX*2)
	LEAQ    (AX)(AX*2), CX
	VMOVUPS Z3, K1, (R13)(CX*1)
	LEAQ    (R12)(R8*4), R12
	LEAQ    (R13)(AX*4), R13
	SUBQ    $4, R14
	JMP     grp4

single:
	TESTQ   R14, R14
	JZ      rowdone
	VMOVAPS Z28, Z0
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
	VFMADD231PS (SI), Z8, K1, Z0
	ADDQ        A_XTAPCOL(BX), SI
	ADDQ        A_C4(BX), DI
	DECQ        CX
	JNZ         tx1
	ADDQ        A_XTAPROW(BX), R10
	ADDQ        A_WTAPROW(BX), R11
	DECQ        DX
	JNZ         ty1

	CMPQ A_INTOUT(BX), $0
	JNE  int1
	VMAXPS Z0, Z30, Z0
	VMINPS Z0, Z31, Z0
	JMP    store1

int1:
	VCVTTPS2DQ Z0, Z0
	VPADDD     Z29, Z0, Z0

store1:
	VMOVUPS Z0, K1, (R13)
	ADDQ    R8, R12
	ADDQ    A_C4(BX), R13
	DECQ    R14
	JMP     single

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
