//go:build !purego

// AVX-512 VNNI int8 kernel.
//
// VPDPBUSD adds to each int32 lane the four products of unsigned bytes of
// one operand and signed bytes of the other. The matrix is made unsigned
// by flipping its sign bits (XOR 0x80, i.e. w+128), x stays signed, so
// each step adds Σ(w+128)·x = Σw·x + 128·Σx; 128·Σx is computed once per
// call (VPDPBUSD of x with a vector of ones) and subtracted from every
// row. Products are at most 255·128 in magnitude and VPDPBUSD (unlike
// VPDPBUSDS) wraps, so the result is the exact Σw·x modulo 2^32, bit for
// bit the portable result, for every input including -128.

#include "textflag.h"

// func matVecMulAccInt8VNNI(dst []int32, m []int8, rows, cols int, x []int8)
//
// dst[r] += Σ_c m[r*cols+c]·x[c], rows ≥ 1, cols ≥ 1. Four rows at a
// time, two accumulators per row; columns 128 per step, then one step of
// 64, then a masked step (K1, byte granularity) for the last cols%64: the
// masked-off lanes load as 0 in both operands (the matrix lane becomes
// 0x80 after the flip, times x = 0).
//
// DI dst, SI row 0, BX/CX/R13 rows 1-3, DX x, R8 rows left, R9 cols, R10
// row stride (= cols), R11 end of the 128-column steps, R12 end of the
// 64-column steps, AX column offset. Z0-Z7 accumulators, Z8/Z9 x,
// Z10-Z17 flipped rows, Z18 masked x tail, Z28 128·Σx in every lane,
// Z30 ones (bytes), Z31 0x80 (bytes), K1 tail mask.
TEXT ·matVecMulAccInt8VNNI(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ m_base+24(FP), SI
	MOVQ rows+48(FP), R8
	MOVQ cols+56(FP), R9
	MOVQ x_base+64(FP), DX

	MOVQ R9, R10
	MOVQ R9, R11
	ANDQ $-128, R11
	MOVQ R9, R12
	ANDQ $-64, R12

	// K1 = 2^(cols%64) - 1 (byte lanes of the tail).
	MOVQ  R9, CX
	ANDQ  $63, CX
	MOVQ  $1, AX
	SHLQ  CX, AX
	DECQ  AX
	KMOVQ AX, K1

	MOVL         $0x80808080, AX
	VPBROADCASTD AX, Z31
	MOVL         $0x01010101, AX
	VPBROADCASTD AX, Z30
	VMOVDQU8.Z   (DX)(R12*1), K1, Z18

	// Z28 = 128·Σx: ones·x over the whole vector, reduced to one lane and
	// broadcast.
	VPXORD Z28, Z28, Z28
	XORQ   AX, AX
	CMPQ   AX, R12
	JGE    sumx_tail

sumx:
	VPDPBUSD (DX)(AX*1), Z30, Z28
	ADDQ     $64, AX
	CMPQ     AX, R12
	JLT      sumx

sumx_tail:
	VPDPBUSD      Z18, Z30, Z28
	VEXTRACTI64X4 $1, Z28, Y29
	VPADDD        Y29, Y28, Y28
	VEXTRACTI32X4 $1, Y28, X29
	VPADDD        X29, X28, X28
	VPSHUFD       $0x4e, X28, X29
	VPADDD        X29, X28, X28
	VPSHUFD       $0xb1, X28, X29
	VPADDD        X29, X28, X28
	VPSLLD        $7, X28, X28

rows4:
	CMPQ   R8, $4
	JLT    rows1
	LEAQ   (SI)(R10*1), BX
	LEAQ   (BX)(R10*1), CX
	LEAQ   (CX)(R10*1), R13
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	XORQ   AX, AX
	CMPQ   AX, R11
	JGE    blk64_4

loop128_4:
	VMOVDQU64 (DX)(AX*1), Z8
	VMOVDQU64 64(DX)(AX*1), Z9
	VPXORD    (SI)(AX*1), Z31, Z10
	VPXORD    64(SI)(AX*1), Z31, Z11
	VPXORD    (BX)(AX*1), Z31, Z12
	VPXORD    64(BX)(AX*1), Z31, Z13
	VPXORD    (CX)(AX*1), Z31, Z14
	VPXORD    64(CX)(AX*1), Z31, Z15
	VPXORD    (R13)(AX*1), Z31, Z16
	VPXORD    64(R13)(AX*1), Z31, Z17
	VPDPBUSD  Z8, Z10, Z0
	VPDPBUSD  Z9, Z11, Z4
	VPDPBUSD  Z8, Z12, Z1
	VPDPBUSD  Z9, Z13, Z5
	VPDPBUSD  Z8, Z14, Z2
	VPDPBUSD  Z9, Z15, Z6
	VPDPBUSD  Z8, Z16, Z3
	VPDPBUSD  Z9, Z17, Z7
	ADDQ      $128, AX
	CMPQ      AX, R11
	JLT       loop128_4

blk64_4:
	CMPQ      AX, R12
	JGE       tail_4
	VMOVDQU64 (DX)(AX*1), Z8
	VPXORD    (SI)(AX*1), Z31, Z10
	VPXORD    (BX)(AX*1), Z31, Z12
	VPXORD    (CX)(AX*1), Z31, Z14
	VPXORD    (R13)(AX*1), Z31, Z16
	VPDPBUSD  Z8, Z10, Z0
	VPDPBUSD  Z8, Z12, Z1
	VPDPBUSD  Z8, Z14, Z2
	VPDPBUSD  Z8, Z16, Z3
	ADDQ      $64, AX

tail_4:
	TESTQ      $63, R9
	JZ         reduce_4
	VMOVDQU8.Z (SI)(AX*1), K1, Z10
	VMOVDQU8.Z (BX)(AX*1), K1, Z12
	VMOVDQU8.Z (CX)(AX*1), K1, Z14
	VMOVDQU8.Z (R13)(AX*1), K1, Z16
	VPXORD     Z31, Z10, Z10
	VPXORD     Z31, Z12, Z12
	VPXORD     Z31, Z14, Z14
	VPXORD     Z31, Z16, Z16
	VPDPBUSD   Z18, Z10, Z4
	VPDPBUSD   Z18, Z12, Z5
	VPDPBUSD   Z18, Z14, Z6
	VPDPBUSD   Z18, Z16, Z7

reduce_4:
	VPADDD        Z4, Z0, Z0
	VPADDD        Z5, Z1, Z1
	VPADDD        Z6, Z2, Z2
	VPADDD        Z7, Z3, Z3
	VEXTRACTI64X4 $1, Z0, Y8
	VEXTRACTI64X4 $1, Z1, Y9
	VEXTRACTI64X4 $1, Z2, Y10
	VEXTRACTI64X4 $1, Z3, Y11
	VPADDD        Y8, Y0, Y0
	VPADDD        Y9, Y1, Y1
	VPADDD        Y10, Y2, Y2
	VPADDD        Y11, Y3, Y3
	VPHADDD       Y1, Y0, Y0
	VPHADDD       Y3, Y2, Y2
	VPHADDD       Y2, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPSUBD        X28, X0, X0
	VPADDD        (DI), X0, X0
	VMOVDQU       X0, (DI)
	ADDQ          $16, DI
	LEAQ          (R13)(R10*1), SI
	SUBQ          $4, R8
	JMP           rows4

rows1:
	TESTQ R8, R8
	JZ    done

row1:
	VPXORD Z0, Z0, Z0
	VPXORD Z4, Z4, Z4
	XORQ   AX, AX
	CMPQ   AX, R11
	JGE    blk64_1

loop128_1:
	VMOVDQU64 (DX)(AX*1), Z8
	VMOVDQU64 64(DX)(AX*1), Z9
	VPXORD    (SI)(AX*1), Z31, Z10
	VPXORD    64(SI)(AX*1), Z31, Z11
	VPDPBUSD  Z8, Z10, Z0
	VPDPBUSD  Z9, Z11, Z4
	ADDQ      $128, AX
	CMPQ      AX, R11
	JLT       loop128_1

blk64_1:
	CMPQ      AX, R12
	JGE       tail_1
	VMOVDQU64 (DX)(AX*1), Z8
	VPXORD    (SI)(AX*1), Z31, Z10
	VPDPBUSD  Z8, Z10, Z0
	ADDQ      $64, AX

tail_1:
	TESTQ      $63, R9
	JZ         reduce_1
	VMOVDQU8.Z (SI)(AX*1), K1, Z10
	VPXORD     Z31, Z10, Z10
	VPDPBUSD   Z18, Z10, Z4

reduce_1:
	VPADDD        Z4, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPHADDD       X0, X0, X0
	VPHADDD       X0, X0, X0
	VPSUBD        X28, X0, X0
	VMOVD         X0, AX
	ADDL          AX, (DI)
	ADDQ          $4, DI
	ADDQ          R10, SI
	DECQ          R8
	JNZ           row1

done:
	VZEROUPPER
	RET
