//go:build !purego

// ASIMD (NEON) PReluF32 and LeakyReluF32 (see prelu.go): FMUL forms
// x·alpha, FCMGE (PReLU) or FCMGT (leaky ReLU) against #0.0 sets a lane
// mask where x >= 0 (or > 0), false for NaN, and BIT copies x's bits into
// the product under it: the portable code's choice lane by lane. FMUL
// (vector), FCMGE/FCMGT (zero) and BIT are WORDs checked by
// TestARM64Words.

#include "textflag.h"

// PRELU_0: V8 = the result for x in V0, alpha in V4; V16 is the mask.
#define PRELU_0 \
	WORD $0x6e24dc08 /* fmul v8.4s, v0.4s, v4.4s */ \
	WORD $0x6ea0c810 /* fcmge v16.4s, v0.4s, #0.0 */ \
	WORD $0x6eb01c08 /* bit v8.16b, v0.16b, v16.16b */

// PRELU_1: V9 = the result for x in V1, alpha in V5; V17 is the mask.
#define PRELU_1 \
	WORD $0x6e25dc29 /* fmul v9.4s, v1.4s, v5.4s */ \
	WORD $0x6ea0c831 /* fcmge v17.4s, v1.4s, #0.0 */ \
	WORD $0x6eb11c29 /* bit v9.16b, v1.16b, v17.16b */

// PRELU_2: V10 = the result for x in V2, alpha in V6; V18 is the mask.
#define PRELU_2 \
	WORD $0x6e26dc4a /* fmul v10.4s, v2.4s, v6.4s */ \
	WORD $0x6ea0c852 /* fcmge v18.4s, v2.4s, #0.0 */ \
	WORD $0x6eb21c4a /* bit v10.16b, v2.16b, v18.16b */

// PRELU_3: V11 = the result for x in V3, alpha in V7; V19 is the mask.
#define PRELU_3 \
	WORD $0x6e27dc6b /* fmul v11.4s, v3.4s, v7.4s */ \
	WORD $0x6ea0c873 /* fcmge v19.4s, v3.4s, #0.0 */ \
	WORD $0x6eb31c6b /* bit v11.16b, v3.16b, v19.16b */

// LEAKY_0: V8 = the result for x in V0, alpha in V31; V16 is the mask.
#define LEAKY_0 \
	WORD $0x6e3fdc08 /* fmul v8.4s, v0.4s, v31.4s */ \
	WORD $0x4ea0c810 /* fcmgt v16.4s, v0.4s, #0.0 */ \
	WORD $0x6eb01c08 /* bit v8.16b, v0.16b, v16.16b */

// LEAKY_1: V9 = the result for x in V1, alpha in V31; V17 is the mask.
#define LEAKY_1 \
	WORD $0x6e3fdc29 /* fmul v9.4s, v1.4s, v31.4s */ \
	WORD $0x4ea0c831 /* fcmgt v17.4s, v1.4s, #0.0 */ \
	WORD $0x6eb11c29 /* bit v9.16b, v1.16b, v17.16b */

// LEAKY_2: V10 = the result for x in V2, alpha in V31; V18 is the mask.
#define LEAKY_2 \
	WORD $0x6e3fdc4a /* fmul v10.4s, v2.4s, v31.4s */ \
	WORD $0x4ea0c852 /* fcmgt v18.4s, v2.4s, #0.0 */ \
	WORD $0x6eb21c4a /* bit v10.16b, v2.16b, v18.16b */

// LEAKY_3: V11 = the result for x in V3, alpha in V31; V19 is the mask.
#define LEAKY_3 \
	WORD $0x6e3fdc6b /* fmul v11.4s, v3.4s, v31.4s */ \
	WORD $0x4ea0c873 /* fcmgt v19.4s, v3.4s, #0.0 */ \
	WORD $0x6eb31c6b /* bit v11.16b, v3.16b, v19.16b */

// func preluF32NEON(dst, x, alpha []float32)
//
// Sixteen values per step, then four, then one at a time through S
// registers (a scalar load clears the other lanes, which the arithmetic
// then ignores), so no access goes beyond the slices. R0 dst, R1 x,
// R2 alpha, R3 values left, R4 step counter.
TEXT ·preluF32NEON(SB), NOSPLIT, $0-72
	MOVD dst_base+0(FP), R0
	MOVD x_base+24(FP), R1
	MOVD x_len+32(FP), R3
	MOVD alpha_base+48(FP), R2
	LSR  $4, R3, R4
	CBZ  R4, p4

ploop16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	PRELU_0
	PRELU_1
	PRELU_2
	PRELU_3
	VST1.P [V8.S4, V9.S4, V10.S4, V11.S4], 64(R0)
	SUB    $1, R4
	CBNZ   R4, ploop16

p4:
	UBFX $2, R3, $2, R4
	CBZ  R4, p1

ploop4:
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R2), [V4.S4]
	PRELU_0
	VST1.P [V8.S4], 16(R0)
	SUB    $1, R4
	CBNZ   R4, ploop4

p1:
	AND $3, R3, R4
	CBZ R4, pdone

ploop1:
	FMOVS.P 4(R1), F0
	FMOVS.P 4(R2), F4
	PRELU_0
	FMOVS.P F8, 4(R0)
	SUB     $1, R4
	CBNZ    R4, ploop1

pdone:
	RET

// func leakyReluF32NEON(dst, x []float32, alpha float32)
//
// The loop structure of preluF32NEON, with alpha in every lane of V31.
TEXT ·leakyReluF32NEON(SB), NOSPLIT, $0-52
	MOVD  dst_base+0(FP), R0
	MOVD  x_base+24(FP), R1
	MOVD  x_len+32(FP), R3
	MOVWU alpha+48(FP), R5
	VDUP  R5, V31.S4
	LSR   $4, R3, R4
	CBZ   R4, l4

lloop16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	LEAKY_0
	LEAKY_1
	LEAKY_2
	LEAKY_3
	VST1.P [V8.S4, V9.S4, V10.S4, V11.S4], 64(R0)
	SUB    $1, R4
	CBNZ   R4, lloop16

l4:
	UBFX $2, R3, $2, R4
	CBZ  R4, l1

lloop4:
	VLD1.P 16(R1), [V0.S4]
	LEAKY_0
	VST1.P [V8.S4], 16(R0)
	SUB    $1, R4
	CBNZ   R4, lloop4

l1:
	AND $3, R3, R4
	CBZ R4, ldone

lloop1:
	FMOVS.P 4(R1), F0
	LEAKY_0
	FMOVS.P F8, 4(R0)
	SUB     $1, R4
	CBNZ    R4, lloop1

ldone:
	RET
