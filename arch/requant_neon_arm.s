//go:build !purego && arm.7

// 32-bit ARM NEON requantisation (GOARM=7 builds, chosen when HWCAP
// reports NEON), eight int32 accumulators per step; see requant_neon.go
// for the arithmetic, which is requant_neon_arm64.s's instruction for
// instruction (VSHL for SSHL, VQRDMULH, VSHR, VQADD, VRSHL). Every NEON
// instruction is a WORD, checked by TestARMWords against an external
// assembler. Only R0-R9 are used.
//
// Q12 multiplier, Q13 left shift, Q14 -right (the VRSHL count), Q15 the
// sign test of the rounding fix-up (-right & tie); Q1/Q2 the two groups
// of four values, Q3/Q4 their fix-ups.

#include "textflag.h"

#define MBQM \
	WORD $0xf22a24c2 /* vshl.s32 q1, q1, q13 */ \
	WORD $0xf22a44c4 /* vshl.s32 q2, q2, q13 */ \
	WORD $0xf3222b68 /* vqrdmulh.s32 q1, q1, q12 */ \
	WORD $0xf3244b68 /* vqrdmulh.s32 q2, q2, q12 */ \
	WORD $0xf202617e /* vand q3, q1, q15 */ \
	WORD $0xf204817e /* vand q4, q2, q15 */ \
	WORD $0xf2a16056 /* vshr.s32 q3, q3, #31 */ \
	WORD $0xf2a18058 /* vshr.s32 q4, q4, #31 */ \
	WORD $0xf2222056 /* vqadd.s32 q1, q1, q3 */ \
	WORD $0xf2244058 /* vqadd.s32 q2, q2, q4 */ \
	WORD $0xf22c25c2 /* vrshl.s32 q1, q1, q14 */ \
	WORD $0xf22c45c4 /* vrshl.s32 q2, q2, q14 */

// func requantAccInt16NEONAsm(dst []int16, acc []int32, n int, mult, left, negRight int32)
//
// dst[i] = sat16(dst[i] + MBQM(acc[i])) for i < n, n a positive multiple
// of 8: the int16 destinations are widened (VMOVL), added with int32
// wrap-around, and narrowed with signed saturation (VQMOVN).
TEXT ·requantAccInt16NEONAsm(SB), NOSPLIT, $0-40
	MOVW dst_base+0(FP), R0
	MOVW acc_base+12(FP), R1
	MOVW n+24(FP), R2
	MOVW mult+28(FP), R3
	MOVW left+32(FP), R4
	MOVW negRight+36(FP), R5
	WORD $0xeea83b90 // vdup.32 q12, r3
	WORD $0xeeaa4b90 // vdup.32 q13, r4
	WORD $0xeeac5b90 // vdup.32 q14, r5
	WORD $0xeeae5b90 // vdup.32 q15, r5
	MOVW R2>>3, R2

acc16loop:
	WORD $0xf421228d // vld1.32 {d2, d3, d4, d5}, [r1]!
	MBQM
	WORD $0xf420aa4f // vld1.16 {d10, d11}, [r0]
	WORD $0xf290ca1a // vmovl.s16 q6, d10
	WORD $0xf290ea1b // vmovl.s16 q7, d11
	WORD $0xf222284c // vadd.i32 q1, q1, q6
	WORD $0xf224484e // vadd.i32 q2, q2, q7
	WORD $0xf3b6a282 // vqmovn.s32 d10, q1
	WORD $0xf3b6b284 // vqmovn.s32 d11, q2
	WORD $0xf400aa4d // vst1.16 {d10, d11}, [r0]!
	SUB.S $1, R2
	BNE acc16loop
	RET

// func requantInt8NEONAsm(dst []int8, acc []int32, n int, mult, left, negRight, zeroPoint, lo, hi, tie int32)
//
// dst[i] = clamp(MBQM(acc[i]) + zeroPoint, lo, hi) for i < n, n a
// positive multiple of 8 (int32 add wrapping; lo and hi lie in the int8
// range, so the narrowing VMOVNs are exact). Q9 zero point, Q10 lo,
// Q11 hi; Q15 = negRight & tie.
TEXT ·requantInt8NEONAsm(SB), NOSPLIT, $0-56
	MOVW dst_base+0(FP), R0
	MOVW acc_base+12(FP), R1
	MOVW n+24(FP), R2
	MOVW mult+28(FP), R3
	MOVW left+32(FP), R4
	MOVW negRight+36(FP), R5
	MOVW zeroPoint+40(FP), R6
	MOVW lo+44(FP), R7
	MOVW hi+48(FP), R8
	MOVW tie+52(FP), R9
	AND  R5, R9, R9
	WORD $0xeea83b90 // vdup.32 q12, r3
	WORD $0xeeaa4b90 // vdup.32 q13, r4
	WORD $0xeeac5b90 // vdup.32 q14, r5
	WORD $0xeeae9b90 // vdup.32 q15, r9
	WORD $0xeea26b90 // vdup.32 q9, r6
	WORD $0xeea47b90 // vdup.32 q10, r7
	WORD $0xeea68b90 // vdup.32 q11, r8
	MOVW R2>>3, R2

i8loop:
	WORD $0xf421228d // vld1.32 {d2, d3, d4, d5}, [r1]!
	MBQM
	WORD $0xf2222862 // vadd.i32 q1, q1, q9
	WORD $0xf2244862 // vadd.i32 q2, q2, q9
	WORD $0xf2222664 // vmax.s32 q1, q1, q10
	WORD $0xf2244664 // vmax.s32 q2, q2, q10
	WORD $0xf2222676 // vmin.s32 q1, q1, q11
	WORD $0xf2244676 // vmin.s32 q2, q2, q11
	WORD $0xf3b6a202 // vmovn.i32 d10, q1
	WORD $0xf3b6b204 // vmovn.i32 d11, q2
	WORD $0xf3b2a20a // vmovn.i16 d10, q5
	WORD $0xf400a70d // vst1.8 {d10}, [r0]!
	SUB.S $1, R2
	BNE i8loop
	RET
