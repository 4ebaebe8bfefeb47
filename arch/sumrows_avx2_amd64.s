//go:build !purego

// AVX2 SumRowsF32 (see sumrows.go).

#include "textflag.h"

// func sumRowsF32AVX2(acc, in []float32, rows, cols int)
//
// Columns 32 at a time (four YMM sums), then 8 at a time, then the last
// cols%8 one column at a time with scalar adds. Each lane adds its
// column's values in row order with the running sum as the first
// operand, as the scalar loop does. Registers as in the AVX-512 kernel.
TEXT ·sumRowsF32AVX2(SB), NOSPLIT, $0-64
	MOVQ acc_base+0(FP), DI
	MOVQ in_base+24(FP), SI
	MOVQ rows+48(FP), DX
	MOVQ cols+56(FP), CX
	TESTQ DX, DX
	JLE   done
	TESTQ CX, CX
	JLE   done
	MOVQ  CX, R10
	SHLQ  $2, R10
	XORQ  R8, R8

c32:
	LEAQ    32(R8), R9
	CMPQ    R9, CX
	JGT     c8
	VMOVUPS (DI)(R8*4), Y0
	VMOVUPS 32(DI)(R8*4), Y1
	VMOVUPS 64(DI)(R8*4), Y2
	VMOVUPS 96(DI)(R8*4), Y3
	LEAQ    (SI)(R8*4), R11
	MOVQ    DX, BX

r32:
	VADDPS (R11), Y0, Y0
	VADDPS 32(R11), Y1, Y1
	VADDPS 64(R11), Y2, Y2
	VADDPS 96(R11), Y3, Y3
	ADDQ   R10, R11
	DECQ   BX
	JNZ    r32
	VMOVUPS Y0, (DI)(R8*4)
	VMOVUPS Y1, 32(DI)(R8*4)
	VMOVUPS Y2, 64(DI)(R8*4)
	VMOVUPS Y3, 96(DI)(R8*4)
	MOVQ    R9, R8
	JMP     c32

c8:
	LEAQ    8(R8), R9
	CMPQ    R9, CX
	JGT     one
	VMOVUPS (DI)(R8*4), Y0
	LEAQ    (SI)(R8*4), R11
	MOVQ    DX, BX

r8:
	VADDPS (R11), Y0, Y0
	ADDQ   R10, R11
	DECQ   BX
	JNZ    r8
	VMOVUPS Y0, (DI)(R8*4)
	MOVQ    R9, R8
	JMP     c8

one:
	CMPQ   R8, CX
	JGE    done
	VMOVSS (DI)(R8*4), X0
	LEAQ   (SI)(R8*4), R11
	MOVQ   DX, BX

r1:
	VADDSS (R11), X0, X0
	ADDQ   R10, R11
	DECQ   BX
	JNZ    r1
	VMOVSS X0, (DI)(R8*4)
	INCQ   R8
	JMP    one

done:
	VZEROUPPER
	RET
