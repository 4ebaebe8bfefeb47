//go:build !purego

// AVX2 int16 row dot products (see int16.go): VPMADDWD multiplies sixteen
// int16 pairs and adds adjacent products into eight int32 (its one
// overflow, -32768·-32768·2, wraps to -2^31 exactly as the wrapping int32
// sum does), so the results equal the portable code's bit for bit.

#include "textflag.h"

// func dotRowsInt16AVX2(dst []int32, a, b []int16, rows, cols int)
//
// Rows of eight go two at a time (below); other rows (and an odd last row
// of eight) one at a time: sixteen columns per step into Y0, then one step
// of eight, a horizontal sum, then the last cols%8 columns one at a time
// (no load reaches past the row). rows, cols ≥ 1.
//
// DI dst, SI row of a, DX row of b, R8 rows left, R10 row stride (bytes),
// R11 end of the 16-column steps (bytes), R12 end of the 8-column steps,
// AX column offset (bytes), BX row sum, CX/R13 scalar products, Y7
// gather indices.
TEXT ·dotRowsInt16AVX2(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	MOVQ rows+72(FP), R8
	MOVQ cols+80(FP), R9

	LEAQ (R9*2), R10

	// Rows of eight: two to a YMM register, each row's four pair sums in
	// one 128-bit lane; two in-lane shuffles and adds give every lane its
	// row's sum and VPERMD (·rowSumIdx) gathers the two for one store.
	CMPQ    R9, $8
	JNE     general
	MOVQ    R8, R11
	SHRQ    $1, R11
	JZ      general
	ANDQ    $1, R8
	VMOVDQU ·rowSumIdx(SB), Y7

loop8:
	VMOVDQU  (SI), Y1
	VPMADDWD (DX), Y1, Y1
	VPSHUFD  $0x4e, Y1, Y2
	VPADDD   Y2, Y1, Y1
	VPSHUFD  $0xb1, Y1, Y2
	VPADDD   Y2, Y1, Y1
	VPERMD   Y1, Y7, Y1
	VMOVQ    X1, (DI)
	ADDQ     $32, SI
	ADDQ     $32, DX
	ADDQ     $8, DI
	DECQ     R11
	JNZ      loop8

general:
	TESTQ R8, R8
	JZ    done
	MOVQ  R9, R11
	ANDQ  $-16, R11
	SHLQ  $1, R11
	MOVQ  R9, R12
	ANDQ  $-8, R12
	SHLQ  $1, R12

row:
	VPXOR Y0, Y0, Y0
	XORQ  AX, AX
	CMPQ  AX, R11
	JGE   c8

loop16:
	VMOVDQU  (SI)(AX*1), Y1
	VPMADDWD (DX)(AX*1), Y1, Y1
	VPADDD   Y1, Y0, Y0
	ADDQ     $32, AX
	CMPQ     AX, R11
	JLT      loop16

c8:
	CMPQ     AX, R12
	JGE      reduce
	VMOVDQU  (SI)(AX*1), X1
	VPMADDWD (DX)(AX*1), X1, X1
	VPADDD   Y1, Y0, Y0
	ADDQ     $16, AX

reduce:
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, BX
	CMPQ         AX, R10
	JGE          store

tail:
	MOVWLSX (SI)(AX*1), CX
	MOVWLSX (DX)(AX*1), R13
	IMULL   R13, CX
	ADDL    CX, BX
	ADDQ    $2, AX
	CMPQ    AX, R10
	JLT     tail

store:
	MOVL BX, (DI)
	ADDQ $4, DI
	ADDQ R10, SI
	ADDQ R10, DX
	DECQ R8
	JNZ  row

done:
	VZEROUPPER
	RET
