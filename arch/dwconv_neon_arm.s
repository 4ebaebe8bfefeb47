//go:build !purego && arm.7

// 32-bit ARM NEON depthwise kernels (GOARM=7 builds, chosen when HWCAP
// reports NEON); dwconv_arm.go walks the channel blocks and builds the
// table of tap offsets. Each kernel computes one block of 16, 4 or 1
// channels over the whole rectangle, one output pixel at a time: the
// sums start at the bias (mode 0) or at zero (mode 1), every tap of the
// table (x and w byte offsets, in the order ty then tx) adds its
// input·weight products with VMLA, which rounds the product and then the
// sum as the portable code does (NEON flushes subnormals to zero, within
// DepthwiseConvF32's accuracy; mode 1's integer-valued sums are exact),
// then mode 0 clamps (VMAX then VMIN) and mode 1 truncates to int32 as
// Go's conversion does and adds the int32 bias. Every NEON instruction is
// a WORD, checked by TestARMWords against an external assembler. Only
// R0-R9 and R12 are used (R10 is g, R11 the linker's temporary).
//
// R0 dst cursor, R1 x cursor (the pixel's first tap), R2 w, R3 bias, R4
// the dwArmArgs, R5 rows left, R6 columns left, R7 taps left, R8 tap
// table cursor, R9 and R12 tap addresses and scratch; Q0-Q3 inputs, Q4-Q7
// weights, Q8-Q11 sums.

#include "textflag.h"

// dwArmArgs field offsets (checked in dwconv_arm.go).
#define A_rows 0
#define A_cols 4
#define A_ntaps 8
#define A_mode 12
#define A_xColStep 16
#define A_dC 20
#define A_xAdv 24
#define A_dAdv 28
#define A_lo 32
#define A_hi 36
#define A_taps 40

// func dwConvNEON16(dst *byte, x, w *float32, bias *uint32, a *dwArmArgs)
TEXT ·dwConvNEON16(SB), NOSPLIT, $0-20
	MOVW dst+0(FP), R0
	MOVW x+4(FP), R1
	MOVW w+8(FP), R2
	MOVW bias+12(FP), R3
	MOVW a+16(FP), R4
	MOVW A_rows(R4), R5
neon16row:
	MOVW A_cols(R4), R6
neon16col:
	MOVW A_mode(R4), R12
	CMP $0, R12
	BNE neon16zero
	MOVW R3, R9
	WORD $0xf469028d // vld1.32 {d16, d17, d18, d19}, [r9]!
	WORD $0xf469428f // vld1.32 {d20, d21, d22, d23}, [r9]
	B neon16taps
neon16zero:
	WORD $0xf2c00050 // vmov.i32 q8, #0
	WORD $0xf2c02050 // vmov.i32 q9, #0
	WORD $0xf2c04050 // vmov.i32 q10, #0
	WORD $0xf2c06050 // vmov.i32 q11, #0
neon16taps:
	MOVW A_ntaps(R4), R7
	MOVW A_taps(R4), R8
neon16tap:
	MOVW.P 4(R8), R9
	ADD R1, R9
	MOVW.P 4(R8), R12
	ADD R2, R12
	WORD $0xf429028d // vld1.32 {d0, d1, d2, d3}, [r9]!
	WORD $0xf429428f // vld1.32 {d4, d5, d6, d7}, [r9]
	WORD $0xf42c828d // vld1.32 {d8, d9, d10, d11}, [r12]!
	WORD $0xf42cc28f // vld1.32 {d12, d13, d14, d15}, [r12]
	WORD $0xf2400d58 // vmla.f32 q8, q0, q4
	WORD $0xf2422d5a // vmla.f32 q9, q1, q5
	WORD $0xf2444d5c // vmla.f32 q10, q2, q6
	WORD $0xf2466d5e // vmla.f32 q11, q3, q7
	SUB.S $1, R7
	BNE neon16tap
	MOVW A_mode(R4), R12
	CMP $0, R12
	BNE neon16int
	MOVW A_lo(R4), R9
	MOVW A_hi(R4), R12
	WORD $0xeea09b10 // vdup.32 q0, r9
	WORD $0xeea2cb10 // vdup.32 q1, r12
	WORD $0xf2400fc0 // vmax.f32 q8, q8, q0
	WORD $0xf2422fc0 // vmax.f32 q9, q9, q0
	WORD $0xf2444fc0 // vmax.f32 q10, q10, q0
	WORD $0xf2466fc0 // vmax.f32 q11, q11, q0
	WORD $0xf2600fc2 // vmin.f32 q8, q8, q1
	WORD $0xf2622fc2 // vmin.f32 q9, q9, q1
	WORD $0xf2644fc2 // vmin.f32 q10, q10, q1
	WORD $0xf2666fc2 // vmin.f32 q11, q11, q1
	B neon16store
neon16int:
	WORD $0xf3fb0760 // vcvt.s32.f32 q8, q8
	WORD $0xf3fb2762 // vcvt.s32.f32 q9, q9
	WORD $0xf3fb4764 // vcvt.s32.f32 q10, q10
	WORD $0xf3fb6766 // vcvt.s32.f32 q11, q11
	MOVW R3, R9
	WORD $0xf429028d // vld1.32 {d0, d1, d2, d3}, [r9]!
	WORD $0xf429428f // vld1.32 {d4, d5, d6, d7}, [r9]
	WORD $0xf26008c0 // vadd.i32 q8, q8, q0
	WORD $0xf26228c2 // vadd.i32 q9, q9, q1
	WORD $0xf26448c4 // vadd.i32 q10, q10, q2
	WORD $0xf26668c6 // vadd.i32 q11, q11, q3
neon16store:
	MOVW R0, R9
	WORD $0xf449028d // vst1.32 {d16, d17, d18, d19}, [r9]!
	WORD $0xf449428f // vst1.32 {d20, d21, d22, d23}, [r9]
	MOVW A_dC(R4), R12
	ADD R12, R0
	MOVW A_xColStep(R4), R12
	ADD R12, R1
	SUB.S $1, R6
	BNE neon16col
	MOVW A_dAdv(R4), R12
	ADD R12, R0
	MOVW A_xAdv(R4), R12
	ADD R12, R1
	SUB.S $1, R5
	BNE neon16row
	RET

// func dwConvNEON4(dst *byte, x, w *float32, bias *uint32, a *dwArmArgs)
TEXT ·dwConvNEON4(SB), NOSPLIT, $0-20
	MOVW dst+0(FP), R0
	MOVW x+4(FP), R1
	MOVW w+8(FP), R2
	MOVW bias+12(FP), R3
	MOVW a+16(FP), R4
	MOVW A_rows(R4), R5
neon4row:
	MOVW A_cols(R4), R6
neon4col:
	MOVW A_mode(R4), R12
	CMP $0, R12
	BNE neon4zero
	WORD $0xf4630a8f // vld1.32 {d16, d17}, [r3]
	B neon4taps
neon4zero:
	WORD $0xf2c00050 // vmov.i32 q8, #0
neon4taps:
	MOVW A_ntaps(R4), R7
	MOVW A_taps(R4), R8
neon4tap:
	MOVW.P 4(R8), R9
	ADD R1, R9
	MOVW.P 4(R8), R12
	ADD R2, R12
	WORD $0xf4290a8f // vld1.32 {d0, d1}, [r9]
	WORD $0xf42c8a8f // vld1.32 {d8, d9}, [r12]
	WORD $0xf2400d58 // vmla.f32 q8, q0, q4
	SUB.S $1, R7
	BNE neon4tap
	MOVW A_mode(R4), R12
	CMP $0, R12
	BNE neon4int
	MOVW A_lo(R4), R9
	MOVW A_hi(R4), R12
	WORD $0xeea09b10 // vdup.32 q0, r9
	WORD $0xeea2cb10 // vdup.32 q1, r12
	WORD $0xf2400fc0 // vmax.f32 q8, q8, q0
	WORD $0xf2600fc2 // vmin.f32 q8, q8, q1
	B neon4store
neon4int:
	WORD $0xf3fb0760 // vcvt.s32.f32 q8, q8
	WORD $0xf4230a8f // vld1.32 {d0, d1}, [r3]
	WORD $0xf26008c0 // vadd.i32 q8, q8, q0
neon4store:
	WORD $0xf4400a8f // vst1.32 {d16, d17}, [r0]
	MOVW A_dC(R4), R12
	ADD R12, R0
	MOVW A_xColStep(R4), R12
	ADD R12, R1
	SUB.S $1, R6
	BNE neon4col
	MOVW A_dAdv(R4), R12
	ADD R12, R0
	MOVW A_xAdv(R4), R12
	ADD R12, R1
	SUB.S $1, R5
	BNE neon4row
	RET

// func dwConvNEON1(dst *byte, x, w *float32, bias *uint32, a *dwArmArgs)
TEXT ·dwConvNEON1(SB), NOSPLIT, $0-20
	MOVW dst+0(FP), R0
	MOVW x+4(FP), R1
	MOVW w+8(FP), R2
	MOVW bias+12(FP), R3
	MOVW a+16(FP), R4
	MOVW A_rows(R4), R5
neon1row:
	MOVW A_cols(R4), R6
neon1col:
	MOVW A_mode(R4), R12
	CMP $0, R12
	BNE neon1zero
	WORD $0xf4e3080f // vld1.32 {d16[0]}, [r3]
	B neon1taps
neon1zero:
	WORD $0xf2c00010 // vmov.i32 d16, #0
neon1taps:
	MOVW A_ntaps(R4), R7
	MOVW A_taps(R4), R8
neon1tap:
	MOVW.P 4(R8), R9
	ADD R1, R9
	MOVW.P 4(R8), R12
	ADD R2, R12
	WORD $0xf4a9080f // vld1.32 {d0[0]}, [r9]
	WORD $0xf4ac880f // vld1.32 {d8[0]}, [r12]
	WORD $0xf2400d18 // vmla.f32 d16, d0, d8
	SUB.S $1, R7
	BNE neon1tap
	MOVW A_mode(R4), R12
	CMP $0, R12
	BNE neon1int
	MOVW A_lo(R4), R9
	MOVW A_hi(R4), R12
	WORD $0xeea09b10 // vdup.32 q0, r9
	WORD $0xeea2cb10 // vdup.32 q1, r12
	WORD $0xf2400f80 // vmax.f32 d16, d16, d0
	WORD $0xf2600f82 // vmin.f32 d16, d16, d2
	B neon1store
neon1int:
	WORD $0xf3fb0720 // vcvt.s32.f32 d16, d16
	WORD $0xf4a3080f // vld1.32 {d0[0]}, [r3]
	WORD $0xf2600880 // vadd.i32 d16, d16, d0
neon1store:
	WORD $0xf4c0080f // vst1.32 {d16[0]}, [r0]
	MOVW A_dC(R4), R12
	ADD R12, R0
	MOVW A_xColStep(R4), R12
	ADD R12, R1
	SUB.S $1, R6
	BNE neon1col
	MOVW A_dAdv(R4), R12
	ADD R12, R0
	MOVW A_xAdv(R4), R12
	ADD R12, R1
	SUB.S $1, R5
	BNE neon1row
	RET
