//go:build !purego

// ASIMD (NEON) BilinearF32 (see bilinear.go): FMUL by element and FADD in
// the portable code's order, four channels per vector, no FMLA (which
// would fuse). The sums add the running value first (FADD's first
// operand), as the portable v + p·w does. FMUL (by element) and FADD
// (vector) are WORDs checked by TestARM64Words.

#include "textflag.h"

// BLEND_A: V16 = the result for p00..p11 in V0, V2, V4, V6; BLEND_B:
// V17 from V1, V3, V5, V7. V30 holds the four weights, V31 zeros, V20/V21 scratch.
#define BLEND_A \
	WORD $0x4f9e9014 /* fmul v20.4s, v0.4s, v30.s[0] */ \
	WORD $0x4e34d7f0 /* fadd v16.4s, v31.4s, v20.4s */ \
	WORD $0x4fbe9054 /* fmul v20.4s, v2.4s, v30.s[1] */ \
	WORD $0x4e34d610 /* fadd v16.4s, v16.4s, v20.4s */ \
	WORD $0x4f9e9894 /* fmul v20.4s, v4.4s, v30.s[2] */ \
	WORD $0x4e34d610 /* fadd v16.4s, v16.4s, v20.4s */ \
	WORD $0x4fbe98d4 /* fmul v20.4s, v6.4s, v30.s[3] */ \
	WORD $0x4e34d610 /* fadd v16.4s, v16.4s, v20.4s */

#define BLEND_B \
	WORD $0x4f9e9035 /* fmul v21.4s, v1.4s, v30.s[0] */ \
	WORD $0x4e35d7f1 /* fadd v17.4s, v31.4s, v21.4s */ \
	WORD $0x4fbe9075 /* fmul v21.4s, v3.4s, v30.s[1] */ \
	WORD $0x4e35d631 /* fadd v17.4s, v17.4s, v21.4s */ \
	WORD $0x4f9e98b5 /* fmul v21.4s, v5.4s, v30.s[2] */ \
	WORD $0x4e35d631 /* fadd v17.4s, v17.4s, v21.4s */ \
	WORD $0x4fbe98f5 /* fmul v21.4s, v7.4s, v30.s[3] */ \
	WORD $0x4e35d631 /* fadd v17.4s, v17.4s, v21.4s */

// func bilinearF32NEON(dst, p00, p01, p10, p11 []float32, w *[4]float32)
//
// Eight channels per step, then four, then the last len%4: as the four
// channels ending at len when len >= 4, else one at a time through S
// registers (a scalar load clears the other lanes), so no access goes
// beyond the slices. R0 dst, R1-R4 p00, p01, p10, p11, R5 len, R6 step
// counter.
TEXT ·bilinearF32NEON(SB), NOSPLIT, $0-128
	MOVD  dst_base+0(FP), R0
	MOVD  dst_len+8(FP), R5
	MOVD  p00_base+24(FP), R1
	MOVD  p01_base+48(FP), R2
	MOVD  p10_base+72(FP), R3
	MOVD  p11_base+96(FP), R4
	MOVD  w+120(FP), R7
	VLD1  (R7), [V30.S4]
	VEOR  V31.B16, V31.B16, V31.B16
	LSR   $3, R5, R6
	CBZ   R6, b4

loop8:
	VLD1.P 32(R1), [V0.S4, V1.S4]
	VLD1.P 32(R2), [V2.S4, V3.S4]
	VLD1.P 32(R3), [V4.S4, V5.S4]
	VLD1.P 32(R4), [V6.S4, V7.S4]
	BLEND_A
	BLEND_B
	VST1.P [V16.S4, V17.S4], 32(R0)
	SUB    $1, R6
	CBNZ   R6, loop8

b4:
	TBZ $2, R5, b1
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R2), [V2.S4]
	VLD1.P 16(R3), [V4.S4]
	VLD1.P 16(R4), [V6.S4]
	BLEND_A
	VST1.P [V16.S4], 16(R0)

b1:
	AND $3, R5, R6
	CBZ R6, done
	CMP $4, R5
	BLT loop1
	// At least four channels: redo the last four as one vector ending at
	// len (dst does not overlap the sources, so the channels done again
	// get the same bits).
	SUB    $4, R6, R6
	LSL    $2, R6, R6
	ADD    R6, R0, R0
	ADD    R6, R1, R1
	ADD    R6, R2, R2
	ADD    R6, R3, R3
	ADD    R6, R4, R4
	VLD1   (R1), [V0.S4]
	VLD1   (R2), [V2.S4]
	VLD1   (R3), [V4.S4]
	VLD1   (R4), [V6.S4]
	BLEND_A
	VST1   [V16.S4], (R0)
	RET

loop1:
	FMOVS.P 4(R1), F0
	FMOVS.P 4(R2), F2
	FMOVS.P 4(R3), F4
	FMOVS.P 4(R4), F6
	BLEND_A
	FMOVS.P F16, 4(R0)
	SUB     $1, R6
	CBNZ    R6, loop1

done:
	RET
