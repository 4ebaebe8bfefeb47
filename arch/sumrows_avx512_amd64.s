//go:build !purego

// AVX-512 SumRowsF32 (see sumrows.go).

#include "textflag.h"

// func sumRowsF32AVX512(acc, in []float32, rows, cols int)
//
// Columns 64 at a time (four ZMM sums, four independent chains down the
// rows), then 16 at a time, then the last cols%16 under an opmask (the
// masked loads do not touch memory past the row; the masked store runs
// once per call). Each lane adds its column's values in row order with
// the running sum as the first operand, as the scalar loop does. DI acc,
// SI in, DX rows, CX cols, R10 row stride in bytes, R8 first column of
// the chunk, R9 end of the chunk, R11 input pointer, BX rows left.
TEXT ·sumRowsF32AVX512(SB), NOSPLIT, $0-64
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

c64:
	LEAQ    64(R8), R9
	CMPQ    R9, CX
	JGT     c16
	VMOVUPS (DI)(R8*4), Z0
	VMOVUPS 64(DI)(R8*4), Z1
	VMOVUPS 128(DI)(R8*4), Z2
	VMOVUPS 192(DI)(R8*4), Z3
	LEAQ    (SI)(R8*4), R11
	MOVQ    DX, BX

r64:
	VADDPS (R11), Z0, Z0
	VADDPS 64(R11), Z1, Z1
	VADDPS 128(R11), Z2, Z2
	VADDPS 192(R11), Z3, Z3
	ADDQ   R10, R11
	DECQ   BX
	JNZ    r64
	VMOVUPS Z0, (DI)(R8*4)
	VMOVUPS Z1, 64(DI)(R8*4)
	VMOVUPS Z2, 128(DI)(R8*4)
	VMOVUPS Z3, 192(DI)(R8*4)
	MOVQ    R9, R8
	JMP     c64

c16:
	LEAQ    16(R8), R9
	CMPQ    R9, CX
	JGT     tail
	VMOVUPS (DI)(R8*4), Z0
	LEAQ    (SI)(R8*4), R11
	MOVQ    DX, BX

r16:
	VADDPS (R11), Z0, Z0
	ADDQ   R10, R11
	DECQ   BX
	JNZ    r16
	VMOVUPS Z0, (DI)(R8*4)
	MOVQ    R9, R8
	JMP     c16

tail:
	SUBQ      R8, CX
	JZ        done
	MOVL      $1, AX
	SHLL      CX, AX
	DECL      AX
	KMOVW     AX, K1
	VMOVUPS.Z (DI)(R8*4), K1, Z0
	LEAQ      (SI)(R8*4), R11
	MOVQ      DX, BX

rt:
	VMOVUPS.Z (R11), K1, Z1
	VADDPS    Z1, Z0, Z0
	ADDQ      R10, R11
	DECQ      BX
	JNZ       rt
	VMOVUPS   Z0, K1, (DI)(R8*4)

done:
	VZEROUPPER
	RET

// func sumRowsInt8AVX512(acc []int32, in []int8, rows, cols int) int
//
// Columns 64 at a time (four ZMM sums of sign-extended bytes), then 16
// at a time; returns the columns done (cols rounded down to 16), the
// rest being left to the Go code. Registers as in sumRowsF32AVX512, R10
// the row stride in bytes (= cols).
TEXT ·sumRowsInt8AVX512(SB), NOSPLIT, $0-72
	MOVQ acc_base+0(FP), DI
	MOVQ in_base+24(FP), SI
	MOVQ rows+48(FP), DX
	MOVQ cols+56(FP), CX
	XORQ R8, R8
	TESTQ DX, DX
	JLE   i8done
	MOVQ  CX, R10

i8c64:
	LEAQ    64(R8), R9
	CMPQ    R9, CX
	JGT     i8c16
	VMOVDQU32 (DI)(R8*4), Z0
	VMOVDQU32 64(DI)(R8*4), Z1
	VMOVDQU32 128(DI)(R8*4), Z2
	VMOVDQU32 192(DI)(R8*4), Z3
	LEAQ    (SI)(R8*1), R11
	MOVQ    DX, BX

i8r64:
	VPMOVSXBD (R11), Z4
	VPMOVSXBD 16(R11), Z5
	VPMOVSXBD 32(R11), Z6
	VPMOVSXBD 48(R11), Z7
	VPADDD    Z4, Z0, Z0
	VPADDD    Z5, Z1, Z1
	VPADDD    Z6, Z2, Z2
	VPADDD    Z7, Z3, Z3
	ADDQ      R10, R11
	DECQ      BX
	JNZ       i8r64
	VMOVDQU32 Z0, (DI)(R8*4)
	VMOVDQU32 Z1, 64(DI)(R8*4)
	VMOVDQU32 Z2, 128(DI)(R8*4)
	VMOVDQU32 Z3, 192(DI)(R8*4)
	MOVQ      R9, R8
	JMP       i8c64

i8c16:
	LEAQ      16(R8), R9
	CMPQ      R9, CX
	JGT       i8done
	VMOVDQU32 (DI)(R8*4), Z0
	LEAQ      (SI)(R8*1), R11
	MOVQ      DX, BX

i8r16:
	VPMOVSXBD (R11), Z4
	VPADDD    Z4, Z0, Z0
	ADDQ      R10, R11
	DECQ      BX
	JNZ       i8r16
	VMOVDQU32 Z0, (DI)(R8*4)
	MOVQ      R9, R8
	JMP       i8c16

i8done:
	MOVQ R8, ret+64(FP)
	VZEROUPPER
	RET
