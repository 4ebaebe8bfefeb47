//go:build !purego && arm.7

// 32-bit ARM NEON GemmInt8 block kernel (GOARM=7 builds, chosen when
// HWCAP reports NEON); gemm_int8_neon.go walks the channel blocks and
// requantises. Integer accumulation is exact, so the sums are the
// portable code's bits. Every NEON instruction is a WORD, checked by
// TestARMWords against an external assembler. Only R0-R9 and R12 are
// used (R10 is g, R11 the linker's temporary).

#include "textflag.h"

// func gemmInt8BlockNEON(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)
//
// One block of 16 output channels for m ≥ 1 pixel rows, k ≥ 1:
// dst[p·ldd+j] = seed[j] + Σ_i a[p·lda+i]·w(j, i), w the block's packed
// weights (PackGemmInt8: groups of four reduction steps, 16 channels × 4
// bytes, offset by 128, which VEOR with 0x80 undoes). Per group, the
// row's four bytes are broadcast to both 32-bit lanes of D8 (VLD1 all
// lanes), VMULL.S8 multiplies them with each weight D register into
// eight int16 lanes (one product each, |p| ≤ 2^14) and VPADAL.S16 adds
// pairs into int32: the row keeps eight accumulators (Q8-Q15), each two
// channels × two partial sums, which VPADD folds at the end. The last
// k%4 bytes of a row are gathered in a general register (nothing past
// the row is read); the packed weights of those missing steps are 0.
// One row at a time (sixteen channels' pairs fill Q8-Q15).
//
// R0 dst, R1 ldd in bytes, R2 a, R3 lda, R4 w, R5 rows left, R6 group
// counter, R7 weight cursor, R8 row cursor, R9 and R12 scratch; Q0-Q3
// weights, D8 a, Q6-Q7 products, Q5 0x80 bytes.
TEXT ·gemmInt8BlockNEON(SB), NOSPLIT, $0-32
	MOVW dst+0(FP), R0
	MOVW ldd+4(FP), R1
	MOVW a+8(FP), R2
	MOVW lda+12(FP), R3
	MOVW w+16(FP), R4
	MOVW m+24(FP), R5
	MOVW R1<<2, R1
	WORD $0xf380ae50 // vmov.i8 q5, #0x80

irow:
	WORD $0xf2c00050 // vmov.i32 q8, #0
	WORD $0xf2c02050 // vmov.i32 q9, #0
	WORD $0xf2c04050 // vmov.i32 q10, #0
	WORD $0xf2c06050 // vmov.i32 q11, #0
	WORD $0xf2c08050 // vmov.i32 q12, #0
	WORD $0xf2c0a050 // vmov.i32 q13, #0
	WORD $0xf2c0c050 // vmov.i32 q14, #0
	WORD $0xf2c0e050 // vmov.i32 q15, #0
	MOVW R4, R7
	MOVW R2, R8
	MOVW k+28(FP), R6
	MOVW.S R6>>2, R6
	BEQ itail

iloop:
	WORD $0xf4a88c8d // vld1.32 {d8[]}, [r8]!
	WORD $0xf427020d // vld1.8 {d0, d1, d2, d3}, [r7]!
	WORD $0xf427420d // vld1.8 {d4, d5, d6, d7}, [r7]!
	WORD $0xf300015a // veor q0, q0, q5
	WORD $0xf302215a // veor q1, q1, q5
	WORD $0xf304415a // veor q2, q2, q5
	WORD $0xf306615a // veor q3, q3, q5
	WORD $0xf280cc08 // vmull.s8 q6, d0, d8
	WORD $0xf3f4064c // vpadal.s16 q8, q6
	WORD $0xf281ec08 // vmull.s8 q7, d1, d8
	WORD $0xf3f4264e // vpadal.s16 q9, q7
	WORD $0xf282cc08 // vmull.s8 q6, d2, d8
	WORD $0xf3f4464c // vpadal.s16 q10, q6
	WORD $0xf283ec08 // vmull.s8 q7, d3, d8
	WORD $0xf3f4664e // vpadal.s16 q11, q7
	WORD $0xf284cc08 // vmull.s8 q6, d4, d8
	WORD $0xf3f4864c // vpadal.s16 q12, q6
	WORD $0xf285ec08 // vmull.s8 q7, d5, d8
	WORD $0xf3f4a64e // vpadal.s16 q13, q7
	WORD $0xf286cc08 // vmull.s8 q6, d6, d8
	WORD $0xf3f4c64c // vpadal.s16 q14, q6
	WORD $0xf287ec08 // vmull.s8 q7, d7, d8
	WORD $0xf3f4e64e // vpadal.s16 q15, q7
	SUB.S $1, R6
	BNE iloop

itail:
	MOVW k+28(FP), R9
	AND.S $3, R9
	BEQ istore
	MOVBU (R8), R12
	CMP $2, R9
	BLT itail1
	MOVBU 1(R8), R6
	ORR R6<<8, R12
	CMP $3, R9
	BLT itail1
	MOVBU 2(R8), R6
	ORR R6<<16, R12
itail1:
	WORD $0xee88cb10 // vdup.32 d8, r12
	WORD $0xf427020d // vld1.8 {d0, d1, d2, d3}, [r7]!
	WORD $0xf427420d // vld1.8 {d4, d5, d6, d7}, [r7]!
	WORD $0xf300015a // veor q0, q0, q5
	WORD $0xf302215a // veor q1, q1, q5
	WORD $0xf304415a // veor q2, q2, q5
	WORD $0xf306615a // veor q3, q3, q5
	WORD $0xf280cc08 // vmull.s8 q6, d0, d8
	WORD $0xf3f4064c // vpadal.s16 q8, q6
	WORD $0xf281ec08 // vmull.s8 q7, d1, d8
	WORD $0xf3f4264e // vpadal.s16 q9, q7
	WORD $0xf282cc08 // vmull.s8 q6, d2, d8
	WORD $0xf3f4464c // vpadal.s16 q10, q6
	WORD $0xf283ec08 // vmull.s8 q7, d3, d8
	WORD $0xf3f4664e // vpadal.s16 q11, q7
	WORD $0xf284cc08 // vmull.s8 q6, d4, d8
	WORD $0xf3f4864c // vpadal.s16 q12, q6
	WORD $0xf285ec08 // vmull.s8 q7, d5, d8
	WORD $0xf3f4a64e // vpadal.s16 q13, q7
	WORD $0xf286cc08 // vmull.s8 q6, d6, d8
	WORD $0xf3f4c64c // vpadal.s16 q14, q6
	WORD $0xf287ec08 // vmull.s8 q7, d7, d8
	WORD $0xf3f4e64e // vpadal.s16 q15, q7

istore:
	WORD $0xf2600bb1 // vpadd.i32 d16, d16, d17
	WORD $0xf2621bb3 // vpadd.i32 d17, d18, d19
	WORD $0xf2642bb5 // vpadd.i32 d18, d20, d21
	WORD $0xf2663bb7 // vpadd.i32 d19, d22, d23
	WORD $0xf2684bb9 // vpadd.i32 d20, d24, d25
	WORD $0xf26a5bbb // vpadd.i32 d21, d26, d27
	WORD $0xf26c6bbd // vpadd.i32 d22, d28, d29
	WORD $0xf26e7bbf // vpadd.i32 d23, d30, d31
	MOVW seed+20(FP), R12
	WORD $0xf42c028d // vld1.32 {d0, d1, d2, d3}, [r12]!
	WORD $0xf42c428f // vld1.32 {d4, d5, d6, d7}, [r12]
	WORD $0xf26008c0 // vadd.i32 q8, q8, q0
	WORD $0xf26228c2 // vadd.i32 q9, q9, q1
	WORD $0xf26448c4 // vadd.i32 q10, q10, q2
	WORD $0xf26668c6 // vadd.i32 q11, q11, q3
	MOVW R0, R12
	WORD $0xf44c028d // vst1.32 {d16, d17, d18, d19}, [r12]!
	WORD $0xf44c428f // vst1.32 {d20, d21, d22, d23}, [r12]
	ADD R1, R0
	ADD R3, R2
	SUB.S $1, R5
	BNE irow
	RET

// func subI32NEON(p *int32, n int, c int32)
//
// p[i] -= c for i < n (n ≥ 0), wrapping: the weights' zero-point term of
// gemmInt8RqTiled, one row of sums at a time. Eight sums per step, then
// one.
//
// R0 cursor, R1 left, R2 c, R3 scratch; Q0 c in every lane, Q1-Q2 sums.
TEXT ·subI32NEON(SB), NOSPLIT, $0-12
	MOVW p+0(FP), R0
	MOVW n+4(FP), R1
	MOVW c+8(FP), R2
	WORD $0xeea02b10 // vdup.32 q0, r2

subloop8:
	CMP $8, R1
	BLT subloop1
	WORD $0xf420228f // vld1.32 {d2, d3, d4, d5}, [r0]
	WORD $0xf3222840 // vsub.i32 q1, q1, q0
	WORD $0xf3244840 // vsub.i32 q2, q2, q0
	WORD $0xf400228d // vst1.32 {d2, d3, d4, d5}, [r0]!
	SUB $8, R1
	B subloop8

subloop1:
	CMP $0, R1
	BEQ subdone
	MOVW (R0), R3
	SUB R2, R3
	MOVW.P R3, 4(R0)
	SUB $1, R1
	B subloop1

subdone:
	RET
