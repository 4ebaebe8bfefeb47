//go:build !purego

// AVX-512 (F) packed matrix × vector kernel (see packed.go for the
// layout): one ZMM register holds column c of a 16-row block, so each
// broadcast x[c] feeds one FMA per block and no horizontal sums are
// needed.

#include "textflag.h"

// func matVecMulAccPackedAVX512(dst, p []float32, rows, cols int, x []float32)
//
// Blocks are taken four at a time (64 rows) while 64 full rows remain,
// then two at a time, then one at a time; the last block may be partial
// and is added to dst under the opmask K1. Every block has two
// accumulators, one for the even and one for the odd columns (FMA
// latency), summed before dst is added.
//
// DI dst, SI block 0, BX/CX/R13 blocks 1-3, DX x, R8 rows left, R9 cols,
// R10 block stride (bytes, 64·cols), R11 end of the column pairs (bytes
// within a block), AX column offset within a block (bytes), R14 x
// pointer. Z0-Z7 accumulators, Z8/Z9 broadcast x, Z10 partial dst, K1
// dst mask.
TEXT ·matVecMulAccPackedAVX512(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ p_base+24(FP), SI
	MOVQ rows+48(FP), R8
	MOVQ cols+56(FP), R9
	MOVQ x_base+64(FP), DX

	MOVQ R9, R10
	SHLQ $6, R10
	MOVQ R9, R11
	ANDQ $-2, R11
	SHLQ $6, R11

group4:
	CMPQ   R8, $64
	JLT    group2
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
	MOVQ   DX, R14
	CMPQ   AX, R11
	JGE    odd4

loop4:
	VBROADCASTSS (R14), Z8
	VBROADCASTSS 4(R14), Z9
	VFMADD231PS  (SI)(AX*1), Z8, Z0
	VFMADD231PS  (BX)(AX*1), Z8, Z1
	VFMADD231PS  (CX)(AX*1), Z8, Z2
	VFMADD231PS  (R13)(AX*1), Z8, Z3
	VFMADD231PS  64(SI)(AX*1), Z9, Z4
	VFMADD231PS  64(BX)(AX*1), Z9, Z5
	VFMADD231PS  64(CX)(AX*1), Z9, Z6
	VFMADD231PS  64(R13)(AX*1), Z9, Z7
	ADDQ         $128, AX
	ADDQ         $8, R14
	CMPQ         AX, R11
	JLT          loop4

odd4:
	TESTQ        $1, R9
	JZ           sum4
	VBROADCASTSS (R14), Z8
	VFMADD231PS  (SI)(AX*1), Z8, Z0
	VFMADD231PS  (BX)(AX*1), Z8, Z1
	VFMADD231PS  (CX)(AX*1), Z8, Z2
	VFMADD231PS  (R13)(AX*1), Z8, Z3

sum4:
	VADDPS  Z4, Z0, Z0
	VADDPS  Z5, Z1, Z1
	VADDPS  Z6, Z2, Z2
	VADDPS  Z7, Z3, Z3
	VADDPS  (DI), Z0, Z0
	VADDPS  64(DI), Z1, Z1
	VADDPS  128(DI), Z2, Z2
	VADDPS  192(DI), Z3, Z3
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ    $256, DI
	LEAQ    (R13)(R10*1), SI
	SUBQ    $64, R8
	JMP     group4

group2:
	CMPQ   R8, $32
	JLT    group1
	LEAQ   (SI)(R10*1), BX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	XORQ   AX, AX
	MOVQ   DX, R14
	CMPQ   AX, R11
	JGE    odd2

loop2:
	VBROADCASTSS (R14), Z8
	VBROADCASTSS 4(R14), Z9
	VFMADD231PS  (SI)(AX*1), Z8, Z0
	VFMADD231PS  (BX)(AX*1), Z8, Z1
	VFMADD231PS  64(SI)(AX*1), Z9, Z4
	VFMADD231PS  64(BX)(AX*1), Z9, Z5
	ADDQ         $128, AX
	ADDQ         $8, R14
	CMPQ         AX, R11
	JLT          loop2

odd2:
	TESTQ        $1, R9
	JZ           sum2
	VBROADCASTSS (R14), Z8
	VFMADD231PS  (SI)(AX*1), Z8, Z0
	VFMADD231PS  (BX)(AX*1), Z8, Z1

sum2:
	VADDPS  Z4, Z0, Z0
	VADDPS  Z5, Z1, Z1
	VADDPS  (DI), Z0, Z0
	VADDPS  64(DI), Z1, Z1
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	ADDQ    $128, DI
	LEAQ    (BX)(R10*1), SI
	SUBQ    $32, R8
	JMP     group2

group1:
	TESTQ R8, R8
	JLE   done

	// K1 = rows of this block: all sixteen, or the last block's R8 < 16.
	MOVL  $0xffff, AX
	CMPQ  R8, $16
	JGE   mask1
	MOVQ  R8, CX
	MOVL  $1, AX
	SHLL  CX, AX
	DECL  AX

mask1:
	KMOVW  AX, K1
	VPXORD Z0, Z0, Z0
	VPXORD Z4, Z4, Z4
	XORQ   AX, AX
	MOVQ   DX, R14
	CMPQ   AX, R11
	JGE    odd1

loop1:
	VBROADCASTSS (R14), Z8
	VBROADCASTSS 4(R14), Z9
	VFMADD231PS  (SI)(AX*1), Z8, Z0
	VFMADD231PS  64(SI)(AX*1), Z9, Z4
	ADDQ         $128, AX
	ADDQ         $8, R14
	CMPQ         AX, R11
	JLT          loop1

odd1:
	TESTQ        $1, R9
	JZ           sum1
	VBROADCASTSS (R14), Z8
	VFMADD231PS  (SI)(AX*1), Z8, Z0

sum1:
	VADDPS    Z4, Z0, Z0
	VMOVUPS.Z (DI), K1, Z10
	VADDPS    Z10, Z0, Z0
	VMOVUPS   Z0, K1, (DI)
	ADDQ      $64, DI
	ADDQ      R10, SI
	SUBQ      $16, R8
	JMP       group1

done:
	VZEROUPPER
	RET
