//go:build !purego && arm.7

// 32-bit ARM NEON sigmoid and tanh (GOARM=7 builds, chosen when HWCAP
// reports NEON): the formulas of activation_generic.go on four lanes per
// step, with its roundings (VMUL, VADD and VMLA round each product and
// sum as the portable code does), the 1.5·2^23 trick for round-to-nearest
// (VCVT truncates) and 1/d from VRECPE and two Newton steps (NEON has no
// divide); activation_arm.go says what that costs. The Go wrappers pass a
// multiple of four elements. Every NEON instruction is a WORD, checked by
// TestARMWords against an external assembler. Only R0-R3 are used.
//
// Constants (·actConstsARM, loaded once): Q12 expMaxArg, Q13 expMinArg,
// Q14 the magic 1.5·2^23, Q15 1.0 (also its bits, 127<<23, to build
// 2^n), D12 [log2e ln2hi], D13 [ln2lo P0], D14 [T0 P1], D15 [P2 P3],
// D16 [P4 P5], D17 [T1 T2], D18 [T3 T4]; tanh also sets Q10 to the sign
// bit and Q11 to tanhSmall (0.625) by immediate. The scale 2^n is
// (t<<23) + bits(1.0), t = z·log2e + magic as integer bits: the magic's
// own bits vanish in the shift.

#include "textflag.h"

#define LOAD_CONSTS \
	MOVW $·actConstsARM(SB), R3 \
	WORD $0xf463828d /* vld1.32 {d24, d25, d26, d27}, [r3]! */ \
	WORD $0xf463c28d /* vld1.32 {d28, d29, d30, d31}, [r3]! */ \
	WORD $0xf423c28d /* vld1.32 {d12, d13, d14, d15}, [r3]! */ \
	WORD $0xf463028f /* vld1.32 {d16, d17, d18, d19}, [r3] */

// EXP: Q3 = e^z for z in Q3 (already clamped), with Q2, Q4, Q5 scratch:
// t = z·log2e + magic (Q4), n = t - magic, r = z - n·ln2hi - n·ln2lo
// (Q3), the degree-7 polynomial p (Q5), y = ((p·r)·r + r) + 1, times
// 2^n (built in Q4).
#define EXP \
	WORD $0xf3a6894c /* vmul.f32 q4, q3, d12[0] */ \
	WORD $0xf2088d6c /* vadd.f32 q4, q4, q14 */ \
	WORD $0xf228ad6c /* vsub.f32 q5, q4, q14 */ \
	WORD $0xf3aa656c /* vmls.f32 q3, q5, d12[1] */ \
	WORD $0xf3aa654d /* vmls.f32 q3, q5, d13[0] */ \
	WORD $0xf3bcac4e /* vdup.32 q5, d14[1] */ \
	WORD $0xf3a6a16d /* vmla.f32 q5, q3, d13[1] */ \
	WORD $0xf3b44c4f /* vdup.32 q2, d15[0] */ \
	WORD $0xf20a4d56 /* vmla.f32 q2, q5, q3 */ \
	WORD $0xf3bcac4f /* vdup.32 q5, d15[1] */ \
	WORD $0xf204ad56 /* vmla.f32 q5, q2, q3 */ \
	WORD $0xf3b44c60 /* vdup.32 q2, d16[0] */ \
	WORD $0xf20a4d56 /* vmla.f32 q2, q5, q3 */ \
	WORD $0xf3bcac60 /* vdup.32 q5, d16[1] */ \
	WORD $0xf204ad56 /* vmla.f32 q5, q2, q3 */ \
	WORD $0xf30aad56 /* vmul.f32 q5, q5, q3 */ \
	WORD $0xf30aad56 /* vmul.f32 q5, q5, q3 */ \
	WORD $0xf20aad46 /* vadd.f32 q5, q5, q3 */ \
	WORD $0xf20aad6e /* vadd.f32 q5, q5, q15 */ \
	WORD $0xf2b78558 /* vshl.i32 q4, q4, #23 */ \
	WORD $0xf228886e /* vadd.i32 q4, q4, q15 */ \
	WORD $0xf30a6d58 /* vmul.f32 q3, q5, q4 */

// RECIP: Q2 = 1/Q3 (Q3 ≥ 1), Q4 scratch: the estimate and two Newton
// steps r ← r·(2 - d·r).
#define RECIP \
	WORD $0xf3bb4546 /* vrecpe.f32 q2, q3 */ \
	WORD $0xf2068f54 /* vrecps.f32 q4, q3, q2 */ \
	WORD $0xf3044d58 /* vmul.f32 q2, q2, q4 */ \
	WORD $0xf2068f54 /* vrecps.f32 q4, q3, q2 */ \
	WORD $0xf3044d58 /* vmul.f32 q2, q2, q4 */

// func sigmoidNEONAsm(dst, x []float32)
//
// len(x) is a multiple of 4. R0 dst, R1 x, R2 steps left; Q0 x.
TEXT ·sigmoidNEONAsm(SB), NOSPLIT, $0-24
	MOVW dst_base+0(FP), R0
	MOVW x_base+12(FP), R1
	MOVW x_len+16(FP), R2
	MOVW.S R2>>2, R2
	BEQ sigdone
	LOAD_CONSTS

sigloop:
	WORD $0xf4210a8d // vld1.32 {d0, d1}, [r1]!
	WORD $0xf3b967c0 // vneg.f32 q3, q0
	WORD $0xf2266f68 // vmin.f32 q3, q3, q12
	WORD $0xf2066f6a // vmax.f32 q3, q3, q13
	EXP
	WORD $0xf2066d6e // vadd.f32 q3, q3, q15
	RECIP
	WORD $0xf4004a8d // vst1.32 {d4, d5}, [r0]!
	SUB.S $1, R2
	BNE sigloop

sigdone:
	RET

// func tanhNEONAsm(dst, x []float32)
//
// len(x) is a multiple of 4. R0 dst, R1 x, R2 steps left; Q0 x, Q1 |x|,
// Q2 the result for |x| ≥ tanhSmall, 1 - 2/(e^(2|x|)+1), Q3 the one
// below it, |x| + (|x|·x²)·T(x²), chosen by the mask |x| < tanhSmall;
// then x's sign bit is put in.
TEXT ·tanhNEONAsm(SB), NOSPLIT, $0-24
	MOVW dst_base+0(FP), R0
	MOVW x_base+12(FP), R1
	MOVW x_len+16(FP), R2
	MOVW.S R2>>2, R2
	BEQ tanhdone
	LOAD_CONSTS
	WORD $0xf3c04650 // vmov.i32 q10, #0x80000000
	WORD $0xf2c66f54 // vmov.f32 q11, #0.625

tanhloop:
	WORD $0xf4210a8d // vld1.32 {d0, d1}, [r1]!
	WORD $0xf3b92740 // vabs.f32 q1, q0
	WORD $0xf2026d42 // vadd.f32 q3, q1, q1
	WORD $0xf2266f68 // vmin.f32 q3, q3, q12
	EXP
	WORD $0xf2066d6e // vadd.f32 q3, q3, q15
	RECIP
	WORD $0xf2044d44 // vadd.f32 q2, q2, q2
	WORD $0xf22e4dc4 // vsub.f32 q2, q15, q2
	WORD $0xf3026d52 // vmul.f32 q3, q1, q1
	WORD $0xf3b48c61 // vdup.32 q4, d17[0]
	WORD $0xf3a6814e // vmla.f32 q4, q3, d14[0]
	WORD $0xf3bcac61 // vdup.32 q5, d17[1]
	WORD $0xf208ad56 // vmla.f32 q5, q4, q3
	WORD $0xf3b48c62 // vdup.32 q4, d18[0]
	WORD $0xf20a8d56 // vmla.f32 q4, q5, q3
	WORD $0xf3bcac62 // vdup.32 q5, d18[1]
	WORD $0xf208ad56 // vmla.f32 q5, q4, q3
	WORD $0xf3026d56 // vmul.f32 q3, q1, q3
	WORD $0xf3066d5a // vmul.f32 q3, q3, q5
	WORD $0xf2026d46 // vadd.f32 q3, q1, q3
	WORD $0xf3268ec2 // vcgt.f32 q4, q11, q1
	WORD $0xf3264158 // vbit q2, q3, q4
	WORD $0xf3204174 // vbit q2, q0, q10
	WORD $0xf4004a8d // vst1.32 {d4, d5}, [r0]!
	SUB.S $1, R2
	BNE tanhloop

tanhdone:
	RET
