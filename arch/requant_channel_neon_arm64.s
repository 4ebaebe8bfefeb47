//go:build !purego

// ASIMD (NEON) per-channel requantisation (RequantizeChannelsInt8/Uint8,
// requant_channel.go) on four channels per step, in the branch-free form
// of requantChannelsGeneric: SSHL by the channel's left shift (wrapping,
// as x<<left does in Go), SQRDMULH (equal to the floor form
// (x·m + 2^30) >> 31 for every multiplier but MinInt32, which
// ChannelRequant refuses), then the arithmetic shift right by SSHL with
// the negated right shift plus the carry (threshold - (h>>31) -
// (h & mask)) >>> 31, which rounds ties away from zero; + zero point,
// clamp (SMAX/SMIN) and two XTNs to bytes. The multiply, shifts, min/max
// and narrowing are WORDs, checked by TestARM64Words. Registers R18 and
// R26-R30 are not touched.

#include "textflag.h"

// func requantRowsNEON(dst *byte, acc *int32, rows, nv, ps int, qp *int32, qstride int, zp, lo, hi int32)
//
// For rows pixels p and channels c < nv (a multiple of 4, ≥ 4):
// dst[p·ps + c] = requantised acc[p·ps + c] with channel c's parameters,
// the rows of a ChannelRequant at qp (qstride bytes apart: multiplier
// row 0, left shift 2, right shift 3, mask 4, threshold 5, tie mask 6).
//
// R0 dst row, R1 acc row, R2 rows left, R3 nv, R4 ps in bytes of acc,
// R5 qp, R6 qstride, R7 channel counter, R8 acc cursor, R9 dst cursor,
// R10-R14 parameter cursors; V0 x, V1 multiplier, V2 left, V3 right
// (negated), V4 mask, V5 threshold, V6-V7 scratch, V28 zp, V29 lo, V30 hi,
// V31 tie mask.
TEXT ·requantRowsNEON(SB), NOSPLIT, $0-68
	MOVD dst+0(FP), R0
	MOVD acc+8(FP), R1
	MOVD rows+16(FP), R2
	MOVD nv+24(FP), R3
	MOVD ps+32(FP), R4
	MOVD qp+40(FP), R5
	MOVD qstride+48(FP), R6
	MOVW zp+56(FP), R7
	VDUP R7, V28.S4
	MOVW lo+60(FP), R7
	VDUP R7, V29.S4
	MOVW hi+64(FP), R7
	VDUP R7, V30.S4
	// The tie mask (row 6, the same in every element).
	ADD R6<<2, R5, R7
	ADD R6<<1, R7
	VLD1 (R7), [V31.S4]

qrow:
	MOVD R1, R8
	MOVD R0, R9
	ADD R6<<1, R5, R10 // left shifts
	ADD R6, R10, R11   // right shifts
	ADD R6, R11, R12   // masks
	ADD R6, R12, R13   // thresholds
	MOVD R5, R14       // multipliers
	LSR $2, R3, R7

qloop:
	VLD1.P 16(R8), [V0.S4]
	VLD1.P 16(R14), [V1.S4]
	VLD1.P 16(R10), [V2.S4]
	VLD1.P 16(R11), [V3.S4]
	VLD1.P 16(R12), [V4.S4]
	VLD1.P 16(R13), [V5.S4]
	WORD $0x6ea0b863 // neg v3.4s, v3.4s
	WORD $0x4ea24400 // sshl v0.4s, v0.4s, v2.4s
	WORD $0x6ea1b400 // sqrdmulh v0.4s, v0.4s, v1.4s
	VAND V4.B16, V0.B16, V6.B16
	WORD $0x4f210407 // sshr v7.4s, v0.4s, #31
	VAND V31.B16, V7.B16, V7.B16
	VSUB V7.S4, V5.S4, V5.S4
	VSUB V6.S4, V5.S4, V5.S4
	VUSHR $31, V5.S4, V5.S4
	WORD $0x4ea34400 // sshl v0.4s, v0.4s, v3.4s
	VADD V5.S4, V0.S4, V0.S4
	VADD V28.S4, V0.S4, V0.S4
	WORD $0x4ebd6400 // smax v0.4s, v0.4s, v29.4s
	WORD $0x4ebe6c00 // smin v0.4s, v0.4s, v30.4s
	WORD $0x0e612800 // xtn v0.4h, v0.4s
	WORD $0x0e212800 // xtn v0.8b, v0.8h
	FMOVS.P F0, 4(R9)
	SUB $1, R7
	CBNZ R7, qloop

	ADD R4, R1
	ADD R4>>2, R0
	SUB $1, R2
	CBNZ R2, qrow
	RET
