//go:build !purego

// ASIMD (NEON) sigmoid and tanh: the formulas of activation_generic.go on
// four lanes, two vectors (eight floats) per step, with fused
// multiply-adds in the range reduction and the polynomials, like the
// amd64 kernels. The Go wrappers (activation_arm64.go) pass a multiple of
// eight elements and run the last len%8 through a padded copy. Vector
// FMUL/FADD/FSUB/FDIV/FMIN/FMAX/FNEG/FABS/FCMGT/FCVTNS/SCVTF and FMLA by
// element are WORDs (Go's assembler lacks them), checked by
// TestARM64Words.
//
// Unlike x86 MINPS/MAXPS, FMIN and FMAX return NaN when either operand is
// NaN, so the clamps keep NaN without care about operand order; FCVTNS
// rounds to nearest even like the portable code's 1.5·2^23 trick, and the
// scale 2^n is built by adding n<<23 to the bits of 1.0.
//
// Constants (·actConstsNEON, loaded once): V20 1, V21 expMaxArg,
// V22 expMinArg, V23 log2(e), V24 ln2 high part, V25 ln2 low part,
// V26 tanhSmall, V27 2, V28 the sign bit, V29 [P0 P1 P2 P3],
// V30 [P4 P5 T0 T1], V31 [T2 T3 T4 0] (Pi the exp polynomial, Ti tanh's),
// the polynomial coefficients taken by DUP or FMLA by element.

#include "textflag.h"

#define LOAD_CONSTS \
	MOVD   $·actConstsNEON(SB), R3                      \
	VLD1.P 64(R3), [V20.S4, V21.S4, V22.S4, V23.S4]      \
	VLD1.P 64(R3), [V24.S4, V25.S4, V26.S4, V27.S4]      \
	VLD1   (R3), [V28.S4, V29.S4, V30.S4, V31.S4]

// func sigmoidNEONAsm(dst, x []float32)
//
// len(x) is a multiple of 8. Per vector (first V0-V4, second V8-V12):
// X input and result, Z the clamped -x and then the reduced argument r,
// N n as float and scratch, I n as integer and then 2^n, P the
// polynomial and e^z.
TEXT ·sigmoidNEONAsm(SB), NOSPLIT, $0-48
	MOVD dst_base+0(FP), R0
	MOVD x_base+24(FP), R1
	MOVD x_len+32(FP), R2
	LSR  $3, R2, R2
	CBZ  R2, sigdone
	LOAD_CONSTS

sigloop:
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R1), [V8.S4]
	WORD $0x6ea0f801 // fneg v1.4s, v0.4s
	WORD $0x6ea0f909 // fneg v9.4s, v8.4s
	WORD $0x4eb5f421 // fmin v1.4s, v1.4s, v21.4s
	WORD $0x4eb5f529 // fmin v9.4s, v9.4s, v21.4s
	WORD $0x4e36f421 // fmax v1.4s, v1.4s, v22.4s
	WORD $0x4e36f529 // fmax v9.4s, v9.4s, v22.4s
	WORD $0x6e37dc22 // fmul v2.4s, v1.4s, v23.4s
	WORD $0x6e37dd2a // fmul v10.4s, v9.4s, v23.4s
	WORD $0x4e21a843 // fcvtns v3.4s, v2.4s
	WORD $0x4e21a94b // fcvtns v11.4s, v10.4s
	WORD $0x4e21d862 // scvtf v2.4s, v3.4s
	WORD $0x4e21d96a // scvtf v10.4s, v11.4s
	VFMLS V24.S4, V2.S4, V1.S4
	VFMLS V24.S4, V10.S4, V9.S4
	VFMLS V25.S4, V2.S4, V1.S4
	VFMLS V25.S4, V10.S4, V9.S4
	VDUP V29.S[1], V4.S4
	VDUP V29.S[1], V12.S4
	WORD $0x4f9d1024 // fmla v4.4s, v1.4s, v29.s[0]
	WORD $0x4f9d112c // fmla v12.4s, v9.4s, v29.s[0]
	VDUP V29.S[2], V2.S4
	VDUP V29.S[2], V10.S4
	VFMLA V1.S4, V4.S4, V2.S4
	VFMLA V9.S4, V12.S4, V10.S4
	VDUP V29.S[3], V4.S4
	VDUP V29.S[3], V12.S4
	VFMLA V1.S4, V2.S4, V4.S4
	VFMLA V9.S4, V10.S4, V12.S4
	VDUP V30.S[0], V2.S4
	VDUP V30.S[0], V10.S4
	VFMLA V1.S4, V4.S4, V2.S4
	VFMLA V9.S4, V12.S4, V10.S4
	VDUP V30.S[1], V4.S4
	VDUP V30.S[1], V12.S4
	VFMLA V1.S4, V2.S4, V4.S4
	VFMLA V9.S4, V10.S4, V12.S4
	WORD $0x6e21dc84 // fmul v4.4s, v4.4s, v1.4s
	WORD $0x6e29dd8c // fmul v12.4s, v12.4s, v9.4s
	VFMLA V1.S4, V4.S4, V1.S4
	VFMLA V9.S4, V12.S4, V9.S4
	WORD $0x4e34d421 // fadd v1.4s, v1.4s, v20.4s
	WORD $0x4e34d529 // fadd v9.4s, v9.4s, v20.4s
	VSHL $23, V3.S4, V3.S4
	VSHL $23, V11.S4, V11.S4
	VADD V20.S4, V3.S4, V3.S4
	VADD V20.S4, V11.S4, V11.S4
	WORD $0x6e23dc24 // fmul v4.4s, v1.4s, v3.4s
	WORD $0x6e2bdd2c // fmul v12.4s, v9.4s, v11.4s
	WORD $0x4e34d484 // fadd v4.4s, v4.4s, v20.4s
	WORD $0x4e34d58c // fadd v12.4s, v12.4s, v20.4s
	WORD $0x6e24fe80 // fdiv v0.4s, v20.4s, v4.4s
	WORD $0x6e2cfe88 // fdiv v8.4s, v20.4s, v12.4s
	VST1.P [V0.S4], 16(R0)
	VST1.P [V8.S4], 16(R0)
	SUB    $1, R2
	CBNZ   R2, sigloop

sigdone:
	RET

// func tanhNEONAsm(dst, x []float32)
//
// len(x) is a multiple of 8. Per vector (first V0-V7, second V8-V15):
// X input and result, A |x|, S the sign of x, Z x² and then the
// exponential's argument 2|x| and finally the mask |x| < tanhSmall,
// two polynomial/exponential scratch registers, R the small-|x| result
// |x| + |x|³·T(x²), E e^(2|x|) and then 1 - 2/(e^(2|x|)+1).
TEXT ·tanhNEONAsm(SB), NOSPLIT, $0-48
	MOVD dst_base+0(FP), R0
	MOVD x_base+24(FP), R1
	MOVD x_len+32(FP), R2
	LSR  $3, R2, R2
	CBZ  R2, tanhdone
	LOAD_CONSTS

tanhloop:
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R1), [V8.S4]
	WORD $0x4ea0f801 // fabs v1.4s, v0.4s
	WORD $0x4ea0f909 // fabs v9.4s, v8.4s
	VAND V28.B16, V0.B16, V2.B16
	VAND V28.B16, V8.B16, V10.B16
	WORD $0x6e21dc23 // fmul v3.4s, v1.4s, v1.4s
	WORD $0x6e29dd2b // fmul v11.4s, v9.4s, v9.4s
	VDUP V30.S[3], V4.S4
	VDUP V30.S[3], V12.S4
	WORD $0x4f9e1864 // fmla v4.4s, v3.4s, v30.s[2]
	WORD $0x4f9e196c // fmla v12.4s, v11.4s, v30.s[2]
	VDUP V31.S[0], V5.S4
	VDUP V31.S[0], V13.S4
	VFMLA V3.S4, V4.S4, V5.S4
	VFMLA V11.S4, V12.S4, V13.S4
	VDUP V31.S[1], V4.S4
	VDUP V31.S[1], V12.S4
	VFMLA V3.S4, V5.S4, V4.S4
	VFMLA V11.S4, V13.S4, V12.S4
	VDUP V31.S[2], V5.S4
	VDUP V31.S[2], V13.S4
	VFMLA V3.S4, V4.S4, V5.S4
	VFMLA V11.S4, V12.S4, V13.S4
	WORD $0x6e23dc24 // fmul v4.4s, v1.4s, v3.4s
	WORD $0x6e2bdd2c // fmul v12.4s, v9.4s, v11.4s
	VMOV V1.B16, V6.B16
	VMOV V9.B16, V14.B16
	VFMLA V5.S4, V4.S4, V6.S4
	VFMLA V13.S4, V12.S4, V14.S4
	WORD $0x4e21d423 // fadd v3.4s, v1.4s, v1.4s
	WORD $0x4e29d52b // fadd v11.4s, v9.4s, v9.4s
	WORD $0x4eb5f463 // fmin v3.4s, v3.4s, v21.4s
	WORD $0x4eb5f56b // fmin v11.4s, v11.4s, v21.4s
	WORD $0x6e37dc64 // fmul v4.4s, v3.4s, v23.4s
	WORD $0x6e37dd6c // fmul v12.4s, v11.4s, v23.4s
	WORD $0x4e21a885 // fcvtns v5.4s, v4.4s
	WORD $0x4e21a98d // fcvtns v13.4s, v12.4s
	WORD $0x4e21d8a4 // scvtf v4.4s, v5.4s
	WORD $0x4e21d9ac // scvtf v12.4s, v13.4s
	VFMLS V24.S4, V4.S4, V3.S4
	VFMLS V24.S4, V12.S4, V11.S4
	VFMLS V25.S4, V4.S4, V3.S4
	VFMLS V25.S4, V12.S4, V11.S4
	VDUP V29.S[1], V7.S4
	VDUP V29.S[1], V15.S4
	WORD $0x4f9d1067 // fmla v7.4s, v3.4s, v29.s[0]
	WORD $0x4f9d116f // fmla v15.4s, v11.4s, v29.s[0]
	VDUP V29.S[2], V4.S4
	VDUP V29.S[2], V12.S4
	VFMLA V3.S4, V7.S4, V4.S4
	VFMLA V11.S4, V15.S4, V12.S4
	VDUP V29.S[3], V7.S4
	VDUP V29.S[3], V15.S4
	VFMLA V3.S4, V4.S4, V7.S4
	VFMLA V11.S4, V12.S4, V15.S4
	VDUP V30.S[0], V4.S4
	VDUP V30.S[0], V12.S4
	VFMLA V3.S4, V7.S4, V4.S4
	VFMLA V11.S4, V15.S4, V12.S4
	VDUP V30.S[1], V7.S4
	VDUP V30.S[1], V15.S4
	VFMLA V3.S4, V4.S4, V7.S4
	VFMLA V11.S4, V12.S4, V15.S4
	WORD $0x6e23dce7 // fmul v7.4s, v7.4s, v3.4s
	WORD $0x6e2bddef // fmul v15.4s, v15.4s, v11.4s
	VFMLA V3.S4, V7.S4, V3.S4
	VFMLA V11.S4, V15.S4, V11.S4
	WORD $0x4e34d463 // fadd v3.4s, v3.4s, v20.4s
	WORD $0x4e34d56b // fadd v11.4s, v11.4s, v20.4s
	VSHL $23, V5.S4, V5.S4
	VSHL $23, V13.S4, V13.S4
	VADD V20.S4, V5.S4, V5.S4
	VADD V20.S4, V13.S4, V13.S4
	WORD $0x6e25dc67 // fmul v7.4s, v3.4s, v5.4s
	WORD $0x6e2ddd6f // fmul v15.4s, v11.4s, v13.4s
	WORD $0x4e34d4e7 // fadd v7.4s, v7.4s, v20.4s
	WORD $0x4e34d5ef // fadd v15.4s, v15.4s, v20.4s
	WORD $0x6e27ff67 // fdiv v7.4s, v27.4s, v7.4s
	WORD $0x6e2fff6f // fdiv v15.4s, v27.4s, v15.4s
	WORD $0x4ea7d687 // fsub v7.4s, v20.4s, v7.4s
	WORD $0x4eafd68f // fsub v15.4s, v20.4s, v15.4s
	WORD $0x6ea1e743 // fcmgt v3.4s, v26.4s, v1.4s
	WORD $0x6ea9e74b // fcmgt v11.4s, v26.4s, v9.4s
	VBIT V3.B16, V6.B16, V7.B16
	VBIT V11.B16, V14.B16, V15.B16
	VORR V2.B16, V7.B16, V0.B16
	VORR V10.B16, V15.B16, V8.B16
	VST1.P [V0.S4], 16(R0)
	VST1.P [V8.S4], 16(R0)
	SUB    $1, R2
	CBNZ   R2, tanhloop

tanhdone:
	RET
