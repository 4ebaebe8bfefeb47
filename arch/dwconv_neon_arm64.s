//go:build !purego

// ASIMD (NEON) depthwise convolution kernels for DepthwiseConvF32 and
// DepthwiseConvF32Int32 (modes 0 and 1 of dwArgs, dwconv.go): one block of
// 16, 4 or 1 channels (dwconv_arm64.go walks the blocks) for every output
// pixel of the rectangle, four pixels at a time and then one. Each pixel's
// sums stay in registers (V16-V31) while every tap adds its products, one
// load of the tap's weights serving the four pixels; FMLA fuses each
// multiply-add (within DepthwiseConvF32's tolerance; exact for the integer
// mode). Mode 0 starts at the float bias and clamps with FMAX/FMIN, mode 1
// starts at 0, truncates to int32 (FCVTZS) and adds the int32 bias. The
// one-channel block uses scalar loads (FMOVS, which zero the rest of the
// register), so nothing outside the block is read or written. The vector
// multiply-add, min/max and conversion instructions are WORDs, checked by
// TestARM64Words. Registers R18 and R26-R30 are not touched.

#include "textflag.h"

#define A_ROWS 0
#define A_COLS 8
#define A_C4 16
#define A_TH 24
#define A_TW 32
#define A_XROWSTEP 40
#define A_XCOLSTEP 48
#define A_XTAPROW 56
#define A_XTAPCOL 64
#define A_DROWSTEP 72
#define A_WTAPROW 80
#define A_MODE 88
#define A_DC 96

// func dwConvNEON16(dst *byte, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32)
//
// R0 output row, R1 input row, R2/R3/R8/R16 the pixels' input cursors,
// R4 a, R5 rows left, R6 pixels left in the row, R7 bytes per input
// pixel's channels (c4), R9 taps per row, R10 the tap row's input for
// the first pixel, R11-R13 input steps, R14 weight cursor, R15 weight
// tap-row step, R17/R24 scratch, R19 the pixel group's input, R20 its
// output, R21/R22 tap counters, R23 the tap row's weights; V0-V3
// weights, V4-V7 inputs, V8-V11 bias, V12/V13 lo/hi, V16-V31 sums.
TEXT ·dwConvNEON16(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), R0
	MOVD x+8(FP), R1
	MOVD a+32(FP), R4
	MOVWU lo+40(FP), R17
	VDUP R17, V12.S4
	MOVWU hi+44(FP), R17
	VDUP R17, V13.S4
	MOVD bias+24(FP), R17
	VLD1 (R17), [V8.S4, V9.S4, V10.S4, V11.S4]
	MOVD A_ROWS(R4), R5
	MOVD A_C4(R4), R7
	MOVD A_TW(R4), R9
	MOVD A_XCOLSTEP(R4), R11
	MOVD A_XTAPROW(R4), R12
	MOVD A_XTAPCOL(R4), R13
	MOVD A_WTAPROW(R4), R15

w16row:
	MOVD R1, R19
	MOVD R0, R20
	MOVD A_COLS(R4), R6

w16p4group:
	CMP $4, R6
	BLT w16p1group
	MOVD A_MODE(R4), R17
	CBNZ R17, w16p4zero
	VMOV V8.B16, V16.B16
	VMOV V9.B16, V17.B16
	VMOV V10.B16, V18.B16
	VMOV V11.B16, V19.B16
	VMOV V8.B16, V20.B16
	VMOV V9.B16, V21.B16
	VMOV V10.B16, V22.B16
	VMOV V11.B16, V23.B16
	VMOV V8.B16, V24.B16
	VMOV V9.B16, V25.B16
	VMOV V10.B16, V26.B16
	VMOV V11.B16, V27.B16
	VMOV V8.B16, V28.B16
	VMOV V9.B16, V29.B16
	VMOV V10.B16, V30.B16
	VMOV V11.B16, V31.B16
	B w16p4taps
w16p4zero:
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
w16p4taps:
	MOVD w+16(FP), R23
	MOVD R19, R10
	MOVD A_TH(R4), R21
w16p4ty:
	MOVD R10, R2
	ADD R11, R2, R3
	ADD R11, R3, R8
	ADD R11, R8, R16
	MOVD R23, R14
	MOVD R9, R22
w16p4tx:
	VLD1 (R14), [V0.S4, V1.S4, V2.S4, V3.S4]
	ADD R7, R14
	VLD1 (R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD R13, R2
	WORD $0x4e20cc90 // fmla v16.4s, v4.4s, v0.4s
	WORD $0x4e21ccb1 // fmla v17.4s, v5.4s, v1.4s
	WORD $0x4e22ccd2 // fmla v18.4s, v6.4s, v2.4s
	WORD $0x4e23ccf3 // fmla v19.4s, v7.4s, v3.4s
	VLD1 (R3), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD R13, R3
	WORD $0x4e20cc94 // fmla v20.4s, v4.4s, v0.4s
	WORD $0x4e21ccb5 // fmla v21.4s, v5.4s, v1.4s
	WORD $0x4e22ccd6 // fmla v22.4s, v6.4s, v2.4s
	WORD $0x4e23ccf7 // fmla v23.4s, v7.4s, v3.4s
	VLD1 (R8), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD R13, R8
	WORD $0x4e20cc98 // fmla v24.4s, v4.4s, v0.4s
	WORD $0x4e21ccb9 // fmla v25.4s, v5.4s, v1.4s
	WORD $0x4e22ccda // fmla v26.4s, v6.4s, v2.4s
	WORD $0x4e23ccfb // fmla v27.4s, v7.4s, v3.4s
	VLD1 (R16), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD R13, R16
	WORD $0x4e20cc9c // fmla v28.4s, v4.4s, v0.4s
	WORD $0x4e21ccbd // fmla v29.4s, v5.4s, v1.4s
	WORD $0x4e22ccde // fmla v30.4s, v6.4s, v2.4s
	WORD $0x4e23ccff // fmla v31.4s, v7.4s, v3.4s
	SUB $1, R22
	CBNZ R22, w16p4tx
	ADD R12, R10
	ADD R15, R23
	SUB $1, R21
	CBNZ R21, w16p4ty
	MOVD A_MODE(R4), R17
	CBNZ R17, w16p4int
	WORD $0x4e2cf610 // fmax v16.4s, v16.4s, v12.4s
	WORD $0x4eadf610 // fmin v16.4s, v16.4s, v13.4s
	WORD $0x4e2cf631 // fmax v17.4s, v17.4s, v12.4s
	WORD $0x4eadf631 // fmin v17.4s, v17.4s, v13.4s
	WORD $0x4e2cf652 // fmax v18.4s, v18.4s, v12.4s
	WORD $0x4eadf652 // fmin v18.4s, v18.4s, v13.4s
	WORD $0x4e2cf673 // fmax v19.4s, v19.4s, v12.4s
	WORD $0x4eadf673 // fmin v19.4s, v19.4s, v13.4s
	WORD $0x4e2cf694 // fmax v20.4s, v20.4s, v12.4s
	WORD $0x4eadf694 // fmin v20.4s, v20.4s, v13.4s
	WORD $0x4e2cf6b5 // fmax v21.4s, v21.4s, v12.4s
	WORD $0x4eadf6b5 // fmin v21.4s, v21.4s, v13.4s
	WORD $0x4e2cf6d6 // fmax v22.4s, v22.4s, v12.4s
	WORD $0x4eadf6d6 // fmin v22.4s, v22.4s, v13.4s
	WORD $0x4e2cf6f7 // fmax v23.4s, v23.4s, v12.4s
	WORD $0x4eadf6f7 // fmin v23.4s, v23.4s, v13.4s
	WORD $0x4e2cf718 // fmax v24.4s, v24.4s, v12.4s
	WORD $0x4eadf718 // fmin v24.4s, v24.4s, v13.4s
	WORD $0x4e2cf739 // fmax v25.4s, v25.4s, v12.4s
	WORD $0x4eadf739 // fmin v25.4s, v25.4s, v13.4s
	WORD $0x4e2cf75a // fmax v26.4s, v26.4s, v12.4s
	WORD $0x4eadf75a // fmin v26.4s, v26.4s, v13.4s
	WORD $0x4e2cf77b // fmax v27.4s, v27.4s, v12.4s
	WORD $0x4eadf77b // fmin v27.4s, v27.4s, v13.4s
	WORD $0x4e2cf79c // fmax v28.4s, v28.4s, v12.4s
	WORD $0x4eadf79c // fmin v28.4s, v28.4s, v13.4s
	WORD $0x4e2cf7bd // fmax v29.4s, v29.4s, v12.4s
	WORD $0x4eadf7bd // fmin v29.4s, v29.4s, v13.4s
	WORD $0x4e2cf7de // fmax v30.4s, v30.4s, v12.4s
	WORD $0x4eadf7de // fmin v30.4s, v30.4s, v13.4s
	WORD $0x4e2cf7ff // fmax v31.4s, v31.4s, v12.4s
	WORD $0x4eadf7ff // fmin v31.4s, v31.4s, v13.4s
	B w16p4store
w16p4int:
	WORD $0x4ea1ba10 // fcvtzs v16.4s, v16.4s
	VADD V8.S4, V16.S4, V16.S4
	WORD $0x4ea1ba31 // fcvtzs v17.4s, v17.4s
	VADD V9.S4, V17.S4, V17.S4
	WORD $0x4ea1ba52 // fcvtzs v18.4s, v18.4s
	VADD V10.S4, V18.S4, V18.S4
	WORD $0x4ea1ba73 // fcvtzs v19.4s, v19.4s
	VADD V11.S4, V19.S4, V19.S4
	WORD $0x4ea1ba94 // fcvtzs v20.4s, v20.4s
	VADD V8.S4, V20.S4, V20.S4
	WORD $0x4ea1bab5 // fcvtzs v21.4s, v21.4s
	VADD V9.S4, V21.S4, V21.S4
	WORD $0x4ea1bad6 // fcvtzs v22.4s, v22.4s
	VADD V10.S4, V22.S4, V22.S4
	WORD $0x4ea1baf7 // fcvtzs v23.4s, v23.4s
	VADD V11.S4, V23.S4, V23.S4
	WORD $0x4ea1bb18 // fcvtzs v24.4s, v24.4s
	VADD V8.S4, V24.S4, V24.S4
	WORD $0x4ea1bb39 // fcvtzs v25.4s, v25.4s
	VADD V9.S4, V25.S4, V25.S4
	WORD $0x4ea1bb5a // fcvtzs v26.4s, v26.4s
	VADD V10.S4, V26.S4, V26.S4
	WORD $0x4ea1bb7b // fcvtzs v27.4s, v27.4s
	VADD V11.S4, V27.S4, V27.S4
	WORD $0x4ea1bb9c // fcvtzs v28.4s, v28.4s
	VADD V8.S4, V28.S4, V28.S4
	WORD $0x4ea1bbbd // fcvtzs v29.4s, v29.4s
	VADD V9.S4, V29.S4, V29.S4
	WORD $0x4ea1bbde // fcvtzs v30.4s, v30.4s
	VADD V10.S4, V30.S4, V30.S4
	WORD $0x4ea1bbff // fcvtzs v31.4s, v31.4s
	VADD V11.S4, V31.S4, V31.S4
w16p4store:
	MOVD A_DC(R4), R17
	MOVD R20, R24
	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (R24)
	ADD R17, R24
	VST1 [V20.S4, V21.S4, V22.S4, V23.S4], (R24)
	ADD R17, R24
	VST1 [V24.S4, V25.S4, V26.S4, V27.S4], (R24)
	ADD R17, R24
	VST1 [V28.S4, V29.S4, V30.S4, V31.S4], (R24)
	ADD R17<<2, R20
	ADD R11<<2, R19
	SUB $4, R6
	B w16p4group

w16p1group:
	CBZ R6, w16rowdone
	MOVD A_MODE(R4), R17
	CBNZ R17, w16p1zero
	VMOV V8.B16, V16.B16
	VMOV V9.B16, V17.B16
	VMOV V10.B16, V18.B16
	VMOV V11.B16, V19.B16
	B w16p1taps
w16p1zero:
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
w16p1taps:
	MOVD w+16(FP), R23
	MOVD R19, R10
	MOVD A_TH(R4), R21
w16p1ty:
	MOVD R10, R2
	MOVD R23, R14
	MOVD R9, R22
w16p1tx:
	VLD1 (R14), [V0.S4, V1.S4, V2.S4, V3.S4]
	ADD R7, R14
	VLD1 (R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD R13, R2
	WORD $0x4e20cc90 // fmla v16.4s, v4.4s, v0.4s
	WORD $0x4e21ccb1 // fmla v17.4s, v5.4s, v1.4s
	WORD $0x4e22ccd2 // fmla v18.4s, v6.4s, v2.4s
	WORD $0x4e23ccf3 // fmla v19.4s, v7.4s, v3.4s
	SUB $1, R22
	CBNZ R22, w16p1tx
	ADD R12, R10
	ADD R15, R23
	SUB $1, R21
	CBNZ R21, w16p1ty
	MOVD A_MODE(R4), R17
	CBNZ R17, w16p1int
	WORD $0x4e2cf610 // fmax v16.4s, v16.4s, v12.4s
	WORD $0x4eadf610 // fmin v16.4s, v16.4s, v13.4s
	WORD $0x4e2cf631 // fmax v17.4s, v17.4s, v12.4s
	WORD $0x4eadf631 // fmin v17.4s, v17.4s, v13.4s
	WORD $0x4e2cf652 // fmax v18.4s, v18.4s, v12.4s
	WORD $0x4eadf652 // fmin v18.4s, v18.4s, v13.4s
	WORD $0x4e2cf673 // fmax v19.4s, v19.4s, v12.4s
	WORD $0x4eadf673 // fmin v19.4s, v19.4s, v13.4s
	B w16p1store
w16p1int:
	WORD $0x4ea1ba10 // fcvtzs v16.4s, v16.4s
	VADD V8.S4, V16.S4, V16.S4
	WORD $0x4ea1ba31 // fcvtzs v17.4s, v17.4s
	VADD V9.S4, V17.S4, V17.S4
	WORD $0x4ea1ba52 // fcvtzs v18.4s, v18.4s
	VADD V10.S4, V18.S4, V18.S4
	WORD $0x4ea1ba73 // fcvtzs v19.4s, v19.4s
	VADD V11.S4, V19.S4, V19.S4
w16p1store:
	MOVD A_DC(R4), R17
	MOVD R20, R24
	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (R24)
	ADD R17, R20
	ADD R11, R19
	SUB $1, R6
	B w16p1group

w16rowdone:
	MOVD A_DROWSTEP(R4), R17
	ADD R17, R0
	MOVD A_XROWSTEP(R4), R17
	ADD R17, R1
	SUB $1, R5
	CBNZ R5, w16row
	RET

// func dwConvNEON4(dst *byte, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32)
//
// R0 output row, R1 input row, R2/R3/R8/R16 the pixels' input cursors,
// R4 a, R5 rows left, R6 pixels left in the row, R7 bytes per input
// pixel's channels (c4), R9 taps per row, R10 the tap row's input for
// the first pixel, R11-R13 input steps, R14 weight cursor, R15 weight
// tap-row step, R17/R24 scratch, R19 the pixel group's input, R20 its
// output, R21/R22 tap counters, R23 the tap row's weights; V0-V3
// weights, V4-V7 inputs, V8-V11 bias, V12/V13 lo/hi, V16-V31 sums.
TEXT ·dwConvNEON4(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), R0
	MOVD x+8(FP), R1
	MOVD a+32(FP), R4
	MOVWU lo+40(FP), R17
	VDUP R17, V12.S4
	MOVWU hi+44(FP), R17
	VDUP R17, V13.S4
	MOVD bias+24(FP), R17
	VLD1 (R17), [V8.S4]
	MOVD A_ROWS(R4), R5
	MOVD A_C4(R4), R7
	MOVD A_TW(R4), R9
	MOVD A_XCOLSTEP(R4), R11
	MOVD A_XTAPROW(R4), R12
	MOVD A_XTAPCOL(R4), R13
	MOVD A_WTAPROW(R4), R15

w4row:
	MOVD R1, R19
	MOVD R0, R20
	MOVD A_COLS(R4), R6

w4p4group:
	CMP $4, R6
	BLT w4p1group
	MOVD A_MODE(R4), R17
	CBNZ R17, w4p4zero
	VMOV V8.B16, V16.B16
	VMOV V8.B16, V17.B16
	VMOV V8.B16, V18.B16
	VMOV V8.B16, V19.B16
	B w4p4taps
w4p4zero:
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
w4p4taps:
	MOVD w+16(FP), R23
	MOVD R19, R10
	MOVD A_TH(R4), R21
w4p4ty:
	MOVD R10, R2
	ADD R11, R2, R3
	ADD R11, R3, R8
	ADD R11, R8, R16
	MOVD R23, R14
	MOVD R9, R22
w4p4tx:
	VLD1 (R14), [V0.S4]
	ADD R7, R14
	VLD1 (R2), [V4.S4]
	ADD R13, R2
	WORD $0x4e20cc90 // fmla v16.4s, v4.4s, v0.4s
	VLD1 (R3), [V4.S4]
	ADD R13, R3
	WORD $0x4e20cc91 // fmla v17.4s, v4.4s, v0.4s
	VLD1 (R8), [V4.S4]
	ADD R13, R8
	WORD $0x4e20cc92 // fmla v18.4s, v4.4s, v0.4s
	VLD1 (R16), [V4.S4]
	ADD R13, R16
	WORD $0x4e20cc93 // fmla v19.4s, v4.4s, v0.4s
	SUB $1, R22
	CBNZ R22, w4p4tx
	ADD R12, R10
	ADD R15, R23
	SUB $1, R21
	CBNZ R21, w4p4ty
	MOVD A_MODE(R4), R17
	CBNZ R17, w4p4int
	WORD $0x4e2cf610 // fmax v16.4s, v16.4s, v12.4s
	WORD $0x4eadf610 // fmin v16.4s, v16.4s, v13.4s
	WORD $0x4e2cf631 // fmax v17.4s, v17.4s, v12.4s
	WORD $0x4eadf631 // fmin v17.4s, v17.4s, v13.4s
	WORD $0x4e2cf652 // fmax v18.4s, v18.4s, v12.4s
	WORD $0x4eadf652 // fmin v18.4s, v18.4s, v13.4s
	WORD $0x4e2cf673 // fmax v19.4s, v19.4s, v12.4s
	WORD $0x4eadf673 // fmin v19.4s, v19.4s, v13.4s
	B w4p4store
w4p4int:
	WORD $0x4ea1ba10 // fcvtzs v16.4s, v16.4s
	VADD V8.S4, V16.S4, V16.S4
	WORD $0x4ea1ba31 // fcvtzs v17.4s, v17.4s
	VADD V8.S4, V17.S4, V17.S4
	WORD $0x4ea1ba52 // fcvtzs v18.4s, v18.4s
	VADD V8.S4, V18.S4, V18.S4
	WORD $0x4ea1ba73 // fcvtzs v19.4s, v19.4s
	VADD V8.S4, V19.S4, V19.S4
w4p4store:
	MOVD A_DC(R4), R17
	MOVD R20, R24
	VST1 [V16.S4], (R24)
	ADD R17, R24
	VST1 [V17.S4], (R24)
	ADD R17, R24
	VST1 [V18.S4], (R24)
	ADD R17, R24
	VST1 [V19.S4], (R24)
	ADD R17<<2, R20
	ADD R11<<2, R19
	SUB $4, R6
	B w4p4group

w4p1group:
	CBZ R6, w4rowdone
	MOVD A_MODE(R4), R17
	CBNZ R17, w4p1zero
	VMOV V8.B16, V16.B16
	B w4p1taps
w4p1zero:
	VEOR V16.B16, V16.B16, V16.B16
w4p1taps:
	MOVD w+16(FP), R23
	MOVD R19, R10
	MOVD A_TH(R4), R21
w4p1ty:
	MOVD R10, R2
	MOVD R23, R14
	MOVD R9, R22
w4p1tx:
	VLD1 (R14), [V0.S4]
	ADD R7, R14
	VLD1 (R2), [V4.S4]
	ADD R13, R2
	WORD $0x4e20cc90 // fmla v16.4s, v4.4s, v0.4s
	SUB $1, R22
	CBNZ R22, w4p1tx
	ADD R12, R10
	ADD R15, R23
	SUB $1, R21
	CBNZ R21, w4p1ty
	MOVD A_MODE(R4), R17
	CBNZ R17, w4p1int
	WORD $0x4e2cf610 // fmax v16.4s, v16.4s, v12.4s
	WORD $0x4eadf610 // fmin v16.4s, v16.4s, v13.4s
	B w4p1store
w4p1int:
	WORD $0x4ea1ba10 // fcvtzs v16.4s, v16.4s
	VADD V8.S4, V16.S4, V16.S4
w4p1store:
	MOVD A_DC(R4), R17
	MOVD R20, R24
	VST1 [V16.S4], (R24)
	ADD R17, R20
	ADD R11, R19
	SUB $1, R6
	B w4p1group

w4rowdone:
	MOVD A_DROWSTEP(R4), R17
	ADD R17, R0
	MOVD A_XROWSTEP(R4), R17
	ADD R17, R1
	SUB $1, R5
	CBNZ R5, w4row
	RET

// func dwConvNEON1(dst *byte, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32)
//
// R0 output row, R1 input row, R2/R3/R8/R16 the pixels' input cursors,
// R4 a, R5 rows left, R6 pixels left in the row, R7 bytes per input
// pixel's channels (c4), R9 taps per row, R10 the tap row's input for
// the first pixel, R11-R13 input steps, R14 weight cursor, R15 weight
// tap-row step, R17/R24 scratch, R19 the pixel group's input, R20 its
// output, R21/R22 tap counters, R23 the tap row's weights; V0-V3
// weights, V4-V7 inputs, V8-V11 bias, V12/V13 lo/hi, V16-V31 sums.
TEXT ·dwConvNEON1(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), R0
	MOVD x+8(FP), R1
	MOVD a+32(FP), R4
	MOVWU lo+40(FP), R17
	VDUP R17, V12.S4
	MOVWU hi+44(FP), R17
	VDUP R17, V13.S4
	MOVD bias+24(FP), R17
	FMOVS (R17), F8
	MOVD A_ROWS(R4), R5
	MOVD A_C4(R4), R7
	MOVD A_TW(R4), R9
	MOVD A_XCOLSTEP(R4), R11
	MOVD A_XTAPROW(R4), R12
	MOVD A_XTAPCOL(R4), R13
	MOVD A_WTAPROW(R4), R15

w1row:
	MOVD R1, R19
	MOVD R0, R20
	MOVD A_COLS(R4), R6

w1p4group:
	CMP $4, R6
	BLT w1p1group
	MOVD A_MODE(R4), R17
	CBNZ R17, w1p4zero
	VMOV V8.B16, V16.B16
	VMOV V8.B16, V17.B16
	VMOV V8.B16, V18.B16
	VMOV V8.B16, V19.B16
	B w1p4taps
w1p4zero:
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
w1p4taps:
	MOVD w+16(FP), R23
	MOVD R19, R10
	MOVD A_TH(R4), R21
w1p4ty:
	MOVD R10, R2
	ADD R11, R2, R3
	ADD R11, R3, R8
	ADD R11, R8, R16
	MOVD R23, R14
	MOVD R9, R22
w1p4tx:
	FMOVS (R14), F0
	ADD R7, R14
	FMOVS (R2), F4
	ADD R13, R2
	WORD $0x4e20cc90 // fmla v16.4s, v4.4s, v0.4s
	FMOVS (R3), F4
	ADD R13, R3
	WORD $0x4e20cc91 // fmla v17.4s, v4.4s, v0.4s
	FMOVS (R8), F4
	ADD R13, R8
	WORD $0x4e20cc92 // fmla v18.4s, v4.4s, v0.4s
	FMOVS (R16), F4
	ADD R13, R16
	WORD $0x4e20cc93 // fmla v19.4s, v4.4s, v0.4s
	SUB $1, R22
	CBNZ R22, w1p4tx
	ADD R12, R10
	ADD R15, R23
	SUB $1, R21
	CBNZ R21, w1p4ty
	MOVD A_MODE(R4), R17
	CBNZ R17, w1p4int
	WORD $0x4e2cf610 // fmax v16.4s, v16.4s, v12.4s
	WORD $0x4eadf610 // fmin v16.4s, v16.4s, v13.4s
	WORD $0x4e2cf631 // fmax v17.4s, v17.4s, v12.4s
	WORD $0x4eadf631 // fmin v17.4s, v17.4s, v13.4s
	WORD $0x4e2cf652 // fmax v18.4s, v18.4s, v12.4s
	WORD $0x4eadf652 // fmin v18.4s, v18.4s, v13.4s
	WORD $0x4e2cf673 // fmax v19.4s, v19.4s, v12.4s
	WORD $0x4eadf673 // fmin v19.4s, v19.4s, v13.4s
	B w1p4store
w1p4int:
	WORD $0x4ea1ba10 // fcvtzs v16.4s, v16.4s
	VADD V8.S4, V16.S4, V16.S4
	WORD $0x4ea1ba31 // fcvtzs v17.4s, v17.4s
	VADD V8.S4, V17.S4, V17.S4
	WORD $0x4ea1ba52 // fcvtzs v18.4s, v18.4s
	VADD V8.S4, V18.S4, V18.S4
	WORD $0x4ea1ba73 // fcvtzs v19.4s, v19.4s
	VADD V8.S4, V19.S4, V19.S4
w1p4store:
	MOVD A_DC(R4), R17
	MOVD R20, R24
	FMOVS F16, (R24)
	ADD R17, R24
	FMOVS F17, (R24)
	ADD R17, R24
	FMOVS F18, (R24)
	ADD R17, R24
	FMOVS F19, (R24)
	ADD R17<<2, R20
	ADD R11<<2, R19
	SUB $4, R6
	B w1p4group

w1p1group:
	CBZ R6, w1rowdone
	MOVD A_MODE(R4), R17
	CBNZ R17, w1p1zero
	VMOV V8.B16, V16.B16
	B w1p1taps
w1p1zero:
	VEOR V16.B16, V16.B16, V16.B16
w1p1taps:
	MOVD w+16(FP), R23
	MOVD R19, R10
	MOVD A_TH(R4), R21
w1p1ty:
	MOVD R10, R2
	MOVD R23, R14
	MOVD R9, R22
w1p1tx:
	FMOVS (R14), F0
	ADD R7, R14
	FMOVS (R2), F4
	ADD R13, R2
	WORD $0x4e20cc90 // fmla v16.4s, v4.4s, v0.4s
	SUB $1, R22
	CBNZ R22, w1p1tx
	ADD R12, R10
	ADD R15, R23
	SUB $1, R21
	CBNZ R21, w1p1ty
	MOVD A_MODE(R4), R17
	CBNZ R17, w1p1int
	WORD $0x4e2cf610 // fmax v16.4s, v16.4s, v12.4s
	WORD $0x4eadf610 // fmin v16.4s, v16.4s, v13.4s
	B w1p1store
w1p1int:
	WORD $0x4ea1ba10 // fcvtzs v16.4s, v16.4s
	VADD V8.S4, V16.S4, V16.S4
w1p1store:
	MOVD A_DC(R4), R17
	MOVD R20, R24
	FMOVS F16, (R24)
	ADD R17, R20
	ADD R11, R19
	SUB $1, R6
	B w1p1group

w1rowdone:
	MOVD A_DROWSTEP(R4), R17
	ADD R17, R0
	MOVD A_XROWSTEP(R4), R17
	ADD R17, R1
	SUB $1, R5
	CBNZ R5, w1row
	RET

