//go:build !purego && arm.7

// 32-bit ARM NEON GemmF32 block kernel (GOARM=7 builds, chosen when
// HWCAP reports NEON); gemm_neon.go walks the channel blocks. ARMv7 NEON
// has no fused multiply-add: VMLA rounds the product, then the sum, as
// the portable code does, so the sums are the portable ones except that
// NEON flushes subnormal inputs and results to zero (within GemmF32's
// accuracy). The clamp is VMAX then VMIN (a NaN stays NaN, as on arm64).
// Every NEON instruction is a WORD, checked by TestARMWords against an
// external assembler. Only R0-R9 and R12 are used (R10 is g, R11 the
// linker's temporary).

#include "textflag.h"

// func gemmF32BlockNEON(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, k int, lo, hi float32)
//
// One block of 16 output channels for m ≥ 1 pixel rows, k ≥ 1:
// dst[p·ldd+j] = clamp(bias[j] + Σ_i a[p·lda+i]·w[i·16+j], lo, hi) for
// j < 16, w the block's packed weights (16 per reduction step). Two rows
// at a time: each row's sixteen sums in four registers (Q8-Q11,
// Q12-Q15), two reduction steps per loop (one 8-byte load of each row's
// a into D8 and D9, and VMLA by scalar against each step's four weight
// registers Q0-Q3), then a last single step when k is odd; a last odd
// row alone. The sums start at the bias.
//
// R0 dst, R1 ldd in bytes, R2 a, R3 lda in bytes, R4 w, R5 rows left,
// R6 step counter, R7 weight cursor, R8-R9 row cursors, R12 scratch.
TEXT ·gemmF32BlockNEON(SB), NOSPLIT, $0-40
	MOVW dst+0(FP), R0
	MOVW ldd+4(FP), R1
	MOVW a+8(FP), R2
	MOVW lda+12(FP), R3
	MOVW w+16(FP), R4
	MOVW m+24(FP), R5
	MOVW R1<<2, R1
	MOVW R3<<2, R3

frows2:
	CMP $2, R5
	BLT frows1
	MOVW bias+20(FP), R12
	WORD $0xf46c028d // vld1.32 {d16, d17, d18, d19}, [r12]!
	WORD $0xf46c428f // vld1.32 {d20, d21, d22, d23}, [r12]
	WORD $0xf26081f0 // vmov q12, q8
	WORD $0xf262a1f2 // vmov q13, q9
	WORD $0xf264c1f4 // vmov q14, q10
	WORD $0xf266e1f6 // vmov q15, q11
	MOVW R4, R7
	MOVW R2, R8
	ADD R3, R2, R9
	MOVW k+28(FP), R6
	MOVW.S R6>>1, R6
	BEQ fodd2

floop2:
	WORD $0xf428878d // vld1.32 {d8}, [r8]!
	WORD $0xf429978d // vld1.32 {d9}, [r9]!
	WORD $0xf427028d // vld1.32 {d0, d1, d2, d3}, [r7]!
	WORD $0xf427428d // vld1.32 {d4, d5, d6, d7}, [r7]!
	WORD $0xf3e00148 // vmla.f32 q8, q0, d8[0]
	WORD $0xf3e22148 // vmla.f32 q9, q1, d8[0]
	WORD $0xf3e44148 // vmla.f32 q10, q2, d8[0]
	WORD $0xf3e66148 // vmla.f32 q11, q3, d8[0]
	WORD $0xf3e08149 // vmla.f32 q12, q0, d9[0]
	WORD $0xf3e2a149 // vmla.f32 q13, q1, d9[0]
	WORD $0xf3e4c149 // vmla.f32 q14, q2, d9[0]
	WORD $0xf3e6e149 // vmla.f32 q15, q3, d9[0]
	WORD $0xf427028d // vld1.32 {d0, d1, d2, d3}, [r7]!
	WORD $0xf427428d // vld1.32 {d4, d5, d6, d7}, [r7]!
	WORD $0xf3e00168 // vmla.f32 q8, q0, d8[1]
	WORD $0xf3e22168 // vmla.f32 q9, q1, d8[1]
	WORD $0xf3e44168 // vmla.f32 q10, q2, d8[1]
	WORD $0xf3e66168 // vmla.f32 q11, q3, d8[1]
	WORD $0xf3e08169 // vmla.f32 q12, q0, d9[1]
	WORD $0xf3e2a169 // vmla.f32 q13, q1, d9[1]
	WORD $0xf3e4c169 // vmla.f32 q14, q2, d9[1]
	WORD $0xf3e6e169 // vmla.f32 q15, q3, d9[1]
	SUB.S $1, R6
	BNE floop2

fodd2:
	MOVW k+28(FP), R6
	AND.S $1, R6
	BEQ fstore2
	WORD $0xf4a8880f // vld1.32 {d8[0]}, [r8]
	WORD $0xf4a9980f // vld1.32 {d9[0]}, [r9]
	WORD $0xf427028d // vld1.32 {d0, d1, d2, d3}, [r7]!
	WORD $0xf427428d // vld1.32 {d4, d5, d6, d7}, [r7]!
	WORD $0xf3e00148 // vmla.f32 q8, q0, d8[0]
	WORD $0xf3e22148 // vmla.f32 q9, q1, d8[0]
	WORD $0xf3e44148 // vmla.f32 q10, q2, d8[0]
	WORD $0xf3e66148 // vmla.f32 q11, q3, d8[0]
	WORD $0xf3e08149 // vmla.f32 q12, q0, d9[0]
	WORD $0xf3e2a149 // vmla.f32 q13, q1, d9[0]
	WORD $0xf3e4c149 // vmla.f32 q14, q2, d9[0]
	WORD $0xf3e6e149 // vmla.f32 q15, q3, d9[0]

fstore2:
	MOVW lo+32(FP), R6
	MOVW hi+36(FP), R12
	WORD $0xeea06b10 // vdup.32 q0, r6
	WORD $0xeea2cb10 // vdup.32 q1, r12
	WORD $0xf2400fc0 // vmax.f32 q8, q8, q0
	WORD $0xf2422fc0 // vmax.f32 q9, q9, q0
	WORD $0xf2444fc0 // vmax.f32 q10, q10, q0
	WORD $0xf2466fc0 // vmax.f32 q11, q11, q0
	WORD $0xf2488fc0 // vmax.f32 q12, q12, q0
	WORD $0xf24aafc0 // vmax.f32 q13, q13, q0
	WORD $0xf24ccfc0 // vmax.f32 q14, q14, q0
	WORD $0xf24eefc0 // vmax.f32 q15, q15, q0
	WORD $0xf2600fc2 // vmin.f32 q8, q8, q1
	WORD $0xf2622fc2 // vmin.f32 q9, q9, q1
	WORD $0xf2644fc2 // vmin.f32 q10, q10, q1
	WORD $0xf2666fc2 // vmin.f32 q11, q11, q1
	WORD $0xf2688fc2 // vmin.f32 q12, q12, q1
	WORD $0xf26aafc2 // vmin.f32 q13, q13, q1
	WORD $0xf26ccfc2 // vmin.f32 q14, q14, q1
	WORD $0xf26eefc2 // vmin.f32 q15, q15, q1
	MOVW R0, R12
	WORD $0xf44c028d // vst1.32 {d16, d17, d18, d19}, [r12]!
	WORD $0xf44c428f // vst1.32 {d20, d21, d22, d23}, [r12]
	ADD R1, R0, R12
	WORD $0xf44c828d // vst1.32 {d24, d25, d26, d27}, [r12]!
	WORD $0xf44cc28f // vst1.32 {d28, d29, d30, d31}, [r12]
	ADD R1<<1, R0
	ADD R3<<1, R2
	SUB $2, R5
	B frows2

frows1:
	CMP $0, R5
	BEQ fdone
	MOVW bias+20(FP), R12
	WORD $0xf46c028d // vld1.32 {d16, d17, d18, d19}, [r12]!
	WORD $0xf46c428f // vld1.32 {d20, d21, d22, d23}, [r12]
	MOVW R4, R7
	MOVW R2, R8
	MOVW k+28(FP), R6
	MOVW.S R6>>1, R6
	BEQ fodd1

floop1:
	WORD $0xf428878d // vld1.32 {d8}, [r8]!
	WORD $0xf427028d // vld1.32 {d0, d1, d2, d3}, [r7]!
	WORD $0xf427428d // vld1.32 {d4, d5, d6, d7}, [r7]!
	WORD $0xf3e00148 // vmla.f32 q8, q0, d8[0]
	WORD $0xf3e22148 // vmla.f32 q9, q1, d8[0]
	WORD $0xf3e44148 // vmla.f32 q10, q2, d8[0]
	WORD $0xf3e66148 // vmla.f32 q11, q3, d8[0]
	WORD $0xf427028d // vld1.32 {d0, d1, d2, d3}, [r7]!
	WORD $0xf427428d // vld1.32 {d4, d5, d6, d7}, [r7]!
	WORD $0xf3e00168 // vmla.f32 q8, q0, d8[1]
	WORD $0xf3e22168 // vmla.f32 q9, q1, d8[1]
	WORD $0xf3e44168 // vmla.f32 q10, q2, d8[1]
	WORD $0xf3e66168 // vmla.f32 q11, q3, d8[1]
	SUB.S $1, R6
	BNE floop1

fodd1:
	MOVW k+28(FP), R6
	AND.S $1, R6
	BEQ fstore1
	WORD $0xf4a8880f // vld1.32 {d8[0]}, [r8]
	WORD $0xf427028d // vld1.32 {d0, d1, d2, d3}, [r7]!
	WORD $0xf427428d // vld1.32 {d4, d5, d6, d7}, [r7]!
	WORD $0xf3e00148 // vmla.f32 q8, q0, d8[0]
	WORD $0xf3e22148 // vmla.f32 q9, q1, d8[0]
	WORD $0xf3e44148 // vmla.f32 q10, q2, d8[0]
	WORD $0xf3e66148 // vmla.f32 q11, q3, d8[0]

fstore1:
	MOVW lo+32(FP), R6
	MOVW hi+36(FP), R12
	WORD $0xeea06b10 // vdup.32 q0, r6
	WORD $0xeea2cb10 // vdup.32 q1, r12
	WORD $0xf2400fc0 // vmax.f32 q8, q8, q0
	WORD $0xf2422fc0 // vmax.f32 q9, q9, q0
	WORD $0xf2444fc0 // vmax.f32 q10, q10, q0
	WORD $0xf2466fc0 // vmax.f32 q11, q11, q0
	WORD $0xf2600fc2 // vmin.f32 q8, q8, q1
	WORD $0xf2622fc2 // vmin.f32 q9, q9, q1
	WORD $0xf2644fc2 // vmin.f32 q10, q10, q1
	WORD $0xf2666fc2 // vmin.f32 q11, q11, q1
	WORD $0xf440028d // vst1.32 {d16, d17, d18, d19}, [r0]!
	WORD $0xf440428f // vst1.32 {d20, d21, d22, d23}, [r0]

fdone:
	RET
