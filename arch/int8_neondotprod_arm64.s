//go:build !purego

// ARMv8.2 dot-product (FEAT_DotProd) int8 matrix × vector: SDOT adds four
// int8 products into each int32 lane, exactly (4·(-128)² = 65536 fits).
// SDOT has no Go mnemonic and is a WORD, checked by TestARM64Words. The
// layout is that of matVecMulAccInt8NEON (int8_neon_arm64.s) without the
// int16 stage: sixteen columns per step, then eight and four (the
// FMOVD/FMOVS loads zero the rest of the register, adding zero products),
// then single columns in general registers; four rows at a time, then one.
// Registers R18 and R26-R30 are not touched.

#include "textflag.h"

// func matVecMulAccInt8SDOT(dst []int32, m []int8, rows, cols int, x []int8)
//
// R0 dst, R1 row 0, R6-R8 rows 1-3, R2 rows left, R3 cols, R4 x,
// R9 step counter, R10 x cursor, R12-R16 scalar bytes, R19-R22 scalar
// sums, V16-V19 accumulators.
TEXT ·matVecMulAccInt8SDOT(SB), NOSPLIT, $0-88
	MOVD dst_base+0(FP), R0
	MOVD m_base+24(FP), R1
	MOVD rows+48(FP), R2
	MOVD cols+56(FP), R3
	MOVD x_base+64(FP), R4

drows4:
	CMP $4, R2
	BLT drows1
	ADD R3, R1, R6
	ADD R3, R6, R7
	ADD R3, R7, R8
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	MOVD $0, R19
	MOVD $0, R20
	MOVD $0, R21
	MOVD $0, R22
	MOVD R4, R10
	LSR $4, R3, R9
	CBZ R9, dt8_4

dloop16_4:
	VLD1.P 16(R10), [V0.B16]
	VLD1.P 16(R1), [V1.B16]
	VLD1.P 16(R6), [V2.B16]
	VLD1.P 16(R7), [V3.B16]
	VLD1.P 16(R8), [V4.B16]
	WORD $0x4e809430 // sdot v16.4s, v1.16b, v0.16b
	WORD $0x4e809451 // sdot v17.4s, v2.16b, v0.16b
	WORD $0x4e809472 // sdot v18.4s, v3.16b, v0.16b
	WORD $0x4e809493 // sdot v19.4s, v4.16b, v0.16b
	SUB $1, R9
	CBNZ R9, dloop16_4

dt8_4:
	TBZ $3, R3, dt4_4
	FMOVD.P 8(R10), F0
	FMOVD.P 8(R1), F1
	FMOVD.P 8(R6), F2
	FMOVD.P 8(R7), F3
	FMOVD.P 8(R8), F4
	WORD $0x4e809430 // sdot v16.4s, v1.16b, v0.16b
	WORD $0x4e809451 // sdot v17.4s, v2.16b, v0.16b
	WORD $0x4e809472 // sdot v18.4s, v3.16b, v0.16b
	WORD $0x4e809493 // sdot v19.4s, v4.16b, v0.16b

dt4_4:
	TBZ $2, R3, dt1_4
	FMOVS.P 4(R10), F0
	FMOVS.P 4(R1), F1
	FMOVS.P 4(R6), F2
	FMOVS.P 4(R7), F3
	FMOVS.P 4(R8), F4
	WORD $0x4e809430 // sdot v16.4s, v1.16b, v0.16b
	WORD $0x4e809451 // sdot v17.4s, v2.16b, v0.16b
	WORD $0x4e809472 // sdot v18.4s, v3.16b, v0.16b
	WORD $0x4e809493 // sdot v19.4s, v4.16b, v0.16b

dt1_4:
	AND $3, R3, R9
	CBZ R9, dreduce_4

dloop1_4:
	MOVB.P 1(R10), R12
	MOVB.P 1(R1), R13
	MOVB.P 1(R6), R14
	MOVB.P 1(R7), R15
	MOVB.P 1(R8), R16
	MADDW R12, R19, R13, R19
	MADDW R12, R20, R14, R20
	MADDW R12, R21, R15, R21
	MADDW R12, R22, R16, R22
	SUB $1, R9
	CBNZ R9, dloop1_4

dreduce_4:
	VADDP V17.S4, V16.S4, V16.S4
	VADDP V19.S4, V18.S4, V18.S4
	VADDP V18.S4, V16.S4, V16.S4
	VMOV R19, V1.S[0]
	VMOV R20, V1.S[1]
	VMOV R21, V1.S[2]
	VMOV R22, V1.S[3]
	VLD1 (R0), [V0.S4]
	VADD V1.S4, V16.S4, V16.S4
	VADD V16.S4, V0.S4, V0.S4
	VST1.P [V0.S4], 16(R0)
	// R8 has walked over row 3 and points at row 4.
	MOVD R8, R1
	SUB $4, R2
	B drows4

drows1:
	CBZ R2, ddone

drow1:
	VEOR V16.B16, V16.B16, V16.B16
	MOVD $0, R19
	MOVD R4, R10
	LSR $4, R3, R9
	CBZ R9, dt8_1

dloop16_1:
	VLD1.P 16(R10), [V0.B16]
	VLD1.P 16(R1), [V1.B16]
	WORD $0x4e809430 // sdot v16.4s, v1.16b, v0.16b
	SUB $1, R9
	CBNZ R9, dloop16_1

dt8_1:
	TBZ $3, R3, dt4_1
	FMOVD.P 8(R10), F0
	FMOVD.P 8(R1), F1
	WORD $0x4e809430 // sdot v16.4s, v1.16b, v0.16b

dt4_1:
	TBZ $2, R3, dt1_1
	FMOVS.P 4(R10), F0
	FMOVS.P 4(R1), F1
	WORD $0x4e809430 // sdot v16.4s, v1.16b, v0.16b

dt1_1:
	AND $3, R3, R9
	CBZ R9, dreduce_1

dloop1_1:
	MOVB.P 1(R10), R12
	MOVB.P 1(R1), R13
	MADDW R12, R19, R13, R19
	SUB $1, R9
	CBNZ R9, dloop1_1

dreduce_1:
	VADDV V16.S4, V16
	VMOV V16.S[0], R12
	ADDW R19, R12
	MOVW (R0), R13
	ADDW R13, R12
	MOVW.P R12, 4(R0)
	SUB $1, R2
	CBNZ R2, drow1

ddone:
	RET
