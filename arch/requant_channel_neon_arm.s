//go:build !purego && arm.7

// 32-bit ARM NEON per-channel requantisation (RequantizeChannelsInt8/Uint8,
// requant_channel.go), GOARM=7 builds: requant_channel_neon_arm64.s's
// arithmetic instruction for instruction (VSHL by the channel's left
// shift, VQRDMULH, the shift right by VSHL with the negated right shift
// plus the carry (threshold - (h>>31 & tie) - (h & mask)) >>> 31, zero point,
// VMAX/VMIN clamp, two VMOVNs to bytes). Every NEON instruction is a
// WORD, checked by TestARMWords against an external assembler. Only
// R0-R9 and R12 are used (R10 is g, R11 the linker's temporary).

#include "textflag.h"

// func requantRowsNEON(dst *byte, acc *int32, rows, nv, ps int, qp *int32, qstride int, zp, lo, hi int32)
//
// For rows pixels p and channels c < nv (a multiple of 4, ≥ 4):
// dst[p·ps + c] = requantised acc[p·ps + c] with channel c's parameters,
// the rows of a ChannelRequant at qp (qstride bytes apart: multiplier
// row 0, left shift 2, right shift 3, mask 4, threshold 5, tie mask 6,
// loaded once into Q15), loaded by
// one cursor stepping qstride after each load.
//
// R0 dst row, R1 acc row, R2 rows left, R3 nv, R4 ps in bytes of acc,
// R5 the parameters of the current four channels (row 0), R6 qstride,
// R7 channel counter, R8 acc cursor, R9 dst cursor, R12 parameter
// cursor; Q0 x, Q1 multiplier, Q2 left, Q3 right (negated), Q4 mask,
// Q5 threshold, Q6-Q7 scratch, Q12 zp, Q13 lo, Q14 hi, Q15 tie mask.
TEXT ·requantRowsNEON(SB), NOSPLIT, $0-40
	MOVW dst+0(FP), R0
	MOVW acc+4(FP), R1
	MOVW rows+8(FP), R2
	MOVW nv+12(FP), R3
	MOVW ps+16(FP), R4
	MOVW qstride+24(FP), R6
	MOVW zp+28(FP), R7
	WORD $0xeea87b90 // vdup.32 q12, r7
	MOVW lo+32(FP), R7
	WORD $0xeeaa7b90 // vdup.32 q13, r7
	MOVW hi+36(FP), R7
	WORD $0xeeac7b90 // vdup.32 q14, r7
	// The tie mask (row 6, the same in every element) in Q15.
	MOVW qp+20(FP), R7
	ADD R6<<2, R7
	ADD R6<<1, R7
	WORD $0xf467ea8f // vld1.32 {d30, d31}, [r7]

qrow:
	MOVW R1, R8
	MOVW R0, R9
	MOVW qp+20(FP), R5
	MOVW R3>>2, R7

qloop:
	WORD $0xf4280a8d // vld1.32 {d0, d1}, [r8]!
	MOVW R5, R12
	WORD $0xf42c2a86 // vld1.32 {d2, d3}, [r12], r6
	ADD R6, R12
	WORD $0xf42c4a86 // vld1.32 {d4, d5}, [r12], r6
	WORD $0xf42c6a86 // vld1.32 {d6, d7}, [r12], r6
	WORD $0xf42c8a86 // vld1.32 {d8, d9}, [r12], r6
	WORD $0xf42caa8f // vld1.32 {d10, d11}, [r12]
	ADD $16, R5
	WORD $0xf3b963c6 // vneg.s32 q3, q3
	WORD $0xf2240440 // vshl.s32 q0, q0, q2
	WORD $0xf3200b42 // vqrdmulh.s32 q0, q0, q1
	WORD $0xf208c150 // vand q6, q4, q0
	WORD $0xf2a1e050 // vshr.s32 q7, q0, #31
	WORD $0xf20ee17e // vand q7, q7, q15
	WORD $0xf32aa84e // vsub.i32 q5, q5, q7
	WORD $0xf32aa84c // vsub.i32 q5, q5, q6
	WORD $0xf3a1a05a // vshr.u32 q5, q5, #31
	WORD $0xf2260440 // vshl.s32 q0, q0, q3
	WORD $0xf220084a // vadd.i32 q0, q0, q5
	WORD $0xf2200868 // vadd.i32 q0, q0, q12
	WORD $0xf220066a // vmax.s32 q0, q0, q13
	WORD $0xf220067c // vmin.s32 q0, q0, q14
	WORD $0xf3b60200 // vmovn.i32 d0, q0
	WORD $0xf3b20200 // vmovn.i16 d0, q0
	WORD $0xf489080d // vst1.32 {d0[0]}, [r9]!
	SUB.S $1, R7
	BNE qloop

	ADD R4, R1
	ADD R4>>2, R0
	SUB.S $1, R2
	BNE qrow
	RET
