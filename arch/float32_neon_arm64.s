//go:build !purego

// ASIMD (NEON) float32 kernels. Hand-written Go assembly; see doc.go for
// the conventions. Go's arm64 assembler has no vector FADD/FADDP/FMUL, so
// those are WORDs with the instruction in a comment; TestARM64Words
// (asmwords_test.go) checks every encoding against an external assembler.
// Registers R18 (platform), R26-R30 (assembler temporary, g, frame
// pointer, link) are not touched.

#include "textflag.h"

// func matVecMulAccNEON(dst, m []float32, rows, cols int, x []float32)
//
// dst[r] += Σ_c m[r*cols+c]·x[c], rows ≥ 1, cols ≥ 1.
// Four rows at a time share each load of x: eight columns per step with
// two accumulators per row (V16-V19 columns 8k..8k+3, V20-V23 columns
// 8k+4..8k+7), then one step of four, then the last cols%4 columns one at
// a time in scalar accumulators (F24-F27). Leftover rows go one at a time
// with four accumulators (sixteen columns per step), which is also Dot.
// No load reaches past the last element of a row or of x.
//
// R0 dst, R1 row 0, R6-R8 rows 1-3, R2 rows left, R3 cols, R4 x,
// R5 row stride in bytes, R9 step counter, R10 x cursor.
TEXT ·matVecMulAccNEON(SB), NOSPLIT, $0-88
	MOVD dst_base+0(FP), R0
	MOVD m_base+24(FP), R1
	MOVD rows+48(FP), R2
	MOVD cols+56(FP), R3
	MOVD x_base+64(FP), R4
	LSL  $2, R3, R5

rows4:
	CMP $4, R2
	BLT rows1
	ADD R5, R1, R6
	ADD R5, R6, R7
	ADD R5, R7, R8
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	VEOR V24.B16, V24.B16, V24.B16
	VEOR V25.B16, V25.B16, V25.B16
	VEOR V26.B16, V26.B16, V26.B16
	VEOR V27.B16, V27.B16, V27.B16
	MOVD R4, R10
	LSR  $3, R3, R9
	CBZ  R9, c4_4

loop8_4:
	VLD1.P 32(R10), [V0.S4, V1.S4]
	VLD1.P 32(R1), [V2.S4, V3.S4]
	VLD1.P 32(R6), [V4.S4, V5.S4]
	VLD1.P 32(R7), [V6.S4, V7.S4]
	VLD1.P 32(R8), [V8.S4, V9.S4]
	VFMLA  V0.S4, V2.S4, V16.S4
	VFMLA  V1.S4, V3.S4, V20.S4
	VFMLA  V0.S4, V4.S4, V17.S4
	VFMLA  V1.S4, V5.S4, V21.S4
	VFMLA  V0.S4, V6.S4, V18.S4
	VFMLA  V1.S4, V7.S4, V22.S4
	VFMLA  V0.S4, V8.S4, V19.S4
	VFMLA  V1.S4, V9.S4, V23.S4
	SUB    $1, R9
	CBNZ   R9, loop8_4

c4_4:
	TBZ    $2, R3, c1_4
	VLD1.P 16(R10), [V0.S4]
	VLD1.P 16(R1), [V2.S4]
	VLD1.P 16(R6), [V4.S4]
	VLD1.P 16(R7), [V6.S4]
	VLD1.P 16(R8), [V8.S4]
	VFMLA  V0.S4, V2.S4, V16.S4
	VFMLA  V0.S4, V4.S4, V17.S4
	VFMLA  V0.S4, V6.S4, V18.S4
	VFMLA  V0.S4, V8.S4, V19.S4

c1_4:
	AND $3, R3, R9
	CBZ R9, reduce_4

loop1_4:
	FMOVS.P 4(R10), F0
	FMOVS.P 4(R1), F2
	FMOVS.P 4(R6), F4
	FMOVS.P 4(R7), F6
	FMOVS.P 4(R8), F8
	FMADDS  F0, F24, F2, F24
	FMADDS  F0, F25, F4, F25
	FMADDS  F0, F26, F6, F26
	FMADDS  F0, F27, F8, F27
	SUB     $1, R9
	CBNZ    R9, loop1_4

reduce_4:
	// The scalar accumulators have zero upper lanes, so adding them as
	// vectors only touches lane 0.
	WORD $0x4e34d610 // fadd v16.4s, v16.4s, v20.4s
	WORD $0x4e35d631 // fadd v17.4s, v17.4s, v21.4s
	WORD $0x4e36d652 // fadd v18.4s, v18.4s, v22.4s
	WORD $0x4e37d673 // fadd v19.4s, v19.4s, v23.4s
	WORD $0x4e38d610 // fadd v16.4s, v16.4s, v24.4s
	WORD $0x4e39d631 // fadd v17.4s, v17.4s, v25.4s
	WORD $0x4e3ad652 // fadd v18.4s, v18.4s, v26.4s
	WORD $0x4e3bd673 // fadd v19.4s, v19.4s, v27.4s
	WORD $0x6e31d610 // faddp v16.4s, v16.4s, v17.4s
	WORD $0x6e33d652 // faddp v18.4s, v18.4s, v19.4s
	WORD $0x6e32d610 // faddp v16.4s, v16.4s, v18.4s
	VLD1 (R0), [V0.S4]
	WORD $0x4e30d400 // fadd v0.4s, v0.4s, v16.4s
	VST1.P [V0.S4], 16(R0)
	// R8 has walked over row 3 and points at row 4.
	MOVD R8, R1
	SUB  $4, R2
	B    rows4

rows1:
	CBZ R2, done

row1:
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	MOVD R4, R10
	LSR  $4, R3, R9
	CBZ  R9, c4_1

loop16_1:
	VLD1.P 64(R10), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R1), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA  V0.S4, V4.S4, V16.S4
	VFMLA  V1.S4, V5.S4, V17.S4
	VFMLA  V2.S4, V6.S4, V18.S4
	VFMLA  V3.S4, V7.S4, V19.S4
	SUB    $1, R9
	CBNZ   R9, loop16_1

c4_1:
	// cols%16 / 4 steps of four.
	UBFX $2, R3, $2, R9
	CBZ  R9, c1_1

loop4_1:
	VLD1.P 16(R10), [V0.S4]
	VLD1.P 16(R1), [V4.S4]
	VFMLA  V0.S4, V4.S4, V16.S4
	SUB    $1, R9
	CBNZ   R9, loop4_1

c1_1:
	AND $3, R3, R9
	CBZ R9, reduce_1

loop1_1:
	FMOVS.P 4(R10), F0
	FMOVS.P 4(R1), F4
	FMADDS  F0, F20, F4, F20
	SUB     $1, R9
	CBNZ    R9, loop1_1

reduce_1:
	WORD $0x4e31d610 // fadd v16.4s, v16.4s, v17.4s
	WORD $0x4e33d652 // fadd v18.4s, v18.4s, v19.4s
	WORD $0x4e34d610 // fadd v16.4s, v16.4s, v20.4s
	WORD $0x4e32d610 // fadd v16.4s, v16.4s, v18.4s
	WORD $0x6e30d610 // faddp v16.4s, v16.4s, v16.4s
	WORD $0x7e30da10 // faddp s16, v16.2s
	FMOVS (R0), F0
	FADDS F16, F0, F0
	FMOVS.P F0, 4(R0)
	SUB   $1, R2
	CBNZ  R2, row1

done:
	RET

// The elementwise kernels: sixteen floats per step, then four, then one
// (scalar FADDS/FMULS, which round exactly as the vector forms do).
// R0 dst, R1 a, R2 b, R3 len(a), R4 step counter; V0-V3 a and the
// result, V4-V7 b, V8-V11 dst for VecMulAcc.

// func vecAddNEON(dst, a, b []float32)
TEXT ·vecAddNEON(SB), NOSPLIT, $0-72
	MOVD dst_base+0(FP), R0
	MOVD a_base+24(FP), R1
	MOVD a_len+32(FP), R3
	MOVD b_base+48(FP), R2
	LSR  $4, R3, R4
	CBZ  R4, add4

add16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	WORD   $0x4e24d400 // fadd v0.4s, v0.4s, v4.4s
	WORD   $0x4e25d421 // fadd v1.4s, v1.4s, v5.4s
	WORD   $0x4e26d442 // fadd v2.4s, v2.4s, v6.4s
	WORD   $0x4e27d463 // fadd v3.4s, v3.4s, v7.4s
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB    $1, R4
	CBNZ   R4, add16

add4:
	UBFX $2, R3, $2, R4
	CBZ  R4, add1

add4loop:
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R2), [V4.S4]
	WORD   $0x4e24d400 // fadd v0.4s, v0.4s, v4.4s
	VST1.P [V0.S4], 16(R0)
	SUB    $1, R4
	CBNZ   R4, add4loop

add1:
	AND $3, R3, R4
	CBZ R4, adddone

add1loop:
	FMOVS.P 4(R1), F0
	FMOVS.P 4(R2), F4
	FADDS   F4, F0, F0
	FMOVS.P F0, 4(R0)
	SUB     $1, R4
	CBNZ    R4, add1loop

adddone:
	RET

// func vecMulNEON(dst, a, b []float32)
TEXT ·vecMulNEON(SB), NOSPLIT, $0-72
	MOVD dst_base+0(FP), R0
	MOVD a_base+24(FP), R1
	MOVD a_len+32(FP), R3
	MOVD b_base+48(FP), R2
	LSR  $4, R3, R4
	CBZ  R4, mul4

mul16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	WORD   $0x6e24dc00 // fmul v0.4s, v0.4s, v4.4s
	WORD   $0x6e25dc21 // fmul v1.4s, v1.4s, v5.4s
	WORD   $0x6e26dc42 // fmul v2.4s, v2.4s, v6.4s
	WORD   $0x6e27dc63 // fmul v3.4s, v3.4s, v7.4s
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB    $1, R4
	CBNZ   R4, mul16

mul4:
	UBFX $2, R3, $2, R4
	CBZ  R4, mul1

mul4loop:
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R2), [V4.S4]
	WORD   $0x6e24dc00 // fmul v0.4s, v0.4s, v4.4s
	VST1.P [V0.S4], 16(R0)
	SUB    $1, R4
	CBNZ   R4, mul4loop

mul1:
	AND $3, R3, R4
	CBZ R4, muldone

mul1loop:
	FMOVS.P 4(R1), F0
	FMOVS.P 4(R2), F4
	FMULS   F4, F0, F0
	FMOVS.P F0, 4(R0)
	SUB     $1, R4
	CBNZ    R4, mul1loop

muldone:
	RET

// func vecMulAccNEON(dst, a, b []float32)
//
// dst += a·b with the product rounded before the add (FMUL, FADD).
TEXT ·vecMulAccNEON(SB), NOSPLIT, $0-72
	MOVD dst_base+0(FP), R0
	MOVD a_base+24(FP), R1
	MOVD a_len+32(FP), R3
	MOVD b_base+48(FP), R2
	LSR  $4, R3, R4
	CBZ  R4, mac4

mac16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1   (R0), [V8.S4, V9.S4, V10.S4, V11.S4]
	WORD   $0x6e24dc00 // fmul v0.4s, v0.4s, v4.4s
	WORD   $0x6e25dc21 // fmul v1.4s, v1.4s, v5.4s
	WORD   $0x6e26dc42 // fmul v2.4s, v2.4s, v6.4s
	WORD   $0x6e27dc63 // fmul v3.4s, v3.4s, v7.4s
	WORD   $0x4e20d508 // fadd v8.4s, v8.4s, v0.4s
	WORD   $0x4e21d529 // fadd v9.4s, v9.4s, v1.4s
	WORD   $0x4e22d54a // fadd v10.4s, v10.4s, v2.4s
	WORD   $0x4e23d56b // fadd v11.4s, v11.4s, v3.4s
	VST1.P [V8.S4, V9.S4, V10.S4, V11.S4], 64(R0)
	SUB    $1, R4
	CBNZ   R4, mac16

mac4:
	UBFX $2, R3, $2, R4
	CBZ  R4, mac1

mac4loop:
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R2), [V4.S4]
	VLD1   (R0), [V8.S4]
	WORD   $0x6e24dc00 // fmul v0.4s, v0.4s, v4.4s
	WORD   $0x4e20d508 // fadd v8.4s, v8.4s, v0.4s
	VST1.P [V8.S4], 16(R0)
	SUB    $1, R4
	CBNZ   R4, mac4loop

mac1:
	AND $3, R3, R4
	CBZ R4, macdone

mac1loop:
	FMOVS.P 4(R1), F0
	FMOVS.P 4(R2), F4
	FMOVS   (R0), F8
	FMULS   F4, F0, F0
	FADDS   F0, F8, F8
	FMOVS.P F8, 4(R0)
	SUB     $1, R4
	CBNZ    R4, mac1loop

macdone:
	RET
