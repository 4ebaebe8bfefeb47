//go:build !purego

// ASIMD (NEON) int8 kernels with exact int32 accumulation: matrix ×
// vector through SMLAL/SMLAL2 into int16 and SADALP into int32, and row
// sums through SADDLP/SADALP. The multiply and pairwise-add instructions
// have no Go mnemonics and are WORDs, checked by TestARM64Words.
// Registers R18 and R26-R30 are not touched.

#include "textflag.h"

// func matVecMulAccInt8NEON(dst []int32, m []int8, rows, cols int, x []int8)
//
// dst[r] += Σ_c m[r*cols+c]·x[c] (int32, wrapping), rows ≥ 1, cols ≥ 1.
//
// Sixteen columns per step: SMLAL and SMLAL2 add two int8 products into
// each int16 lane, SADALP adds pairs of those lanes into the int32
// accumulator. Two products can reach 2·(-128)² = 32768, one more than
// int16 holds, so each int16 lane starts at -256 (V31): the lane then
// holds p1 + p2 - 256 in [-32768, 32512], exactly. Every sixteen-column
// step thus adds -2048 to a row's sum, which V30/R11 (2048·(cols/16)) put
// back at the end; the int32 arithmetic wraps modulo 2^32 throughout,
// like the portable code's, so the correction is exact for any input.
// The last cols%16 columns: a step of eight and one of four, loaded with
// FMOVD/FMOVS (which zero the rest of the register) and multiplied with
// SMULL (one product per int16 lane, no bias), then one column at a time
// in general registers. Four rows at a time share each load of x
// (accumulators V16-V19, scalar sums R19-R22); leftover rows go one at a
// time.
//
// R0 dst, R1 row 0, R6-R8 rows 1-3, R2 rows left, R3 cols, R4 x,
// R9 step counter, R10 x cursor, R11 the bias correction, R12-R16 scalar
// bytes, R19-R22 scalar sums; V0 x, V1-V4 rows, V5-V8 int16 sums,
// V16-V19 int32 accumulators, V30 the bias correction, V31 the bias.
TEXT ·matVecMulAccInt8NEON(SB), NOSPLIT, $0-88
	MOVD dst_base+0(FP), R0
	MOVD m_base+24(FP), R1
	MOVD rows+48(FP), R2
	MOVD cols+56(FP), R3
	MOVD x_base+64(FP), R4
	WORD $0x4f07a7ff // movi v31.8h, #0xff, lsl #8
	// R11 = 2048·(cols/16): the bias the sixteen-column steps add to a row.
	LSR $4, R3, R11
	LSL $11, R11, R11
	VDUP R11, V30.S4

nrows4:
	CMP $4, R2
	BLT nrows1
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
	CBZ R9, nt8_4

nloop16_4:
	VLD1.P 16(R10), [V0.B16]
	VLD1.P 16(R1), [V1.B16]
	VLD1.P 16(R6), [V2.B16]
	VLD1.P 16(R7), [V3.B16]
	VLD1.P 16(R8), [V4.B16]
	VMOV V31.B16, V5.B16
	VMOV V31.B16, V6.B16
	VMOV V31.B16, V7.B16
	VMOV V31.B16, V8.B16
	WORD $0x0e208025 // smlal v5.8h, v1.8b, v0.8b
	WORD $0x0e208046 // smlal v6.8h, v2.8b, v0.8b
	WORD $0x0e208067 // smlal v7.8h, v3.8b, v0.8b
	WORD $0x0e208088 // smlal v8.8h, v4.8b, v0.8b
	WORD $0x4e208025 // smlal2 v5.8h, v1.16b, v0.16b
	WORD $0x4e208046 // smlal2 v6.8h, v2.16b, v0.16b
	WORD $0x4e208067 // smlal2 v7.8h, v3.16b, v0.16b
	WORD $0x4e208088 // smlal2 v8.8h, v4.16b, v0.16b
	WORD $0x4e6068b0 // sadalp v16.4s, v5.8h
	WORD $0x4e6068d1 // sadalp v17.4s, v6.8h
	WORD $0x4e6068f2 // sadalp v18.4s, v7.8h
	WORD $0x4e606913 // sadalp v19.4s, v8.8h
	SUB $1, R9
	CBNZ R9, nloop16_4

nt8_4:
	TBZ $3, R3, nt4_4
	FMOVD.P 8(R10), F0
	FMOVD.P 8(R1), F1
	FMOVD.P 8(R6), F2
	FMOVD.P 8(R7), F3
	FMOVD.P 8(R8), F4
	WORD $0x0e20c025 // smull v5.8h, v1.8b, v0.8b
	WORD $0x0e20c046 // smull v6.8h, v2.8b, v0.8b
	WORD $0x0e20c067 // smull v7.8h, v3.8b, v0.8b
	WORD $0x0e20c088 // smull v8.8h, v4.8b, v0.8b
	WORD $0x4e6068b0 // sadalp v16.4s, v5.8h
	WORD $0x4e6068d1 // sadalp v17.4s, v6.8h
	WORD $0x4e6068f2 // sadalp v18.4s, v7.8h
	WORD $0x4e606913 // sadalp v19.4s, v8.8h

nt4_4:
	TBZ $2, R3, nt1_4
	FMOVS.P 4(R10), F0
	FMOVS.P 4(R1), F1
	FMOVS.P 4(R6), F2
	FMOVS.P 4(R7), F3
	FMOVS.P 4(R8), F4
	WORD $0x0e20c025 // smull v5.8h, v1.8b, v0.8b
	WORD $0x0e20c046 // smull v6.8h, v2.8b, v0.8b
	WORD $0x0e20c067 // smull v7.8h, v3.8b, v0.8b
	WORD $0x0e20c088 // smull v8.8h, v4.8b, v0.8b
	WORD $0x4e6068b0 // sadalp v16.4s, v5.8h
	WORD $0x4e6068d1 // sadalp v17.4s, v6.8h
	WORD $0x4e6068f2 // sadalp v18.4s, v7.8h
	WORD $0x4e606913 // sadalp v19.4s, v8.8h

nt1_4:
	AND $3, R3, R9
	CBZ R9, nreduce_4

nloop1_4:
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
	CBNZ R9, nloop1_4

nreduce_4:
	VADDP V17.S4, V16.S4, V16.S4
	VADDP V19.S4, V18.S4, V18.S4
	VADDP V18.S4, V16.S4, V16.S4
	VMOV R19, V1.S[0]
	VMOV R20, V1.S[1]
	VMOV R21, V1.S[2]
	VMOV R22, V1.S[3]
	VLD1 (R0), [V0.S4]
	VADD V1.S4, V16.S4, V16.S4
	VADD V30.S4, V16.S4, V16.S4
	VADD V16.S4, V0.S4, V0.S4
	VST1.P [V0.S4], 16(R0)
	// R8 has walked over row 3 and points at row 4.
	MOVD R8, R1
	SUB $4, R2
	B nrows4

nrows1:
	CBZ R2, ndone

nrow1:
	VEOR V16.B16, V16.B16, V16.B16
	MOVD $0, R19
	MOVD R4, R10
	LSR $4, R3, R9
	CBZ R9, nt8_1

nloop16_1:
	VLD1.P 16(R10), [V0.B16]
	VLD1.P 16(R1), [V1.B16]
	VMOV V31.B16, V5.B16
	WORD $0x0e208025 // smlal v5.8h, v1.8b, v0.8b
	WORD $0x4e208025 // smlal2 v5.8h, v1.16b, v0.16b
	WORD $0x4e6068b0 // sadalp v16.4s, v5.8h
	SUB $1, R9
	CBNZ R9, nloop16_1

nt8_1:
	TBZ $3, R3, nt4_1
	FMOVD.P 8(R10), F0
	FMOVD.P 8(R1), F1
	WORD $0x0e20c025 // smull v5.8h, v1.8b, v0.8b
	WORD $0x4e6068b0 // sadalp v16.4s, v5.8h

nt4_1:
	TBZ $2, R3, nt1_1
	FMOVS.P 4(R10), F0
	FMOVS.P 4(R1), F1
	WORD $0x0e20c025 // smull v5.8h, v1.8b, v0.8b
	WORD $0x4e6068b0 // sadalp v16.4s, v5.8h

nt1_1:
	AND $3, R3, R9
	CBZ R9, nreduce_1

nloop1_1:
	MOVB.P 1(R10), R12
	MOVB.P 1(R1), R13
	MADDW R12, R19, R13, R19
	SUB $1, R9
	CBNZ R9, nloop1_1

nreduce_1:
	VADDV V16.S4, V16
	VMOV V16.S[0], R12
	ADDW R19, R12
	ADDW R11, R12
	MOVW (R0), R13
	ADDW R13, R12
	MOVW.P R12, 4(R0)
	SUB $1, R2
	CBNZ R2, nrow1

ndone:
	RET

// func rowSumsInt8NEON(dst []int32, m []int8, rows, cols int)
//
// dst[r] = Σ_c m[r*cols+c], rows ≥ 1, cols ≥ 1: SADDLP adds byte pairs
// into int16 lanes, SADALP those pairs into int32 lanes (V16), sixteen
// bytes per step, then eight, four (zero-extended loads) and single bytes
// (R19).
TEXT ·rowSumsInt8NEON(SB), NOSPLIT, $0-64
	MOVD dst_base+0(FP), R0
	MOVD m_base+24(FP), R1
	MOVD rows+48(FP), R2
	MOVD cols+56(FP), R3

rsrow:
	VEOR V16.B16, V16.B16, V16.B16
	MOVD $0, R19
	LSR  $4, R3, R9
	CBZ  R9, rst8

rsloop16:
	VLD1.P 16(R1), [V1.B16]
	WORD   $0x4e202822 // saddlp v2.8h, v1.16b
	WORD   $0x4e606850 // sadalp v16.4s, v2.8h
	SUB    $1, R9
	CBNZ   R9, rsloop16

rst8:
	TBZ     $3, R3, rst4
	FMOVD.P 8(R1), F1
	WORD    $0x4e202822 // saddlp v2.8h, v1.16b
	WORD    $0x4e606850 // sadalp v16.4s, v2.8h

rst4:
	TBZ     $2, R3, rst1
	FMOVS.P 4(R1), F1
	WORD    $0x4e202822 // saddlp v2.8h, v1.16b
	WORD    $0x4e606850 // sadalp v16.4s, v2.8h

rst1:
	AND $3, R3, R9
	CBZ R9, rsred

rsloop1:
	MOVB.P 1(R1), R12
	ADDW   R12, R19
	SUB    $1, R9
	CBNZ   R9, rsloop1

rsred:
	VADDV  V16.S4, V16
	VMOV   V16.S[0], R12
	ADDW   R19, R12
	MOVW.P R12, 4(R0)
	SUB    $1, R2
	CBNZ   R2, rsrow
	RET
