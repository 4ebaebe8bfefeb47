//go:build !purego

// ASIMD (NEON) packed matrix × vector kernel (see packed.go for the
// layout): column c of a 16-row block is four Q registers, so each x[c],
// loaded once into all four lanes (LD1R), feeds four FMLAs per block and
// no horizontal sums are needed. Only Go-assembler mnemonics are used
// (no WORD encodings). Registers R18 and R26-R30 are not touched.

#include "textflag.h"

// func matVecMulAccPackedNEONAsm(dst, p []float32, rows, cols int, x []float32)
//
// rows is a positive multiple of 16 (matVecMulAccPackedNEON sends a
// partial last block through a 16-row buffer), cols ≥ 1. The accumulators
// start from dst (the sum order differs from the portable code's, within
// MatVecMulAccPacked's stated accuracy). Blocks go two at a time (eight
// accumulators, enough independent FMLAs for two FMA pipes), then one.
//
// R0 dst, R1 block 0, R6 block 1, R2 rows left, R3 cols, R4 x, R5 block
// stride (bytes), R9 column counter, R10 x cursor. V16-V23 accumulators,
// V0-V7 weights, V8 broadcast x.
TEXT ·matVecMulAccPackedNEONAsm(SB), NOSPLIT, $0-88
	MOVD dst_base+0(FP), R0
	MOVD p_base+24(FP), R1
	MOVD rows+48(FP), R2
	MOVD cols+56(FP), R3
	MOVD x_base+64(FP), R4
	LSL  $6, R3, R5

group2:
	CMP  $32, R2
	BLT  group1
	ADD  R5, R1, R6
	ADD  $64, R0, R7
	VLD1 (R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1 (R7), [V20.S4, V21.S4, V22.S4, V23.S4]
	MOVD R4, R10
	MOVD R3, R9

loop2:
	VLD1R.P 4(R10), [V8.S4]
	VLD1.P  64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P  64(R6), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA   V8.S4, V0.S4, V16.S4
	VFMLA   V8.S4, V1.S4, V17.S4
	VFMLA   V8.S4, V2.S4, V18.S4
	VFMLA   V8.S4, V3.S4, V19.S4
	VFMLA   V8.S4, V4.S4, V20.S4
	VFMLA   V8.S4, V5.S4, V21.S4
	VFMLA   V8.S4, V6.S4, V22.S4
	VFMLA   V8.S4, V7.S4, V23.S4
	SUB     $1, R9
	CBNZ    R9, loop2

	VST1.P [V16.S4, V17.S4, V18.S4, V19.S4], 64(R0)
	VST1.P [V20.S4, V21.S4, V22.S4, V23.S4], 64(R0)
	// R1 ended at block 1, R6 at block 2.
	MOVD   R6, R1
	SUB    $32, R2
	B      group2

group1:
	CBZ  R2, done
	VLD1 (R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	MOVD R4, R10
	MOVD R3, R9

loop1:
	VLD1R.P 4(R10), [V8.S4]
	VLD1.P  64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VFMLA   V8.S4, V0.S4, V16.S4
	VFMLA   V8.S4, V1.S4, V17.S4
	VFMLA   V8.S4, V2.S4, V18.S4
	VFMLA   V8.S4, V3.S4, V19.S4
	SUB     $1, R9
	CBNZ    R9, loop1

	VST1.P [V16.S4, V17.S4, V18.S4, V19.S4], 64(R0)
	SUB    $16, R2
	B      group1

done:
	RET
