//go:build !purego

// ASIMD (NEON) requantisation, eight int32 accumulators per step; see
// requant_arm64.go for the arithmetic. SSHL, SQRDMULH, SSHR, SQADD, SRSHL,
// SXTL, SQXTN, SMAX, SMIN and XTN are WORDs (Go's assembler lacks them),
// checked by TestARM64Words.
//
// V28 multiplier, V29 left shift, V30 -right (the SRSHL count), V31 the
// sign test of the rounding fix-up, ANDed with x: -right for ties away
// from zero (its sign bit is set exactly when right > 0), 0 for ruy's
// upward ties (no fix-up: SRSHL rounds half up). V1/V2 the two groups of
// four values, V3/V4 their fix-ups.

#include "textflag.h"

#define MBQM \
	WORD $0x4ebd4421 /* sshl v1.4s, v1.4s, v29.4s */     \
	WORD $0x4ebd4442 /* sshl v2.4s, v2.4s, v29.4s */     \
	WORD $0x6ebcb421 /* sqrdmulh v1.4s, v1.4s, v28.4s */ \
	WORD $0x6ebcb442 /* sqrdmulh v2.4s, v2.4s, v28.4s */ \
	VAND V31.B16, V1.B16, V3.B16                         \
	VAND V31.B16, V2.B16, V4.B16                         \
	WORD $0x4f210463 /* sshr v3.4s, v3.4s, #31 */        \
	WORD $0x4f210484 /* sshr v4.4s, v4.4s, #31 */        \
	WORD $0x4ea30c21 /* sqadd v1.4s, v1.4s, v3.4s */     \
	WORD $0x4ea40c42 /* sqadd v2.4s, v2.4s, v4.4s */     \
	WORD $0x4ebe5421 /* srshl v1.4s, v1.4s, v30.4s */    \
	WORD $0x4ebe5442 /* srshl v2.4s, v2.4s, v30.4s */

// func requantAccInt16NEONAsm(dst []int16, acc []int32, n int, mult, left, negRight int32)
//
// dst[i] = sat16(dst[i] + MBQM(acc[i])) for i < n, n a positive multiple
// of 8: the int16 destinations are widened (SXTL), added with int32
// wrap-around, and narrowed with signed saturation (SQXTN).
TEXT ·requantAccInt16NEONAsm(SB), NOSPLIT, $0-68
	MOVD dst_base+0(FP), R0
	MOVD acc_base+24(FP), R1
	MOVD n+48(FP), R2
	MOVW mult+56(FP), R3
	MOVW left+60(FP), R4
	MOVW negRight+64(FP), R5
	VDUP R3, V28.S4
	VDUP R4, V29.S4
	VDUP R5, V30.S4
	VDUP R5, V31.S4
	LSR  $3, R2, R2

acc16loop:
	VLD1.P 32(R1), [V1.S4, V2.S4]
	MBQM
	VLD1   (R0), [V5.H8]
	WORD   $0x0f10a4a6 // sxtl v6.4s, v5.4h
	WORD   $0x4f10a4a7 // sxtl2 v7.4s, v5.8h
	VADD   V6.S4, V1.S4, V1.S4
	VADD   V7.S4, V2.S4, V2.S4
	WORD   $0x0e614825 // sqxtn v5.4h, v1.4s
	WORD   $0x4e614845 // sqxtn2 v5.8h, v2.4s
	VST1.P [V5.H8], 16(R0)
	SUB    $1, R2
	CBNZ   R2, acc16loop
	RET

// func requantInt8NEONAsm(dst []int8, acc []int32, n int, mult, left, negRight, zeroPoint, lo, hi, tie int32)
//
// dst[i] = clamp(MBQM(acc[i]) + zeroPoint, lo, hi) for i < n, n a
// positive multiple of 8 (int32 add wrapping; lo and hi lie in the int8
// range, so the narrowing XTNs are exact). V25 zero point, V26 lo, V27 hi;
// V31 = negRight & tie.
TEXT ·requantInt8NEONAsm(SB), NOSPLIT, $0-84
	MOVD dst_base+0(FP), R0
	MOVD acc_base+24(FP), R1
	MOVD n+48(FP), R2
	MOVW mult+56(FP), R3
	MOVW left+60(FP), R4
	MOVW negRight+64(FP), R5
	MOVW zeroPoint+68(FP), R6
	MOVW lo+72(FP), R7
	MOVW hi+76(FP), R8
	MOVW tie+80(FP), R9
	AND  R5, R9, R9
	VDUP R3, V28.S4
	VDUP R4, V29.S4
	VDUP R5, V30.S4
	VDUP R9, V31.S4
	VDUP R6, V25.S4
	VDUP R7, V26.S4
	VDUP R8, V27.S4
	LSR  $3, R2, R2

i8loop:
	VLD1.P  32(R1), [V1.S4, V2.S4]
	MBQM
	VADD    V25.S4, V1.S4, V1.S4
	VADD    V25.S4, V2.S4, V2.S4
	WORD    $0x4eba6421 // smax v1.4s, v1.4s, v26.4s
	WORD    $0x4eba6442 // smax v2.4s, v2.4s, v26.4s
	WORD    $0x4ebb6c21 // smin v1.4s, v1.4s, v27.4s
	WORD    $0x4ebb6c42 // smin v2.4s, v2.4s, v27.4s
	WORD    $0x0e612825 // xtn v5.4h, v1.4s
	WORD    $0x4e612845 // xtn2 v5.8h, v2.4s
	WORD    $0x0e2128a5 // xtn v5.8b, v5.8h
	FMOVD.P F5, 8(R0)
	SUB     $1, R2
	CBNZ    R2, i8loop
	RET
