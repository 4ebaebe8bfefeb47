//go:build !purego

// ASIMD (NEON) quantised PRELU (see preluquant.go), eight elements per
// step, bit-exact with preluquant_generic.go. Both branches are computed
// for every lane, v = x + inOff rescaled by the positive stage and the
// wrapping product v·(alpha + aOff) (MUL) by the negative one, each
// addquant_neon_arm64.s's MultiplyByQuantizedMultiplier (SSHL,
// SQRDMULH, the fix-up AND/SSHR/SQADD, SRSHL: ties away from zero);
// BIT takes the second where v's sign mask (SSHR #31, taken before the
// rescaling) is set. Then the output zero point and the clamp; the clamp
// range lies within the output type, so the narrowing XTNs are exact.
// The instructions Go's assembler lacks are WORDs, checked by
// TestARM64Words.
//
// The parameter block is addquant_neon_arm64.go's quantNEONBlock, loaded
// into V16-V29: V16 inOff, V17 aOff, V18 left1, V19 mult1, V20 -right1
// (v ≥ 0), V21 left2, V22 mult2, V23 -right2 (v < 0), V27 outOff, V28
// lo, V29 hi (V24-V26 unused).
//
// R0 dst, R1 x, R2 alpha, R3 the count of 8-element steps. V1/V2 the
// eight int32 values of v (then the results), V6/V7 those of alpha
// (then the products), V10/V11 the sign masks, V3/V4/V8/V9 the rounding
// fix-ups.

#include "textflag.h"

#define SETUP \
	MOVD dst+0(FP), R0 \
	MOVD x+8(FP), R1 \
	MOVD alpha+16(FP), R2 \
	MOVD n+24(FP), R3 \
	MOVD v+32(FP), R8 \
	VLD1 (R8), [V16.S4, V17.S4, V18.S4, V19.S4] \
	ADD  $64, R8 \
	VLD1 (R8), [V20.S4, V21.S4, V22.S4, V23.S4] \
	ADD  $64, R8 \
	VLD1 (R8), [V24.S4, V25.S4, V26.S4, V27.S4] \
	ADD  $64, R8 \
	VLD1 (R8), [V28.S4, V29.S4] \
	LSR  $3, R3, R3

// WIDEN_INT8 and WIDEN_UINT8: the eight bytes in V0 into V1/V2, those in
// V5 into V6/V7, as int32.
#define WIDEN_INT8 \
	WORD $0x0f08a400 /* sxtl v0.8h, v0.8b */ \
	WORD $0x0f10a401 /* sxtl v1.4s, v0.4h */ \
	WORD $0x4f10a402 /* sxtl2 v2.4s, v0.8h */ \
	WORD $0x0f08a4a5 /* sxtl v5.8h, v5.8b */ \
	WORD $0x0f10a4a6 /* sxtl v6.4s, v5.4h */ \
	WORD $0x4f10a4a7 /* sxtl2 v7.4s, v5.8h */

#define WIDEN_UINT8 \
	WORD $0x2f08a400 /* uxtl v0.8h, v0.8b */ \
	WORD $0x2f10a401 /* uxtl v1.4s, v0.4h */ \
	WORD $0x6f10a402 /* uxtl2 v2.4s, v0.8h */ \
	WORD $0x2f08a4a5 /* uxtl v5.8h, v5.8b */ \
	WORD $0x2f10a4a6 /* uxtl v6.4s, v5.4h */ \
	WORD $0x6f10a4a7 /* uxtl2 v7.4s, v5.8h */

// PRELU8: the offsets, the products, the sign masks, both rescalings,
// the selection, the output offset and clamp, narrowed to eight bytes at
// R0.
#define PRELU8 \
	VADD V16.S4, V1.S4, V1.S4 \
	VADD V16.S4, V2.S4, V2.S4 \
	VADD V17.S4, V6.S4, V6.S4 \
	VADD V17.S4, V7.S4, V7.S4 \
	WORD $0x4ea19cc6 /* mul v6.4s, v6.4s, v1.4s */ \
	WORD $0x4ea29ce7 /* mul v7.4s, v7.4s, v2.4s */ \
	WORD $0x4f21042a /* sshr v10.4s, v1.4s, #31 */ \
	WORD $0x4f21044b /* sshr v11.4s, v2.4s, #31 */ \
	WORD $0x4eb24421 /* sshl v1.4s, v1.4s, v18.4s */ \
	WORD $0x4eb24442 /* sshl v2.4s, v2.4s, v18.4s */ \
	WORD $0x6eb3b421 /* sqrdmulh v1.4s, v1.4s, v19.4s */ \
	WORD $0x6eb3b442 /* sqrdmulh v2.4s, v2.4s, v19.4s */ \
	VAND V20.B16, V1.B16, V3.B16 \
	VAND V20.B16, V2.B16, V4.B16 \
	WORD $0x4f210463 /* sshr v3.4s, v3.4s, #31 */ \
	WORD $0x4f210484 /* sshr v4.4s, v4.4s, #31 */ \
	WORD $0x4ea30c21 /* sqadd v1.4s, v1.4s, v3.4s */ \
	WORD $0x4ea40c42 /* sqadd v2.4s, v2.4s, v4.4s */ \
	WORD $0x4eb45421 /* srshl v1.4s, v1.4s, v20.4s */ \
	WORD $0x4eb45442 /* srshl v2.4s, v2.4s, v20.4s */ \
	WORD $0x4eb544c6 /* sshl v6.4s, v6.4s, v21.4s */ \
	WORD $0x4eb544e7 /* sshl v7.4s, v7.4s, v21.4s */ \
	WORD $0x6eb6b4c6 /* sqrdmulh v6.4s, v6.4s, v22.4s */ \
	WORD $0x6eb6b4e7 /* sqrdmulh v7.4s, v7.4s, v22.4s */ \
	VAND V23.B16, V6.B16, V8.B16 \
	VAND V23.B16, V7.B16, V9.B16 \
	WORD $0x4f210508 /* sshr v8.4s, v8.4s, #31 */ \
	WORD $0x4f210529 /* sshr v9.4s, v9.4s, #31 */ \
	WORD $0x4ea80cc6 /* sqadd v6.4s, v6.4s, v8.4s */ \
	WORD $0x4ea90ce7 /* sqadd v7.4s, v7.4s, v9.4s */ \
	WORD $0x4eb754c6 /* srshl v6.4s, v6.4s, v23.4s */ \
	WORD $0x4eb754e7 /* srshl v7.4s, v7.4s, v23.4s */ \
	WORD $0x6eaa1cc1 /* bit v1.16b, v6.16b, v10.16b */ \
	WORD $0x6eab1ce2 /* bit v2.16b, v7.16b, v11.16b */ \
	VADD V27.S4, V1.S4, V1.S4 \
	VADD V27.S4, V2.S4, V2.S4 \
	WORD $0x4ebc6421 /* smax v1.4s, v1.4s, v28.4s */ \
	WORD $0x4ebc6442 /* smax v2.4s, v2.4s, v28.4s */ \
	WORD $0x4ebd6c21 /* smin v1.4s, v1.4s, v29.4s */ \
	WORD $0x4ebd6c42 /* smin v2.4s, v2.4s, v29.4s */ \
	WORD $0x0e612821 /* xtn v1.4h, v1.4s */ \
	WORD $0x4e612841 /* xtn2 v1.8h, v2.4s */ \
	WORD $0x0e212821 /* xtn v1.8b, v1.8h */ \
	FMOVD.P F1, 8(R0)

// func preluQuantInt8NEONAsm(dst, x, alpha *int8, n int, v *quantNEONBlock)
TEXT ·preluQuantInt8NEONAsm(SB), NOSPLIT, $0-40
	SETUP

preluQuantInt8loop:
	FMOVD.P 8(R1), F0
	FMOVD.P 8(R2), F5
	WIDEN_INT8
	PRELU8
	SUB  $1, R3
	CBNZ R3, preluQuantInt8loop
	RET

// func preluQuantUint8NEONAsm(dst, x, alpha *uint8, n int, v *quantNEONBlock)
TEXT ·preluQuantUint8NEONAsm(SB), NOSPLIT, $0-40
	SETUP

preluQuantUint8loop:
	FMOVD.P 8(R1), F0
	FMOVD.P 8(R2), F5
	WIDEN_UINT8
	PRELU8
	SUB  $1, R3
	CBNZ R3, preluQuantUint8loop
	RET
