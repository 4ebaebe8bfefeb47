//go:build !purego

// ASIMD (NEON) GEMM micro-kernels for convolutions (gemm.go): one block
// of 16 output channels of the packed weights against pixel rows, float32
// (FMLA by element: fused multiply-adds, within GemmF32's tolerance) and
// int8 with exact int32 sums (SMULL/SMULL2 into int16, SADALP into int32).
// gemm_arm64.go runs them block by block. The vector multiply, min/max and
// pairwise-add instructions have no Go mnemonics and are WORDs, checked by
// TestARM64Words. Registers R18 and R26-R30 are not touched.

#include "textflag.h"

// func gemmF32BlockNEON(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, k int, lo, hi float32)
//
// One block of 16 output channels for m ≥ 1 pixel rows, k ≥ 1:
// dst[p·ldd+j] = clamp(bias[j] + Σ_i a[p·lda+i]·w[i·16+j], lo, hi) for
// j < 16, w the block's packed weights (16 per reduction step). Four rows
// at a time: each row's sixteen sums in four registers (V16-V31), four
// reduction steps per loop (one 16-byte load of each row's a, and FMLA by
// element against each step's four weight registers), then single steps;
// leftover rows one at a time. The sums start at the bias; the clamp is
// FMAX then FMIN (a NaN stays NaN).
//
// R0 dst, R1 ldd in bytes, R2 a, R3 lda in bytes, R4 w, R5 bias, R6 rows
// left, R7 k, R8 step counter, R9 weight cursor, R10-R13 row cursors,
// R14 dst cursor; V0-V3 weights, V4-V7 a, V8 lo, V9 hi, V10-V13 bias.
TEXT ·gemmF32BlockNEON(SB), NOSPLIT, $0-72
	MOVD dst+0(FP), R0
	MOVD ldd+8(FP), R1
	MOVD a+16(FP), R2
	MOVD lda+24(FP), R3
	MOVD w+32(FP), R4
	MOVD bias+40(FP), R5
	MOVD m+48(FP), R6
	MOVD k+56(FP), R7
	MOVWU lo+64(FP), R8
	VDUP R8, V8.S4
	MOVWU hi+68(FP), R8
	VDUP R8, V9.S4
	LSL $2, R1
	LSL $2, R3
	VLD1 (R5), [V10.S4, V11.S4, V12.S4, V13.S4]

frows4:
	CMP $4, R6
	BLT frows1
	MOVD R2, R10
	ADD R3, R10, R11
	ADD R3, R11, R12
	ADD R3, R12, R13
	VMOV V10.B16, V16.B16
	VMOV V11.B16, V17.B16
	VMOV V12.B16, V18.B16
	VMOV V13.B16, V19.B16
	VMOV V10.B16, V20.B16
	VMOV V11.B16, V21.B16
	VMOV V12.B16, V22.B16
	VMOV V13.B16, V23.B16
	VMOV V10.B16, V24.B16
	VMOV V11.B16, V25.B16
	VMOV V12.B16, V26.B16
	VMOV V13.B16, V27.B16
	VMOV V10.B16, V28.B16
	VMOV V11.B16, V29.B16
	VMOV V12.B16, V30.B16
	VMOV V13.B16, V31.B16
	MOVD R4, R9
	LSR $2, R7, R8
	CBZ R8, fone4

floop4:
	VLD1.P 16(R10), [V4.S4]
	VLD1.P 16(R11), [V5.S4]
	VLD1.P 16(R12), [V6.S4]
	VLD1.P 16(R13), [V7.S4]
	VLD1.P 64(R9), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4f841010 // fmla v16.4s, v0.4s, v4.s[0]
	WORD $0x4f841031 // fmla v17.4s, v1.4s, v4.s[0]
	WORD $0x4f841052 // fmla v18.4s, v2.4s, v4.s[0]
	WORD $0x4f841073 // fmla v19.4s, v3.4s, v4.s[0]
	WORD $0x4f851014 // fmla v20.4s, v0.4s, v5.s[0]
	WORD $0x4f851035 // fmla v21.4s, v1.4s, v5.s[0]
	WORD $0x4f851056 // fmla v22.4s, v2.4s, v5.s[0]
	WORD $0x4f851077 // fmla v23.4s, v3.4s, v5.s[0]
	WORD $0x4f861018 // fmla v24.4s, v0.4s, v6.s[0]
	WORD $0x4f861039 // fmla v25.4s, v1.4s, v6.s[0]
	WORD $0x4f86105a // fmla v26.4s, v2.4s, v6.s[0]
	WORD $0x4f86107b // fmla v27.4s, v3.4s, v6.s[0]
	WORD $0x4f87101c // fmla v28.4s, v0.4s, v7.s[0]
	WORD $0x4f87103d // fmla v29.4s, v1.4s, v7.s[0]
	WORD $0x4f87105e // fmla v30.4s, v2.4s, v7.s[0]
	WORD $0x4f87107f // fmla v31.4s, v3.4s, v7.s[0]
	VLD1.P 64(R9), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4fa41010 // fmla v16.4s, v0.4s, v4.s[1]
	WORD $0x4fa41031 // fmla v17.4s, v1.4s, v4.s[1]
	WORD $0x4fa41052 // fmla v18.4s, v2.4s, v4.s[1]
	WORD $0x4fa41073 // fmla v19.4s, v3.4s, v4.s[1]
	WORD $0x4fa51014 // fmla v20.4s, v0.4s, v5.s[1]
	WORD $0x4fa51035 // fmla v21.4s, v1.4s, v5.s[1]
	WORD $0x4fa51056 // fmla v22.4s, v2.4s, v5.s[1]
	WORD $0x4fa51077 // fmla v23.4s, v3.4s, v5.s[1]
	WORD $0x4fa61018 // fmla v24.4s, v0.4s, v6.s[1]
	WORD $0x4fa61039 // fmla v25.4s, v1.4s, v6.s[1]
	WORD $0x4fa6105a // fmla v26.4s, v2.4s, v6.s[1]
	WORD $0x4fa6107b // fmla v27.4s, v3.4s, v6.s[1]
	WORD $0x4fa7101c // fmla v28.4s, v0.4s, v7.s[1]
	WORD $0x4fa7103d // fmla v29.4s, v1.4s, v7.s[1]
	WORD $0x4fa7105e // fmla v30.4s, v2.4s, v7.s[1]
	WORD $0x4fa7107f // fmla v31.4s, v3.4s, v7.s[1]
	VLD1.P 64(R9), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4f841810 // fmla v16.4s, v0.4s, v4.s[2]
	WORD $0x4f841831 // fmla v17.4s, v1.4s, v4.s[2]
	WORD $0x4f841852 // fmla v18.4s, v2.4s, v4.s[2]
	WORD $0x4f841873 // fmla v19.4s, v3.4s, v4.s[2]
	WORD $0x4f851814 // fmla v20.4s, v0.4s, v5.s[2]
	WORD $0x4f851835 // fmla v21.4s, v1.4s, v5.s[2]
	WORD $0x4f851856 // fmla v22.4s, v2.4s, v5.s[2]
	WORD $0x4f851877 // fmla v23.4s, v3.4s, v5.s[2]
	WORD $0x4f861818 // fmla v24.4s, v0.4s, v6.s[2]
	WORD $0x4f861839 // fmla v25.4s, v1.4s, v6.s[2]
	WORD $0x4f86185a // fmla v26.4s, v2.4s, v6.s[2]
	WORD $0x4f86187b // fmla v27.4s, v3.4s, v6.s[2]
	WORD $0x4f87181c // fmla v28.4s, v0.4s, v7.s[2]
	WORD $0x4f87183d // fmla v29.4s, v1.4s, v7.s[2]
	WORD $0x4f87185e // fmla v30.4s, v2.4s, v7.s[2]
	WORD $0x4f87187f // fmla v31.4s, v3.4s, v7.s[2]
	VLD1.P 64(R9), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4fa41810 // fmla v16.4s, v0.4s, v4.s[3]
	WORD $0x4fa41831 // fmla v17.4s, v1.4s, v4.s[3]
	WORD $0x4fa41852 // fmla v18.4s, v2.4s, v4.s[3]
	WORD $0x4fa41873 // fmla v19.4s, v3.4s, v4.s[3]
	WORD $0x4fa51814 // fmla v20.4s, v0.4s, v5.s[3]
	WORD $0x4fa51835 // fmla v21.4s, v1.4s, v5.s[3]
	WORD $0x4fa51856 // fmla v22.4s, v2.4s, v5.s[3]
	WORD $0x4fa51877 // fmla v23.4s, v3.4s, v5.s[3]
	WORD $0x4fa61818 // fmla v24.4s, v0.4s, v6.s[3]
	WORD $0x4fa61839 // fmla v25.4s, v1.4s, v6.s[3]
	WORD $0x4fa6185a // fmla v26.4s, v2.4s, v6.s[3]
	WORD $0x4fa6187b // fmla v27.4s, v3.4s, v6.s[3]
	WORD $0x4fa7181c // fmla v28.4s, v0.4s, v7.s[3]
	WORD $0x4fa7183d // fmla v29.4s, v1.4s, v7.s[3]
	WORD $0x4fa7185e // fmla v30.4s, v2.4s, v7.s[3]
	WORD $0x4fa7187f // fmla v31.4s, v3.4s, v7.s[3]
	SUB $1, R8
	CBNZ R8, floop4

fone4:
	ANDS $3, R7, R8
	BEQ fstore4

floop1_4:
	FMOVS.P 4(R10), F4
	FMOVS.P 4(R11), F5
	FMOVS.P 4(R12), F6
	FMOVS.P 4(R13), F7
	VLD1.P 64(R9), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4f841010 // fmla v16.4s, v0.4s, v4.s[0]
	WORD $0x4f841031 // fmla v17.4s, v1.4s, v4.s[0]
	WORD $0x4f841052 // fmla v18.4s, v2.4s, v4.s[0]
	WORD $0x4f841073 // fmla v19.4s, v3.4s, v4.s[0]
	WORD $0x4f851014 // fmla v20.4s, v0.4s, v5.s[0]
	WORD $0x4f851035 // fmla v21.4s, v1.4s, v5.s[0]
	WORD $0x4f851056 // fmla v22.4s, v2.4s, v5.s[0]
	WORD $0x4f851077 // fmla v23.4s, v3.4s, v5.s[0]
	WORD $0x4f861018 // fmla v24.4s, v0.4s, v6.s[0]
	WORD $0x4f861039 // fmla v25.4s, v1.4s, v6.s[0]
	WORD $0x4f86105a // fmla v26.4s, v2.4s, v6.s[0]
	WORD $0x4f86107b // fmla v27.4s, v3.4s, v6.s[0]
	WORD $0x4f87101c // fmla v28.4s, v0.4s, v7.s[0]
	WORD $0x4f87103d // fmla v29.4s, v1.4s, v7.s[0]
	WORD $0x4f87105e // fmla v30.4s, v2.4s, v7.s[0]
	WORD $0x4f87107f // fmla v31.4s, v3.4s, v7.s[0]
	SUB $1, R8
	CBNZ R8, floop1_4

fstore4:
	MOVD R0, R14
	WORD $0x4e28f610 // fmax v16.4s, v16.4s, v8.4s
	WORD $0x4e28f631 // fmax v17.4s, v17.4s, v8.4s
	WORD $0x4e28f652 // fmax v18.4s, v18.4s, v8.4s
	WORD $0x4e28f673 // fmax v19.4s, v19.4s, v8.4s
	WORD $0x4ea9f610 // fmin v16.4s, v16.4s, v9.4s
	WORD $0x4ea9f631 // fmin v17.4s, v17.4s, v9.4s
	WORD $0x4ea9f652 // fmin v18.4s, v18.4s, v9.4s
	WORD $0x4ea9f673 // fmin v19.4s, v19.4s, v9.4s
	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (R14)
	ADD R1, R14
	WORD $0x4e28f694 // fmax v20.4s, v20.4s, v8.4s
	WORD $0x4e28f6b5 // fmax v21.4s, v21.4s, v8.4s
	WORD $0x4e28f6d6 // fmax v22.4s, v22.4s, v8.4s
	WORD $0x4e28f6f7 // fmax v23.4s, v23.4s, v8.4s
	WORD $0x4ea9f694 // fmin v20.4s, v20.4s, v9.4s
	WORD $0x4ea9f6b5 // fmin v21.4s, v21.4s, v9.4s
	WORD $0x4ea9f6d6 // fmin v22.4s, v22.4s, v9.4s
	WORD $0x4ea9f6f7 // fmin v23.4s, v23.4s, v9.4s
	VST1 [V20.S4, V21.S4, V22.S4, V23.S4], (R14)
	ADD R1, R14
	WORD $0x4e28f718 // fmax v24.4s, v24.4s, v8.4s
	WORD $0x4e28f739 // fmax v25.4s, v25.4s, v8.4s
	WORD $0x4e28f75a // fmax v26.4s, v26.4s, v8.4s
	WORD $0x4e28f77b // fmax v27.4s, v27.4s, v8.4s
	WORD $0x4ea9f718 // fmin v24.4s, v24.4s, v9.4s
	WORD $0x4ea9f739 // fmin v25.4s, v25.4s, v9.4s
	WORD $0x4ea9f75a // fmin v26.4s, v26.4s, v9.4s
	WORD $0x4ea9f77b // fmin v27.4s, v27.4s, v9.4s
	VST1 [V24.S4, V25.S4, V26.S4, V27.S4], (R14)
	ADD R1, R14
	WORD $0x4e28f79c // fmax v28.4s, v28.4s, v8.4s
	WORD $0x4e28f7bd // fmax v29.4s, v29.4s, v8.4s
	WORD $0x4e28f7de // fmax v30.4s, v30.4s, v8.4s
	WORD $0x4e28f7ff // fmax v31.4s, v31.4s, v8.4s
	WORD $0x4ea9f79c // fmin v28.4s, v28.4s, v9.4s
	WORD $0x4ea9f7bd // fmin v29.4s, v29.4s, v9.4s
	WORD $0x4ea9f7de // fmin v30.4s, v30.4s, v9.4s
	WORD $0x4ea9f7ff // fmin v31.4s, v31.4s, v9.4s
	VST1 [V28.S4, V29.S4, V30.S4, V31.S4], (R14)
	ADD R1<<2, R0
	ADD R3<<2, R2
	SUB $4, R6
	B frows4

frows1:
	CBZ R6, fdone

frow1:
	VMOV V10.B16, V16.B16
	VMOV V11.B16, V17.B16
	VMOV V12.B16, V18.B16
	VMOV V13.B16, V19.B16
	MOVD R4, R9
	MOVD R2, R10
	LSR $2, R7, R8
	CBZ R8, fone1

floop1:
	VLD1.P 16(R10), [V4.S4]
	VLD1.P 64(R9), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4f841010 // fmla v16.4s, v0.4s, v4.s[0]
	WORD $0x4f841031 // fmla v17.4s, v1.4s, v4.s[0]
	WORD $0x4f841052 // fmla v18.4s, v2.4s, v4.s[0]
	WORD $0x4f841073 // fmla v19.4s, v3.4s, v4.s[0]
	VLD1.P 64(R9), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4fa41010 // fmla v16.4s, v0.4s, v4.s[1]
	WORD $0x4fa41031 // fmla v17.4s, v1.4s, v4.s[1]
	WORD $0x4fa41052 // fmla v18.4s, v2.4s, v4.s[1]
	WORD $0x4fa41073 // fmla v19.4s, v3.4s, v4.s[1]
	VLD1.P 64(R9), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4f841810 // fmla v16.4s, v0.4s, v4.s[2]
	WORD $0x4f841831 // fmla v17.4s, v1.4s, v4.s[2]
	WORD $0x4f841852 // fmla v18.4s, v2.4s, v4.s[2]
	WORD $0x4f841873 // fmla v19.4s, v3.4s, v4.s[2]
	VLD1.P 64(R9), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4fa41810 // fmla v16.4s, v0.4s, v4.s[3]
	WORD $0x4fa41831 // fmla v17.4s, v1.4s, v4.s[3]
	WORD $0x4fa41852 // fmla v18.4s, v2.4s, v4.s[3]
	WORD $0x4fa41873 // fmla v19.4s, v3.4s, v4.s[3]
	SUB $1, R8
	CBNZ R8, floop1

fone1:
	ANDS $3, R7, R8
	BEQ fstore1

floop1_1:
	FMOVS.P 4(R10), F4
	VLD1.P 64(R9), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4f841010 // fmla v16.4s, v0.4s, v4.s[0]
	WORD $0x4f841031 // fmla v17.4s, v1.4s, v4.s[0]
	WORD $0x4f841052 // fmla v18.4s, v2.4s, v4.s[0]
	WORD $0x4f841073 // fmla v19.4s, v3.4s, v4.s[0]
	SUB $1, R8
	CBNZ R8, floop1_1

fstore1:
	WORD $0x4e28f610 // fmax v16.4s, v16.4s, v8.4s
	WORD $0x4e28f631 // fmax v17.4s, v17.4s, v8.4s
	WORD $0x4e28f652 // fmax v18.4s, v18.4s, v8.4s
	WORD $0x4e28f673 // fmax v19.4s, v19.4s, v8.4s
	WORD $0x4ea9f610 // fmin v16.4s, v16.4s, v9.4s
	WORD $0x4ea9f631 // fmin v17.4s, v17.4s, v9.4s
	WORD $0x4ea9f652 // fmin v18.4s, v18.4s, v9.4s
	WORD $0x4ea9f673 // fmin v19.4s, v19.4s, v9.4s
	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (R0)
	ADD R1, R0
	ADD R3, R2
	SUB $1, R6
	CBNZ R6, frow1

fdone:
	RET

// func gemmInt8BlockNEON(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)
//
// One block of 16 output channels for m ≥ 1 pixel rows, k ≥ 1:
// dst[p·ldd+j] = seed[j] + Σ_i a[p·lda+i]·w(j, i), w the block's packed
// weights (PackGemmInt8: groups of four reduction steps, 16 channels × 4
// bytes, offset by 128, which EOR with 0x80 undoes). Per group, each
// row's four bytes are broadcast to every 32-bit lane (LD1R), SMULL and
// SMULL2 multiply them with the weights into int16 lanes (one product
// each, |p| ≤ 2^14) and SADALP adds pairs into int32: each row keeps
// eight accumulators (V16-V23, V24-V31) holding two partial sums per
// channel, which ADDP folds at the end. The last k%4 bytes of a row are
// gathered in a general register (nothing past the row is read); the
// packed weights of those missing steps are 0. Two rows at a time, then
// one.
//
// R0 dst, R1 ldd in bytes, R2 a, R3 lda, R4 w, R5 seed, R6 rows left,
// R7 k, R8 group counter, R9 weight cursor, R10-R11 row cursors, R12
// k%4, R14 dst cursor, R19-R20 tail bytes; V0-V3 weights, V4-V5 a,
// V6-V13 products, V14 0x80 bytes.
TEXT ·gemmInt8BlockNEON(SB), NOSPLIT, $0-64
	MOVD dst+0(FP), R0
	MOVD ldd+8(FP), R1
	MOVD a+16(FP), R2
	MOVD lda+24(FP), R3
	MOVD w+32(FP), R4
	MOVD seed+40(FP), R5
	MOVD m+48(FP), R6
	MOVD k+56(FP), R7
	LSL $2, R1
	AND $3, R7, R12
	VMOVI $0x80, V14.B16

irows2:
	CMP $2, R6
	BLT irows1
	MOVD R2, R10
	ADD R3, R10, R11
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
	VEOR V28.B16, V28.B16, V28.B16
	VEOR V29.B16, V29.B16, V29.B16
	VEOR V30.B16, V30.B16, V30.B16
	VEOR V31.B16, V31.B16, V31.B16
	MOVD R4, R9
	LSR $2, R7, R8
	CBZ R8, itail2

iloop2:
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	VLD1R.P 4(R10), [V4.S4]
	VLD1R.P 4(R11), [V5.S4]
	WORD $0x0e24c006 // smull v6.8h, v0.8b, v4.8b
	WORD $0x4e24c007 // smull2 v7.8h, v0.16b, v4.16b
	WORD $0x0e24c028 // smull v8.8h, v1.8b, v4.8b
	WORD $0x4e24c029 // smull2 v9.8h, v1.16b, v4.16b
	WORD $0x0e24c04a // smull v10.8h, v2.8b, v4.8b
	WORD $0x4e24c04b // smull2 v11.8h, v2.16b, v4.16b
	WORD $0x0e24c06c // smull v12.8h, v3.8b, v4.8b
	WORD $0x4e24c06d // smull2 v13.8h, v3.16b, v4.16b
	WORD $0x4e6068d0 // sadalp v16.4s, v6.8h
	WORD $0x4e6068f1 // sadalp v17.4s, v7.8h
	WORD $0x4e606912 // sadalp v18.4s, v8.8h
	WORD $0x4e606933 // sadalp v19.4s, v9.8h
	WORD $0x4e606954 // sadalp v20.4s, v10.8h
	WORD $0x4e606975 // sadalp v21.4s, v11.8h
	WORD $0x4e606996 // sadalp v22.4s, v12.8h
	WORD $0x4e6069b7 // sadalp v23.4s, v13.8h
	WORD $0x0e25c006 // smull v6.8h, v0.8b, v5.8b
	WORD $0x4e25c007 // smull2 v7.8h, v0.16b, v5.16b
	WORD $0x0e25c028 // smull v8.8h, v1.8b, v5.8b
	WORD $0x4e25c029 // smull2 v9.8h, v1.16b, v5.16b
	WORD $0x0e25c04a // smull v10.8h, v2.8b, v5.8b
	WORD $0x4e25c04b // smull2 v11.8h, v2.16b, v5.16b
	WORD $0x0e25c06c // smull v12.8h, v3.8b, v5.8b
	WORD $0x4e25c06d // smull2 v13.8h, v3.16b, v5.16b
	WORD $0x4e6068d8 // sadalp v24.4s, v6.8h
	WORD $0x4e6068f9 // sadalp v25.4s, v7.8h
	WORD $0x4e60691a // sadalp v26.4s, v8.8h
	WORD $0x4e60693b // sadalp v27.4s, v9.8h
	WORD $0x4e60695c // sadalp v28.4s, v10.8h
	WORD $0x4e60697d // sadalp v29.4s, v11.8h
	WORD $0x4e60699e // sadalp v30.4s, v12.8h
	WORD $0x4e6069bf // sadalp v31.4s, v13.8h
	SUB $1, R8
	CBNZ R8, iloop2

itail2:
	CBZ R12, istore2
	MOVBU (R10), R19
	CMP $2, R12
	BLT itail2a
	MOVBU 1(R10), R20
	ORR R20<<8, R19, R19
	CMP $3, R12
	BLT itail2a
	MOVBU 2(R10), R20
	ORR R20<<16, R19, R19
itail2a:
	VDUP R19, V4.S4
	MOVBU (R11), R19
	CMP $2, R12
	BLT itail2b
	MOVBU 1(R11), R20
	ORR R20<<8, R19, R19
	CMP $3, R12
	BLT itail2b
	MOVBU 2(R11), R20
	ORR R20<<16, R19, R19
itail2b:
	VDUP R19, V5.S4
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x0e24c006 // smull v6.8h, v0.8b, v4.8b
	WORD $0x4e24c007 // smull2 v7.8h, v0.16b, v4.16b
	WORD $0x0e24c028 // smull v8.8h, v1.8b, v4.8b
	WORD $0x4e24c029 // smull2 v9.8h, v1.16b, v4.16b
	WORD $0x0e24c04a // smull v10.8h, v2.8b, v4.8b
	WORD $0x4e24c04b // smull2 v11.8h, v2.16b, v4.16b
	WORD $0x0e24c06c // smull v12.8h, v3.8b, v4.8b
	WORD $0x4e24c06d // smull2 v13.8h, v3.16b, v4.16b
	WORD $0x4e6068d0 // sadalp v16.4s, v6.8h
	WORD $0x4e6068f1 // sadalp v17.4s, v7.8h
	WORD $0x4e606912 // sadalp v18.4s, v8.8h
	WORD $0x4e606933 // sadalp v19.4s, v9.8h
	WORD $0x4e606954 // sadalp v20.4s, v10.8h
	WORD $0x4e606975 // sadalp v21.4s, v11.8h
	WORD $0x4e606996 // sadalp v22.4s, v12.8h
	WORD $0x4e6069b7 // sadalp v23.4s, v13.8h
	WORD $0x0e25c006 // smull v6.8h, v0.8b, v5.8b
	WORD $0x4e25c007 // smull2 v7.8h, v0.16b, v5.16b
	WORD $0x0e25c028 // smull v8.8h, v1.8b, v5.8b
	WORD $0x4e25c029 // smull2 v9.8h, v1.16b, v5.16b
	WORD $0x0e25c04a // smull v10.8h, v2.8b, v5.8b
	WORD $0x4e25c04b // smull2 v11.8h, v2.16b, v5.16b
	WORD $0x0e25c06c // smull v12.8h, v3.8b, v5.8b
	WORD $0x4e25c06d // smull2 v13.8h, v3.16b, v5.16b
	WORD $0x4e6068d8 // sadalp v24.4s, v6.8h
	WORD $0x4e6068f9 // sadalp v25.4s, v7.8h
	WORD $0x4e60691a // sadalp v26.4s, v8.8h
	WORD $0x4e60693b // sadalp v27.4s, v9.8h
	WORD $0x4e60695c // sadalp v28.4s, v10.8h
	WORD $0x4e60697d // sadalp v29.4s, v11.8h
	WORD $0x4e60699e // sadalp v30.4s, v12.8h
	WORD $0x4e6069bf // sadalp v31.4s, v13.8h

istore2:
	VLD1 (R5), [V0.S4, V1.S4, V2.S4, V3.S4]
	MOVD R0, R14
	VADDP V17.S4, V16.S4, V16.S4
	VADD V0.S4, V16.S4, V16.S4
	VADDP V19.S4, V18.S4, V17.S4
	VADD V1.S4, V17.S4, V17.S4
	VADDP V21.S4, V20.S4, V18.S4
	VADD V2.S4, V18.S4, V18.S4
	VADDP V23.S4, V22.S4, V19.S4
	VADD V3.S4, V19.S4, V19.S4
	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (R14)
	ADD R1, R14
	VADDP V25.S4, V24.S4, V24.S4
	VADD V0.S4, V24.S4, V24.S4
	VADDP V27.S4, V26.S4, V25.S4
	VADD V1.S4, V25.S4, V25.S4
	VADDP V29.S4, V28.S4, V26.S4
	VADD V2.S4, V26.S4, V26.S4
	VADDP V31.S4, V30.S4, V27.S4
	VADD V3.S4, V27.S4, V27.S4
	VST1 [V24.S4, V25.S4, V26.S4, V27.S4], (R14)
	ADD R1<<1, R0
	ADD R3<<1, R2
	SUB $2, R6
	B irows2

irows1:
	CBZ R6, idone
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	MOVD R4, R9
	MOVD R2, R10
	LSR $2, R7, R8
	CBZ R8, itail1

iloop1:
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	VLD1R.P 4(R10), [V4.S4]
	WORD $0x0e24c006 // smull v6.8h, v0.8b, v4.8b
	WORD $0x4e24c007 // smull2 v7.8h, v0.16b, v4.16b
	WORD $0x0e24c028 // smull v8.8h, v1.8b, v4.8b
	WORD $0x4e24c029 // smull2 v9.8h, v1.16b, v4.16b
	WORD $0x0e24c04a // smull v10.8h, v2.8b, v4.8b
	WORD $0x4e24c04b // smull2 v11.8h, v2.16b, v4.16b
	WORD $0x0e24c06c // smull v12.8h, v3.8b, v4.8b
	WORD $0x4e24c06d // smull2 v13.8h, v3.16b, v4.16b
	WORD $0x4e6068d0 // sadalp v16.4s, v6.8h
	WORD $0x4e6068f1 // sadalp v17.4s, v7.8h
	WORD $0x4e606912 // sadalp v18.4s, v8.8h
	WORD $0x4e606933 // sadalp v19.4s, v9.8h
	WORD $0x4e606954 // sadalp v20.4s, v10.8h
	WORD $0x4e606975 // sadalp v21.4s, v11.8h
	WORD $0x4e606996 // sadalp v22.4s, v12.8h
	WORD $0x4e6069b7 // sadalp v23.4s, v13.8h
	SUB $1, R8
	CBNZ R8, iloop1

itail1:
	CBZ R12, istore1
	MOVBU (R10), R19
	CMP $2, R12
	BLT itail1a
	MOVBU 1(R10), R20
	ORR R20<<8, R19, R19
	CMP $3, R12
	BLT itail1a
	MOVBU 2(R10), R20
	ORR R20<<16, R19, R19
itail1a:
	VDUP R19, V4.S4
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x0e24c006 // smull v6.8h, v0.8b, v4.8b
	WORD $0x4e24c007 // smull2 v7.8h, v0.16b, v4.16b
	WORD $0x0e24c028 // smull v8.8h, v1.8b, v4.8b
	WORD $0x4e24c029 // smull2 v9.8h, v1.16b, v4.16b
	WORD $0x0e24c04a // smull v10.8h, v2.8b, v4.8b
	WORD $0x4e24c04b // smull2 v11.8h, v2.16b, v4.16b
	WORD $0x0e24c06c // smull v12.8h, v3.8b, v4.8b
	WORD $0x4e24c06d // smull2 v13.8h, v3.16b, v4.16b
	WORD $0x4e6068d0 // sadalp v16.4s, v6.8h
	WORD $0x4e6068f1 // sadalp v17.4s, v7.8h
	WORD $0x4e606912 // sadalp v18.4s, v8.8h
	WORD $0x4e606933 // sadalp v19.4s, v9.8h
	WORD $0x4e606954 // sadalp v20.4s, v10.8h
	WORD $0x4e606975 // sadalp v21.4s, v11.8h
	WORD $0x4e606996 // sadalp v22.4s, v12.8h
	WORD $0x4e6069b7 // sadalp v23.4s, v13.8h

istore1:
	VLD1 (R5), [V0.S4, V1.S4, V2.S4, V3.S4]
	VADDP V17.S4, V16.S4, V16.S4
	VADD V0.S4, V16.S4, V16.S4
	VADDP V19.S4, V18.S4, V17.S4
	VADD V1.S4, V17.S4, V17.S4
	VADDP V21.S4, V20.S4, V18.S4
	VADD V2.S4, V18.S4, V18.S4
	VADDP V23.S4, V22.S4, V19.S4
	VADD V3.S4, V19.S4, V19.S4
	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (R0)

idone:
	RET


// func subI32NEON(p *int32, n int, c int32)
//
// p[i] -= c for i < n (n ≥ 0), wrapping: the weights' zero-point term of
// gemmInt8RqTiled, one row of sums at a time. Sixteen sums per step, then
// four, then one.
//
// R0 cursor, R1 left, R2 c; V0 c in every lane, V1-V4 sums.
TEXT ·subI32NEON(SB), NOSPLIT, $0-20
	MOVD p+0(FP), R0
	MOVD n+8(FP), R1
	MOVW c+16(FP), R2
	VDUP R2, V0.S4

subloop16:
	CMP $16, R1
	BLT subloop4
	VLD1 (R0), [V1.S4, V2.S4, V3.S4, V4.S4]
	VSUB V0.S4, V1.S4, V1.S4
	VSUB V0.S4, V2.S4, V2.S4
	VSUB V0.S4, V3.S4, V3.S4
	VSUB V0.S4, V4.S4, V4.S4
	VST1.P [V1.S4, V2.S4, V3.S4, V4.S4], 64(R0)
	SUB $16, R1
	B subloop16

subloop4:
	CMP $4, R1
	BLT subloop1
	VLD1 (R0), [V1.S4]
	VSUB V0.S4, V1.S4, V1.S4
	VST1.P [V1.S4], 16(R0)
	SUB $4, R1
	B subloop4

subloop1:
	CBZ R1, subdone
	MOVWU (R0), R3
	SUBW R2, R3
	MOVW.P R3, 4(R0)
	SUB $1, R1
	B subloop1

subdone:
	RET
