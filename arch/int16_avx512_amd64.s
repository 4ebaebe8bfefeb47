//go:build !purego

// AVX-512 (BW) int16 row dot products (see int16.go and the AVX2 file for
// why VPMADDWD gives the portable results bit for bit).

#include "textflag.h"

// func dotRowsInt16AVX512(dst []int32, a, b []int16, rows, cols int)
//
// Rows of eight columns (the keyword-spotting SVDF memory) go four to a
// ZMM register: VPMADDWD leaves each row's four pair sums in one 128-bit
// lane, two in-lane shuffles and adds give every lane its row's sum, and
// VPERMD gathers the four sums (·rowSumIdx) for one 16-byte store. Other
// rows (and the last rows%4 of eight) go one at a time: 32 columns per
// step, a masked step (K1, no access past the row) for the last cols%32,
// then a horizontal sum. rows, cols ≥ 1.
//
// DI dst, SI row of a, DX row of b, R8 rows left, R9 cols, R10 row stride
// (bytes), R11 end of the 32-column steps (bytes) or groups of four rows,
// AX column offset (bytes), BX scratch. Z0 row sums, Z1/Z2 products, Z7
// gather indices.
TEXT ·dotRowsInt16AVX512(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	MOVQ rows+72(FP), R8
	MOVQ cols+80(FP), R9
	LEAQ (R9*2), R10

	CMPQ R9, $8
	JNE  general
	MOVQ R8, R11
	SHRQ $2, R11
	JZ   general
	ANDQ $3, R8
	VMOVDQU32 ·rowSumIdx(SB), Z7

loop8:
	VMOVDQU16 (SI), Z1
	VPMADDWD  (DX), Z1, Z1
	VPSHUFD   $0x4e, Z1, Z2
	VPADDD    Z2, Z1, Z1
	VPSHUFD   $0xb1, Z1, Z2
	VPADDD    Z2, Z1, Z1
	VPERMD    Z1, Z7, Z1
	VMOVDQU   X1, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DX
	ADDQ      $16, DI
	DECQ      R11
	JNZ       loop8

general:
	TESTQ R8, R8
	JZ    done
	MOVQ  R9, R11
	ANDQ  $-32, R11
	SHLQ  $1, R11
	// K1 = (1 << cols%32) - 1, the masked step's columns.
	MOVQ  R9, CX
	ANDQ  $31, CX
	MOVL  $1, BX
	SHLL  CX, BX
	DECL  BX
	KMOVD BX, K1

row:
	VPXORD Z0, Z0, Z0
	XORQ   AX, AX
	CMPQ   AX, R11
	JGE    tail

loop32:
	VMOVDQU16 (SI)(AX*1), Z1
	VPMADDWD  (DX)(AX*1), Z1, Z1
	VPADDD    Z1, Z0, Z0
	ADDQ      $64, AX
	CMPQ      AX, R11
	JLT       loop32

tail:
	TESTQ       $31, R9
	JZ          reduce
	VMOVDQU16.Z (SI)(AX*1), K1, Z1
	VMOVDQU16.Z (DX)(AX*1), K1, Z2
	VPMADDWD    Z2, Z1, Z1
	VPADDD      Z1, Z0, Z0

reduce:
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0x4e, X0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0xb1, X0, X1
	VPADDD        X1, X0, X0
	VMOVD         X0, (DI)
	ADDQ          $4, DI
	ADDQ          R10, SI
	ADDQ          R10, DX
	DECQ          R8
	JNZ           row

done:
	VZEROUPPER
	RET
