//go:build !purego

// ASIMD (NEON) quantised addition, subtraction and multiplication (see addquant.go,
// mulquant.go), eight elements per step, bit-exact with
// addquant_generic.go and mulquant_generic.go. Each rescaling is
// requant_neon_arm64.s's MultiplyByQuantizedMultiplier: SSHL (the
// wrapping x·2^left), SQRDMULH (gemmlowp's saturating rounding doubling
// high multiply, MinInt32·MinInt32 included), then the rounding divide
// by 2^right with ties away from zero (AND with -right, whose sign bit is
// set exactly when right > 0, SSHR #31, SQADD, SRSHL by -right). The
// clamp range lies within the output type, so the narrowing XTNs are
// exact. SXTL/UXTL, SSHL, SQRDMULH, SSHR, SQADD, SRSHL, MUL, SMAX, SMIN and
// XTN are WORDs (Go's assembler lacks them), checked by TestARM64Words.
//
// The parameter block (quantNEONBlock in addquant_neon_arm64.go)
// holds each parameter in four lanes, loaded once into V16-V29:
//
//	add: V16 off1, V17 off2, V18 left1, V19 mult1, V20 -right1,
//	     V21 left2, V22 mult2, V23 -right2, V24 lefto, V25 multo,
//	     V26 -righto, V27 outOff, V28 lo, V29 hi
//	mul: V16 off1, V17 off2, V24 left, V25 mult, V26 -right, V27 outOff,
//	     V28 lo, V29 hi (V18-V23 unused)
//
// R0 dst, R1 a, R2 b, R3 the count of 8-element steps (n > 0, a multiple
// of 8). V1/V2 the eight int32 values of a (then the sum, the product),
// V6/V7 those of b, V3/V4/V8/V9 the rounding fix-ups.

#include "textflag.h"

// SETUP: the arguments into R0-R3 (R3 the count of 8-element steps), the
// parameter block into V16-V29.
#define SETUP \
	MOVD dst+0(FP), R0 \
	MOVD a+8(FP), R1 \
	MOVD b+16(FP), R2 \
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

// LOAD_INT8: eight int8 values of a into V1/V2 and of b into V6/V7, widened
// to int32, plus off1 and off2.
#define LOAD_INT8 \
	FMOVD.P 8(R1), F0 \
	FMOVD.P 8(R2), F5 \
	WORD $0x0f08a400 /* sxtl v0.8h, v0.8b */ \
	WORD $0x0f10a401 /* sxtl v1.4s, v0.4h */ \
	WORD $0x4f10a402 /* sxtl2 v2.4s, v0.8h */ \
	WORD $0x0f08a4a5 /* sxtl v5.8h, v5.8b */ \
	WORD $0x0f10a4a6 /* sxtl v6.4s, v5.4h */ \
	WORD $0x4f10a4a7 /* sxtl2 v7.4s, v5.8h */ \
	VADD V16.S4, V1.S4, V1.S4 \
	VADD V16.S4, V2.S4, V2.S4 \
	VADD V17.S4, V6.S4, V6.S4 \
	VADD V17.S4, V7.S4, V7.S4

// LOAD_UINT8: eight uint8 values of a into V1/V2 and of b into V6/V7, widened
// to int32, plus off1 and off2.
#define LOAD_UINT8 \
	FMOVD.P 8(R1), F0 \
	FMOVD.P 8(R2), F5 \
	WORD $0x2f08a400 /* uxtl v0.8h, v0.8b */ \
	WORD $0x2f10a401 /* uxtl v1.4s, v0.4h */ \
	WORD $0x6f10a402 /* uxtl2 v2.4s, v0.8h */ \
	WORD $0x2f08a4a5 /* uxtl v5.8h, v5.8b */ \
	WORD $0x2f10a4a6 /* uxtl v6.4s, v5.4h */ \
	WORD $0x6f10a4a7 /* uxtl2 v7.4s, v5.8h */ \
	VADD V16.S4, V1.S4, V1.S4 \
	VADD V16.S4, V2.S4, V2.S4 \
	VADD V17.S4, V6.S4, V6.S4 \
	VADD V17.S4, V7.S4, V7.S4

// RESCALE_A: V1/V2 = MBQM(V1/V2·2^left1, mult1, right1).
#define RESCALE_A \
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
	WORD $0x4eb45442 /* srshl v2.4s, v2.4s, v20.4s */

// RESCALE_B: V6/V7 = MBQM(V6/V7·2^left2, mult2, right2).
#define RESCALE_B \
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
	WORD $0x4eb754e7 /* srshl v7.4s, v7.4s, v23.4s */

// RESCALE_OUT: V1/V2 = MBQM(V1/V2·2^lefto, multo, righto).
#define RESCALE_OUT \
	WORD $0x4eb84421 /* sshl v1.4s, v1.4s, v24.4s */ \
	WORD $0x4eb84442 /* sshl v2.4s, v2.4s, v24.4s */ \
	WORD $0x6eb9b421 /* sqrdmulh v1.4s, v1.4s, v25.4s */ \
	WORD $0x6eb9b442 /* sqrdmulh v2.4s, v2.4s, v25.4s */ \
	VAND V26.B16, V1.B16, V3.B16 \
	VAND V26.B16, V2.B16, V4.B16 \
	WORD $0x4f210463 /* sshr v3.4s, v3.4s, #31 */ \
	WORD $0x4f210484 /* sshr v4.4s, v4.4s, #31 */ \
	WORD $0x4ea30c21 /* sqadd v1.4s, v1.4s, v3.4s */ \
	WORD $0x4ea40c42 /* sqadd v2.4s, v2.4s, v4.4s */ \
	WORD $0x4eba5421 /* srshl v1.4s, v1.4s, v26.4s */ \
	WORD $0x4eba5442 /* srshl v2.4s, v2.4s, v26.4s */

// STORE8: V1/V2 plus the output zero point, clamped, narrowed to eight
// bytes at R0.
#define STORE8 \
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

// PRODUCT: V1/V2 = V1/V2 · V6/V7 (wrapping int32).
#define PRODUCT \
	WORD $0x4ea69c21 /* mul v1.4s, v1.4s, v6.4s */ \
	WORD $0x4ea79c42 /* mul v2.4s, v2.4s, v7.4s */

// func addQuantInt8NEONAsm(dst, a, b *int8, n int, v *quantNEONBlock)
TEXT ·addQuantInt8NEONAsm(SB), NOSPLIT, $0-40
	SETUP

addQuantInt8loop:
	LOAD_INT8
	RESCALE_A
	RESCALE_B
	VADD V6.S4, V1.S4, V1.S4
	VADD V7.S4, V2.S4, V2.S4
	RESCALE_OUT
	STORE8
	SUB  $1, R3
	CBNZ R3, addQuantInt8loop
	RET

// func addQuantUint8NEONAsm(dst, a, b *uint8, n int, v *quantNEONBlock)
TEXT ·addQuantUint8NEONAsm(SB), NOSPLIT, $0-40
	SETUP

addQuantUint8loop:
	LOAD_UINT8
	RESCALE_A
	RESCALE_B
	VADD V6.S4, V1.S4, V1.S4
	VADD V7.S4, V2.S4, V2.S4
	RESCALE_OUT
	STORE8
	SUB  $1, R3
	CBNZ R3, addQuantUint8loop
	RET

// func mulQuantInt8NEONAsm(dst, a, b *int8, n int, v *quantNEONBlock)
TEXT ·mulQuantInt8NEONAsm(SB), NOSPLIT, $0-40
	SETUP

mulQuantInt8loop:
	LOAD_INT8
	PRODUCT
	RESCALE_OUT
	STORE8
	SUB  $1, R3
	CBNZ R3, mulQuantInt8loop
	RET

// func mulQuantUint8NEONAsm(dst, a, b *uint8, n int, v *quantNEONBlock)
TEXT ·mulQuantUint8NEONAsm(SB), NOSPLIT, $0-40
	SETUP

mulQuantUint8loop:
	LOAD_UINT8
	PRODUCT
	RESCALE_OUT
	STORE8
	SUB  $1, R3
	CBNZ R3, mulQuantUint8loop
	RET

// func subQuantInt8NEONAsm(dst, a, b *int8, n int, v *quantNEONBlock)
//
// SUB: the second rescaled input is subtracted (VSUB wraps as int32,
// like the portable s1 + (−s2)).
TEXT ·subQuantInt8NEONAsm(SB), NOSPLIT, $0-40
	SETUP

subQuantInt8loop:
	LOAD_INT8
	RESCALE_A
	RESCALE_B
	VSUB V6.S4, V1.S4, V1.S4
	VSUB V7.S4, V2.S4, V2.S4
	RESCALE_OUT
	STORE8
	SUB  $1, R3
	CBNZ R3, subQuantInt8loop
	RET

// func subQuantUint8NEONAsm(dst, a, b *uint8, n int, v *quantNEONBlock)
//
// SUB: the second rescaled input is subtracted (VSUB wraps as int32,
// like the portable s1 + (−s2)).
TEXT ·subQuantUint8NEONAsm(SB), NOSPLIT, $0-40
	SETUP

subQuantUint8loop:
	LOAD_UINT8
	RESCALE_A
	RESCALE_B
	VSUB V6.S4, V1.S4, V1.S4
	VSUB V7.S4, V2.S4, V2.S4
	RESCALE_OUT
	STORE8
	SUB  $1, R3
	CBNZ R3, subQuantUint8loop
	RET
