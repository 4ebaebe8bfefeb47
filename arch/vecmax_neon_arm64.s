//go:build !purego

// ASIMD (NEON) MaxBlocksF32 (see vecmax.go). FMAX would not do: it
// returns NaN for a NaN operand and +0 for ±0 in either order. Instead
// FCMGT sets a lane mask where src > dst (false for NaN and for two
// zeros) and BIT copies the src bits into dst under it, which is
// `if dst < src { dst = src }` bit for bit. FCMGT (vector, register) has
// no Go mnemonic and is a WORD checked by TestARM64Words; so is BIT, to
// keep each pair in one form.

#include "textflag.h"

// MAX_s_d_m: Vd = Vs where Vs > Vd, four floats; Vm is scratch. One macro
// per register triple, so every WORD sits on its own line with its
// instruction (the form TestARM64Words reads).
#define MAX_0_4_16 \
	WORD $0x6ea4e410 /* fcmgt v16.4s, v0.4s, v4.4s */ \
	WORD $0x6eb01c04 /* bit v4.16b, v0.16b, v16.16b */
#define MAX_1_5_17 \
	WORD $0x6ea5e431 /* fcmgt v17.4s, v1.4s, v5.4s */ \
	WORD $0x6eb11c25 /* bit v5.16b, v1.16b, v17.16b */
#define MAX_2_6_18 \
	WORD $0x6ea6e452 /* fcmgt v18.4s, v2.4s, v6.4s */ \
	WORD $0x6eb21c46 /* bit v6.16b, v2.16b, v18.16b */
#define MAX_3_7_19 \
	WORD $0x6ea7e473 /* fcmgt v19.4s, v3.4s, v7.4s */ \
	WORD $0x6eb31c67 /* bit v7.16b, v3.16b, v19.16b */

// func maxBlocksF32NEON(dst, src []float32, n, width, dstStride, srcStride int)
//
// Per block: sixteen values per step, then four, then one at a time
// through S registers (a scalar load clears the other lanes, which the
// vector compare and select then ignore), so no access goes beyond the
// block. R0 dst block, R1 src block, R2 blocks left, R3 width, R4/R5
// strides in bytes, R6 dst cursor, R7 src cursor, R8 step counter.
TEXT ·maxBlocksF32NEON(SB), NOSPLIT, $0-80
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD n+48(FP), R2
	MOVD width+56(FP), R3
	MOVD dstStride+64(FP), R4
	MOVD srcStride+72(FP), R5
	CMP  $0, R2
	BLE  done
	CMP  $0, R3
	BLE  done
	LSL  $2, R4, R4
	LSL  $2, R5, R5

block:
	MOVD R0, R6
	MOVD R1, R7
	LSR  $4, R3, R8
	CBZ  R8, c4

loop16:
	VLD1.P 64(R7), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1   (R6), [V4.S4, V5.S4, V6.S4, V7.S4]
	MAX_0_4_16
	MAX_1_5_17
	MAX_2_6_18
	MAX_3_7_19
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R6)
	SUB    $1, R8
	CBNZ   R8, loop16

c4:
	// width%16 / 4 steps of four.
	UBFX $2, R3, $2, R8
	CBZ  R8, c1

loop4:
	VLD1.P 16(R7), [V0.S4]
	VLD1   (R6), [V4.S4]
	MAX_0_4_16
	VST1.P [V4.S4], 16(R6)
	SUB    $1, R8
	CBNZ   R8, loop4

c1:
	AND $3, R3, R8
	CBZ R8, next

loop1:
	FMOVS.P 4(R7), F0
	FMOVS   (R6), F4
	MAX_0_4_16
	FMOVS.P F4, 4(R6)
	SUB     $1, R8
	CBNZ    R8, loop1

next:
	ADD  R4, R0, R0
	ADD  R5, R1, R1
	SUB  $1, R2
	CBNZ R2, block

done:
	RET
