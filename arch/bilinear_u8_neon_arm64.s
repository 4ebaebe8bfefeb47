//go:build !purego

// ASIMD (NEON) BilinearU8 and BilinearRowU8 (see bilinear.go): the bytes
// widened (UXTL twice) and converted (UCVTF, exact), FMUL by element and
// FADD in the portable code's order (the running sum FADD's first
// operand; no FMLA, which would fuse), + 0.5, FCVTZS (truncation, as
// CVTTSS2SI for every sum in the int32 range), and the low byte of each
// lane (XTN, XTN2, XTN: truncating narrows). Eight channels per step; the
// instructions Go's assembler lacks are WORDs checked by TestARM64Words.

#include "textflag.h"

// BLEND8: V4 (its low eight bytes) = the eight channels of the sources
// loaded into V0-V3 (low eight bytes each), with the weights in lane 0 of
// V20-V23 and 0.5 in every lane of V31. Scratch V5-V7, V16-V19.
#define BLEND8 \
	WORD $0x2f08a400 /* uxtl v0.8h, v0.8b */ \
	WORD $0x2f08a421 /* uxtl v1.8h, v1.8b */ \
	WORD $0x2f08a442 /* uxtl v2.8h, v2.8b */ \
	WORD $0x2f08a463 /* uxtl v3.8h, v3.8b */ \
	WORD $0x2f10a404 /* uxtl v4.4s, v0.4h */ \
	WORD $0x6f10a405 /* uxtl2 v5.4s, v0.8h */ \
	WORD $0x2f10a426 /* uxtl v6.4s, v1.4h */ \
	WORD $0x6f10a427 /* uxtl2 v7.4s, v1.8h */ \
	WORD $0x2f10a450 /* uxtl v16.4s, v2.4h */ \
	WORD $0x6f10a451 /* uxtl2 v17.4s, v2.8h */ \
	WORD $0x2f10a472 /* uxtl v18.4s, v3.4h */ \
	WORD $0x6f10a473 /* uxtl2 v19.4s, v3.8h */ \
	WORD $0x6e21d884 /* ucvtf v4.4s, v4.4s */ \
	WORD $0x6e21d8a5 /* ucvtf v5.4s, v5.4s */ \
	WORD $0x6e21d8c6 /* ucvtf v6.4s, v6.4s */ \
	WORD $0x6e21d8e7 /* ucvtf v7.4s, v7.4s */ \
	WORD $0x6e21da10 /* ucvtf v16.4s, v16.4s */ \
	WORD $0x6e21da31 /* ucvtf v17.4s, v17.4s */ \
	WORD $0x6e21da52 /* ucvtf v18.4s, v18.4s */ \
	WORD $0x6e21da73 /* ucvtf v19.4s, v19.4s */ \
	WORD $0x4f949084 /* fmul v4.4s, v4.4s, v20.s[0] */ \
	WORD $0x4f9490a5 /* fmul v5.4s, v5.4s, v20.s[0] */ \
	WORD $0x4f9590c6 /* fmul v6.4s, v6.4s, v21.s[0] */ \
	WORD $0x4f9590e7 /* fmul v7.4s, v7.4s, v21.s[0] */ \
	WORD $0x4e26d484 /* fadd v4.4s, v4.4s, v6.4s */ \
	WORD $0x4e27d4a5 /* fadd v5.4s, v5.4s, v7.4s */ \
	WORD $0x4f969210 /* fmul v16.4s, v16.4s, v22.s[0] */ \
	WORD $0x4f969231 /* fmul v17.4s, v17.4s, v22.s[0] */ \
	WORD $0x4e30d484 /* fadd v4.4s, v4.4s, v16.4s */ \
	WORD $0x4e31d4a5 /* fadd v5.4s, v5.4s, v17.4s */ \
	WORD $0x4f979252 /* fmul v18.4s, v18.4s, v23.s[0] */ \
	WORD $0x4f979273 /* fmul v19.4s, v19.4s, v23.s[0] */ \
	WORD $0x4e32d484 /* fadd v4.4s, v4.4s, v18.4s */ \
	WORD $0x4e33d4a5 /* fadd v5.4s, v5.4s, v19.4s */ \
	WORD $0x4e3fd484 /* fadd v4.4s, v4.4s, v31.4s */ \
	WORD $0x4e3fd4a5 /* fadd v5.4s, v5.4s, v31.4s */ \
	WORD $0x4ea1b884 /* fcvtzs v4.4s, v4.4s */ \
	WORD $0x4ea1b8a5 /* fcvtzs v5.4s, v5.4s */ \
	WORD $0x0e612884 /* xtn v4.4h, v4.4s */ \
	WORD $0x4e6128a4 /* xtn2 v4.8h, v5.4s */ \
	WORD $0x0e212884 /* xtn v4.8b, v4.8h */

// BLEND1: lane 0 of V4 = the channel whose bytes are in lane 0 of V0-V3
// (as 32-bit values), as BLEND8 computes it.
#define BLEND1 \
	WORD $0x6e21d804 /* ucvtf v4.4s, v0.4s */ \
	WORD $0x6e21d826 /* ucvtf v6.4s, v1.4s */ \
	WORD $0x6e21d850 /* ucvtf v16.4s, v2.4s */ \
	WORD $0x6e21d872 /* ucvtf v18.4s, v3.4s */ \
	WORD $0x4f949084 /* fmul v4.4s, v4.4s, v20.s[0] */ \
	WORD $0x4f9590c6 /* fmul v6.4s, v6.4s, v21.s[0] */ \
	WORD $0x4e26d484 /* fadd v4.4s, v4.4s, v6.4s */ \
	WORD $0x4f969210 /* fmul v16.4s, v16.4s, v22.s[0] */ \
	WORD $0x4e30d484 /* fadd v4.4s, v4.4s, v16.4s */ \
	WORD $0x4f979252 /* fmul v18.4s, v18.4s, v23.s[0] */ \
	WORD $0x4e32d484 /* fadd v4.4s, v4.4s, v18.4s */ \
	WORD $0x4e3fd484 /* fadd v4.4s, v4.4s, v31.4s */ \
	WORD $0x4ea1b884 /* fcvtzs v4.4s, v4.4s */

// LOAD8: the next eight bytes of each source (R9-R12, advanced).
#define LOAD8 \
	VLD1.P 8(R9), [V0.B8]  \
	VLD1.P 8(R10), [V1.B8] \
	VLD1.P 8(R11), [V2.B8] \
	VLD1.P 8(R12), [V3.B8]

// func bilinearU8NEON(dst, p00, p01, p10, p11 []byte, w *[4]float32)
//
// R0 dst, R9-R12 p00, p01, p10, p11, R6 len; with len < 8, one channel
// at a time (byte loads and stores), so no access goes beyond the
// slices.
TEXT ·bilinearU8NEON(SB), NOSPLIT, $0-128
	MOVD   dst_base+0(FP), R0
	MOVD   dst_len+8(FP), R6
	MOVD   p00_base+24(FP), R9
	MOVD   p01_base+48(FP), R10
	MOVD   p10_base+72(FP), R11
	MOVD   p11_base+96(FP), R12
	MOVD   w+120(FP), R7
	VLD1   (R7), [V20.S4]
	VDUP   V20.S[1], V21.S4
	VDUP   V20.S[2], V22.S4
	VDUP   V20.S[3], V23.S4
	FMOVS  $0.5, F31
	VDUP   V31.S[0], V31.S4
	CBZ    R6, done
	CMP    $8, R6
	BLT    loop1
	// The R6 >= 8 channels at R9-R12 into R0 (all advanced by R6):
	// eight per step, then the eight ending at R6 (dst does not overlap
	// the sources, so channels done twice get the same bytes).
	LSR    $3, R6, R13
	AND    $7, R6, R14

ploop8:
	LOAD8
	BLEND8
	VST1.P [V4.B8], 8(R0)
	SUB    $1, R13
	CBNZ   R13, ploop8
	CBZ    R14, done
	SUB    $8, R14, R14
	ADD    R14, R9, R9
	ADD    R14, R10, R10
	ADD    R14, R11, R11
	ADD    R14, R12, R12
	ADD    R14, R0, R0
	LOAD8
	BLEND8
	VST1.P [V4.B8], 8(R0)
	RET

loop1:
	MOVBU.P 1(R9), R7
	VMOV    R7, V0.S[0]
	MOVBU.P 1(R10), R7
	VMOV    R7, V1.S[0]
	MOVBU.P 1(R11), R7
	VMOV    R7, V2.S[0]
	MOVBU.P 1(R12), R7
	VMOV    R7, V3.S[0]
	BLEND1
	VMOV    V4.S[0], R7
	MOVB.P  R7, 1(R0)
	SUB     $1, R6
	CBNZ    R6, loop1

done:
	RET

// func bilinearRowU8NEONAsm(dst, row0, row1 *byte, off *int32, fx *float32, n, d int, fy float32)
//
// BilinearRowU8 for n >= 1 columns of d >= 8 channels: per column, the
// source pointers from the offset pair at R3, the four weights as FSUBS
// and FMULS in the portable order (lane 0 of V20-V23), then the channels
// as in bilinearU8NEON. R1 row0, R2 row1, R4 fx, R5 columns left; F28
// 1.0, F29 fy, F30 1 − fy.
TEXT ·bilinearRowU8NEONAsm(SB), NOSPLIT, $0-60
	MOVD  dst+0(FP), R0
	MOVD  row0+8(FP), R1
	MOVD  row1+16(FP), R2
	MOVD  off+24(FP), R3
	MOVD  fx+32(FP), R4
	MOVD  n+40(FP), R5
	MOVD  d+48(FP), R6
	FMOVS fy+56(FP), F29
	FMOVS $1.0, F28
	FSUBS F29, F28, F30
	FMOVS $0.5, F31
	VDUP  V31.S[0], V31.S4

column:
	MOVW.P 4(R3), R7
	MOVW.P 4(R3), R8
	ADD    R7, R1, R9
	ADD    R8, R1, R10
	ADD    R7, R2, R11
	ADD    R8, R2, R12
	FMOVS.P 4(R4), F24
	FSUBS  F24, F28, F25
	FMULS  F25, F30, F20
	FMULS  F24, F30, F21
	FMULS  F25, F29, F22
	FMULS  F24, F29, F23
	// The R6 >= 8 channels at R9-R12 into R0 (all advanced by R6):
	// eight per step, then the eight ending at R6 (dst does not overlap
	// the sources, so channels done twice get the same bytes).
	LSR    $3, R6, R13
	AND    $7, R6, R14

rloop8:
	LOAD8
	BLEND8
	VST1.P [V4.B8], 8(R0)
	SUB    $1, R13
	CBNZ   R13, rloop8
	CBZ    R14, next
	SUB    $8, R14, R14
	ADD    R14, R9, R9
	ADD    R14, R10, R10
	ADD    R14, R11, R11
	ADD    R14, R12, R12
	ADD    R14, R0, R0
	LOAD8
	BLEND8
	VST1.P [V4.B8], 8(R0)

next:
	SUB    $1, R5
	CBNZ   R5, column
	RET
