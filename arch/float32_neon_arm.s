//go:build !purego && arm.7

// 32-bit ARM NEON float32 matrix × vector (GOARM=7 builds, chosen when
// HWCAP reports NEON), the product of FULLY_CONNECTED and of the
// recurrent gates whose weights are not packed. ARMv7 NEON has no fused
// multiply-add (VMLA.F32 rounds the product, then the sum) and flushes
// subnormal inputs and results to zero (its arithmetic always runs in
// the Standard FPSCR mode): both within MatVecMulAcc's accuracy, which
// already lets the summation order vary. Every NEON instruction is a
// WORD, checked by TestARMWords against an external assembler. Only
// R0-R9 and R12 are used (R10 is g, R11 the linker's temporary).

#include "textflag.h"

// func matVecMulAccNEONAsm(dst, m []float32, rows, cols, stride int, x []float32)
//
// dst[r] += Σ_{c<cols} m[r*stride+c]·x[c] for r < rows, cols a positive
// multiple of 4 ≤ stride (matVecMulAccNEON adds the last stride%4
// columns). Eight columns per step (two VMLAs per row), then one step of
// four; four rows at a time sharing each load of x, then one. Each row's
// four lanes are summed pairwise (VPADD) at the end and added to dst.
//
// R0 dst, R1 row 0, R5-R7 rows 1-3, R2 rows left, R3 columns done by the
// assembly, R12 the row stride in bytes, R4 x, R8 step counter, R9 x
// cursor; Q0-Q1 x, Q2-Q3 and Q12-Q13 rows, Q8-Q11 sums.
TEXT ·matVecMulAccNEONAsm(SB), NOSPLIT, $0-48
	MOVW dst_base+0(FP), R0
	MOVW m_base+12(FP), R1
	MOVW rows+24(FP), R2
	MOVW cols+28(FP), R3
	MOVW stride+32(FP), R12
	MOVW x_base+36(FP), R4
	MOVW R12<<2, R12

rows4:
	CMP $4, R2
	BLT rows1
	ADD R12, R1, R5
	ADD R12, R5, R6
	ADD R12, R6, R7
	WORD $0xf2c00050 // vmov.i32 q8, #0
	WORD $0xf2c02050 // vmov.i32 q9, #0
	WORD $0xf2c04050 // vmov.i32 q10, #0
	WORD $0xf2c06050 // vmov.i32 q11, #0
	MOVW R4, R9
	MOVW R3>>3, R8
	CMP $0, R8
	BEQ tail4_4

loop8_4:
	WORD $0xf429028d // vld1.32 {d0, d1, d2, d3}, [r9]!
	WORD $0xf421428d // vld1.32 {d4, d5, d6, d7}, [r1]!
	WORD $0xf465828d // vld1.32 {d24, d25, d26, d27}, [r5]!
	WORD $0xf2440d50 // vmla.f32 q8, q2, q0
	WORD $0xf2460d52 // vmla.f32 q8, q3, q1
	WORD $0xf2482dd0 // vmla.f32 q9, q12, q0
	WORD $0xf24a2dd2 // vmla.f32 q9, q13, q1
	WORD $0xf426428d // vld1.32 {d4, d5, d6, d7}, [r6]!
	WORD $0xf467828d // vld1.32 {d24, d25, d26, d27}, [r7]!
	WORD $0xf2444d50 // vmla.f32 q10, q2, q0
	WORD $0xf2464d52 // vmla.f32 q10, q3, q1
	WORD $0xf2486dd0 // vmla.f32 q11, q12, q0
	WORD $0xf24a6dd2 // vmla.f32 q11, q13, q1
	SUB.S $1, R8
	BNE loop8_4

tail4_4:
	AND.S $4, R3, R8
	BEQ sum4
	WORD $0xf4290a8d // vld1.32 {d0, d1}, [r9]!
	WORD $0xf4214a8d // vld1.32 {d4, d5}, [r1]!
	WORD $0xf4256a8d // vld1.32 {d6, d7}, [r5]!
	WORD $0xf4668a8d // vld1.32 {d24, d25}, [r6]!
	WORD $0xf467aa8d // vld1.32 {d26, d27}, [r7]!
	WORD $0xf2440d50 // vmla.f32 q8, q2, q0
	WORD $0xf2462d50 // vmla.f32 q9, q3, q0
	WORD $0xf2484dd0 // vmla.f32 q10, q12, q0
	WORD $0xf24a6dd0 // vmla.f32 q11, q13, q0

sum4:
	WORD $0xf3400da1 // vpadd.f32 d16, d16, d17
	WORD $0xf3422da3 // vpadd.f32 d18, d18, d19
	WORD $0xf3444da5 // vpadd.f32 d20, d20, d21
	WORD $0xf3466da7 // vpadd.f32 d22, d22, d23
	WORD $0xf3400da2 // vpadd.f32 d16, d16, d18
	WORD $0xf3441da6 // vpadd.f32 d17, d20, d22
	WORD $0xf4200a8f // vld1.32 {d0, d1}, [r0]
	WORD $0xf2000d60 // vadd.f32 q0, q0, q8
	WORD $0xf4000a8d // vst1.32 {d0, d1}, [r0]!
	// Rows 0-3 start R12 apart; row 4 starts where row 3 does plus R12
	// (R7 has moved past row 3's R3 columns).
	ADD R12, R7, R1
	SUB R3<<2, R1
	SUB $4, R2
	B rows4

rows1:
	CMP $0, R2
	BEQ done

row1:
	WORD $0xf2c00050 // vmov.i32 q8, #0
	MOVW R4, R9
	MOVW R1, R5
	MOVW R3>>3, R8
	CMP $0, R8
	BEQ tail4_1

loop8_1:
	WORD $0xf429028d // vld1.32 {d0, d1, d2, d3}, [r9]!
	WORD $0xf425428d // vld1.32 {d4, d5, d6, d7}, [r5]!
	WORD $0xf2440d50 // vmla.f32 q8, q2, q0
	WORD $0xf2460d52 // vmla.f32 q8, q3, q1
	SUB.S $1, R8
	BNE loop8_1

tail4_1:
	AND.S $4, R3, R8
	BEQ sum1
	WORD $0xf4290a8d // vld1.32 {d0, d1}, [r9]!
	WORD $0xf4254a8d // vld1.32 {d4, d5}, [r5]!
	WORD $0xf2440d50 // vmla.f32 q8, q2, q0

sum1:
	WORD $0xf3400da1 // vpadd.f32 d16, d16, d17
	WORD $0xf3400da0 // vpadd.f32 d16, d16, d16
	WORD $0xf4a0080f // vld1.32 {d0[0]}, [r0]
	WORD $0xf2000d20 // vadd.f32 d0, d0, d16
	WORD $0xf480080d // vst1.32 {d0[0]}, [r0]!
	ADD R12, R1
	SUB.S $1, R2
	BNE row1

done:
	RET
