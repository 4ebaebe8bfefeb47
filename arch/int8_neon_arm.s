//go:build !purego && arm.7

// 32-bit ARM NEON int8 matrix × vector with exact int32 accumulation
// (GOARM=7 builds, chosen when HWCAP reports NEON): VMULL.S8 multiplies
// eight int8 pairs into int16 lanes (one product each, |p| ≤ 2^14) and
// VPADAL.S16 adds pairs of those into four int32 sums per row. Go's arm
// assembler has no NEON, so every NEON instruction is a WORD, checked by
// TestARMWords against an external assembler. Only R0-R9 and R12 are
// used (R10 is g, R11 the linker's temporary).

#include "textflag.h"

// func matVecMulAccInt8NEONAsm(dst []int32, m []int8, rows, cols, stride int, x []int8)
//
// dst[r] += Σ_{c<cols} m[r*stride+c]·x[c] for r < rows, cols a positive
// multiple of 8 ≤ stride (matVecMulAccInt8NEON adds the last stride%8
// columns). Sixteen columns per step (two VMULLs and VPADALs per row),
// then one step of eight; four rows at a time sharing each load of x,
// then one.
//
// R0 dst, R1 row 0, R5-R7 rows 1-3, R2 rows left, R3 columns done by the
// assembly, R12 the row stride, R4 x, R8 step counter, R9 x cursor;
// Q0 x, Q1-Q4 rows, Q5 products, Q8-Q11 sums.
TEXT ·matVecMulAccInt8NEONAsm(SB), NOSPLIT, $0-48
	MOVW dst_base+0(FP), R0
	MOVW m_base+12(FP), R1
	MOVW rows+24(FP), R2
	MOVW cols+28(FP), R3
	MOVW stride+32(FP), R12
	MOVW x_base+36(FP), R4

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
	MOVW R3>>4, R8
	CMP $0, R8
	BEQ tail8_4

loop16_4:
	WORD $0xf4290a0d // vld1.8 {d0, d1}, [r9]!
	WORD $0xf4212a0d // vld1.8 {d2, d3}, [r1]!
	WORD $0xf4254a0d // vld1.8 {d4, d5}, [r5]!
	WORD $0xf4266a0d // vld1.8 {d6, d7}, [r6]!
	WORD $0xf4278a0d // vld1.8 {d8, d9}, [r7]!
	WORD $0xf282ac00 // vmull.s8 q5, d2, d0
	WORD $0xf3f4064a // vpadal.s16 q8, q5
	WORD $0xf283ac01 // vmull.s8 q5, d3, d1
	WORD $0xf3f4064a // vpadal.s16 q8, q5
	WORD $0xf284ac00 // vmull.s8 q5, d4, d0
	WORD $0xf3f4264a // vpadal.s16 q9, q5
	WORD $0xf285ac01 // vmull.s8 q5, d5, d1
	WORD $0xf3f4264a // vpadal.s16 q9, q5
	WORD $0xf286ac00 // vmull.s8 q5, d6, d0
	WORD $0xf3f4464a // vpadal.s16 q10, q5
	WORD $0xf287ac01 // vmull.s8 q5, d7, d1
	WORD $0xf3f4464a // vpadal.s16 q10, q5
	WORD $0xf288ac00 // vmull.s8 q5, d8, d0
	WORD $0xf3f4664a // vpadal.s16 q11, q5
	WORD $0xf289ac01 // vmull.s8 q5, d9, d1
	WORD $0xf3f4664a // vpadal.s16 q11, q5
	SUB.S $1, R8
	BNE loop16_4

tail8_4:
	AND.S $8, R3, R8
	BEQ sum4
	WORD $0xf429070d // vld1.8 {d0}, [r9]!
	WORD $0xf421270d // vld1.8 {d2}, [r1]!
	WORD $0xf425470d // vld1.8 {d4}, [r5]!
	WORD $0xf426670d // vld1.8 {d6}, [r6]!
	WORD $0xf427870d // vld1.8 {d8}, [r7]!
	WORD $0xf282ac00 // vmull.s8 q5, d2, d0
	WORD $0xf3f4064a // vpadal.s16 q8, q5
	WORD $0xf284ac00 // vmull.s8 q5, d4, d0
	WORD $0xf3f4264a // vpadal.s16 q9, q5
	WORD $0xf286ac00 // vmull.s8 q5, d6, d0
	WORD $0xf3f4464a // vpadal.s16 q10, q5
	WORD $0xf288ac00 // vmull.s8 q5, d8, d0
	WORD $0xf3f4664a // vpadal.s16 q11, q5

sum4:
	WORD $0xf2600bb1 // vpadd.i32 d16, d16, d17
	WORD $0xf2622bb3 // vpadd.i32 d18, d18, d19
	WORD $0xf2644bb5 // vpadd.i32 d20, d20, d21
	WORD $0xf2666bb7 // vpadd.i32 d22, d22, d23
	WORD $0xf2600bb2 // vpadd.i32 d16, d16, d18
	WORD $0xf2641bb6 // vpadd.i32 d17, d20, d22
	WORD $0xf4200a8f // vld1.32 {d0, d1}, [r0]
	WORD $0xf2200860 // vadd.i32 q0, q0, q8
	WORD $0xf4000a8d // vst1.32 {d0, d1}, [r0]!
	// Rows 0-3 start R12 apart; row 4 starts where row 3 does plus R12.
	ADD R12, R7, R1
	SUB R3, R1
	SUB $4, R2
	B rows4

rows1:
	CMP $0, R2
	BEQ done

row1:
	WORD $0xf2c00050 // vmov.i32 q8, #0
	MOVW R4, R9
	MOVW R1, R5
	MOVW R3>>4, R8
	CMP $0, R8
	BEQ tail8_1

loop16_1:
	WORD $0xf4290a0d // vld1.8 {d0, d1}, [r9]!
	WORD $0xf4252a0d // vld1.8 {d2, d3}, [r5]!
	WORD $0xf282ac00 // vmull.s8 q5, d2, d0
	WORD $0xf3f4064a // vpadal.s16 q8, q5
	WORD $0xf283ac01 // vmull.s8 q5, d3, d1
	WORD $0xf3f4064a // vpadal.s16 q8, q5
	SUB.S $1, R8
	BNE loop16_1

tail8_1:
	AND.S $8, R3, R8
	BEQ sum1
	WORD $0xf429070d // vld1.8 {d0}, [r9]!
	WORD $0xf425270d // vld1.8 {d2}, [r5]!
	WORD $0xf282ac00 // vmull.s8 q5, d2, d0
	WORD $0xf3f4064a // vpadal.s16 q8, q5

sum1:
	WORD $0xf2600bb1 // vpadd.i32 d16, d16, d17
	WORD $0xf2600bb0 // vpadd.i32 d16, d16, d16
	MOVW (R0), R8
	WORD $0xee105b90 // vmov.32 r5, d16[0]
	ADD R5, R8
	MOVW.P R8, 4(R0)
	ADD R12, R1
	SUB.S $1, R2
	BNE row1

done:
	RET
