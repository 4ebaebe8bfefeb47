//go:build !purego && arm.7

// 32-bit ARM NEON packed matrix × vector kernel (see packed.go for the
// layout): column c of a 16-row block is four Q registers, so each x[c]
// (two columns' x per 8-byte load) feeds four VMLA.F32-by-scalar per
// block and no horizontal sums are needed. ARMv7 NEON has no fused
// multiply-add (VMLA rounds the product, then the sum: within
// MatVecMulAccPacked's accuracy) and flushes subnormal inputs and results
// to zero (its arithmetic always runs in the Standard FPSCR mode), which
// loses contributions below 2^-126 that the portable code keeps. Every NEON
// instruction is a WORD, checked by TestARMWords. Only R0-R4, R8, R9
// are used.

#include "textflag.h"

// func matVecMulAccPackedNEONAsm(dst, p []float32, rows, cols int, x []float32)
//
// rows is a positive multiple of 16 (matVecMulAccPackedNEON sends a
// partial last block through a 16-row buffer), cols ≥ 1. The sums start
// from dst.
//
// R0 dst, R1 packed cursor (the blocks are contiguous), R2 rows left,
// R3 cols, R4 x, R8 column counter, R9 x cursor; Q0-Q3 and Q8-Q11 two
// columns' weights, D12 two x values (a multiply-by-scalar operand must
// be one of D0-D15), Q12-Q15 the sums.
TEXT ·matVecMulAccPackedNEONAsm(SB), NOSPLIT, $0-44
	MOVW dst_base+0(FP), R0
	MOVW p_base+12(FP), R1
	MOVW rows+24(FP), R2
	MOVW cols+28(FP), R3
	MOVW x_base+32(FP), R4

block:
	WORD $0xf460828d // vld1.32 {d24, d25, d26, d27}, [r0]!
	WORD $0xf460c28f // vld1.32 {d28, d29, d30, d31}, [r0]
	SUB $32, R0
	MOVW R4, R9
	MOVW R3>>1, R8
	CMP $0, R8
	BEQ odd

pair:
	WORD $0xf429c78d // vld1.32 {d12}, [r9]!
	WORD $0xf421028d // vld1.32 {d0, d1, d2, d3}, [r1]!
	WORD $0xf421428d // vld1.32 {d4, d5, d6, d7}, [r1]!
	WORD $0xf461028d // vld1.32 {d16, d17, d18, d19}, [r1]!
	WORD $0xf461428d // vld1.32 {d20, d21, d22, d23}, [r1]!
	WORD $0xf3e0814c // vmla.f32 q12, q0, d12[0]
	WORD $0xf3e2a14c // vmla.f32 q13, q1, d12[0]
	WORD $0xf3e4c14c // vmla.f32 q14, q2, d12[0]
	WORD $0xf3e6e14c // vmla.f32 q15, q3, d12[0]
	WORD $0xf3e081ec // vmla.f32 q12, q8, d12[1]
	WORD $0xf3e2a1ec // vmla.f32 q13, q9, d12[1]
	WORD $0xf3e4c1ec // vmla.f32 q14, q10, d12[1]
	WORD $0xf3e6e1ec // vmla.f32 q15, q11, d12[1]
	SUB.S $1, R8
	BNE pair

odd:
	AND.S $1, R3, R8
	BEQ store
	WORD $0xf4a9c80f // vld1.32 {d12[0]}, [r9]
	WORD $0xf421028d // vld1.32 {d0, d1, d2, d3}, [r1]!
	WORD $0xf421428d // vld1.32 {d4, d5, d6, d7}, [r1]!
	WORD $0xf3e0814c // vmla.f32 q12, q0, d12[0]
	WORD $0xf3e2a14c // vmla.f32 q13, q1, d12[0]
	WORD $0xf3e4c14c // vmla.f32 q14, q2, d12[0]
	WORD $0xf3e6e14c // vmla.f32 q15, q3, d12[0]

store:
	WORD $0xf440828d // vst1.32 {d24, d25, d26, d27}, [r0]!
	WORD $0xf440c28d // vst1.32 {d28, d29, d30, d31}, [r0]!
	SUB.S $16, R2
	BNE block
	RET
