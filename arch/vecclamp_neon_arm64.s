//go:build !purego

// ASIMD (NEON) VecClamp (see vecclamp.go). FMAX/FMIN would not do: they
// return NaN for a NaN bound or operand and order ±0. Instead each step is
// the portable code's comparison: FCMGT sets a lane mask where lo > v
// (false for NaN and for two zeros) and BIT copies lo's bits into v under
// it, then the same with v > hi and hi. FCMGT (vector) and BIT are WORDs
// checked by TestARM64Words.

#include "textflag.h"

// CLAMP_v_m: Vv = lo where lo > Vv, then hi where Vv > hi, with lo in V30,
// hi in V31 and Vm as the mask.
#define CLAMP_0_16 \
	WORD $0x6ea0e7d0 /* fcmgt v16.4s, v30.4s, v0.4s */ \
	WORD $0x6eb01fc0 /* bit v0.16b, v30.16b, v16.16b */ \
	WORD $0x6ebfe410 /* fcmgt v16.4s, v0.4s, v31.4s */ \
	WORD $0x6eb01fe0 /* bit v0.16b, v31.16b, v16.16b */
#define CLAMP_1_17 \
	WORD $0x6ea1e7d1 /* fcmgt v17.4s, v30.4s, v1.4s */ \
	WORD $0x6eb11fc1 /* bit v1.16b, v30.16b, v17.16b */ \
	WORD $0x6ebfe431 /* fcmgt v17.4s, v1.4s, v31.4s */ \
	WORD $0x6eb11fe1 /* bit v1.16b, v31.16b, v17.16b */
#define CLAMP_2_18 \
	WORD $0x6ea2e7d2 /* fcmgt v18.4s, v30.4s, v2.4s */ \
	WORD $0x6eb21fc2 /* bit v2.16b, v30.16b, v18.16b */ \
	WORD $0x6ebfe452 /* fcmgt v18.4s, v2.4s, v31.4s */ \
	WORD $0x6eb21fe2 /* bit v2.16b, v31.16b, v18.16b */
#define CLAMP_3_19 \
	WORD $0x6ea3e7d3 /* fcmgt v19.4s, v30.4s, v3.4s */ \
	WORD $0x6eb31fc3 /* bit v3.16b, v30.16b, v19.16b */ \
	WORD $0x6ebfe473 /* fcmgt v19.4s, v3.4s, v31.4s */ \
	WORD $0x6eb31fe3 /* bit v3.16b, v31.16b, v19.16b */

// func vecClampNEON(v []float32, lo, hi float32)
//
// Sixteen values per step, then four, then one at a time through S
// registers (a scalar load clears the other lanes, which the compares
// and selects then ignore), so no access goes beyond v. R0 cursor, R1
// values left, R2 step counter.
TEXT ·vecClampNEON(SB), NOSPLIT, $0-32
	MOVD  v_base+0(FP), R0
	MOVD  v_len+8(FP), R1
	MOVWU lo+24(FP), R3
	MOVWU hi+28(FP), R4
	VDUP  R3, V30.S4
	VDUP  R4, V31.S4
	LSR   $4, R1, R2
	CBZ   R2, c4

loop16:
	VLD1   (R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	CLAMP_0_16
	CLAMP_1_17
	CLAMP_2_18
	CLAMP_3_19
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB    $1, R2
	CBNZ   R2, loop16

c4:
	UBFX $2, R1, $2, R2
	CBZ  R2, c1

loop4:
	VLD1   (R0), [V0.S4]
	CLAMP_0_16
	VST1.P [V0.S4], 16(R0)
	SUB    $1, R2
	CBNZ   R2, loop4

c1:
	AND $3, R1, R2
	CBZ R2, done

loop1:
	FMOVS   (R0), F0
	CLAMP_0_16
	FMOVS.P F0, 4(R0)
	SUB     $1, R2
	CBNZ    R2, loop1

done:
	RET
