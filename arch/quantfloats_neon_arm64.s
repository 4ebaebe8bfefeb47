//go:build !purego

// ASIMD (NEON) twins of the hybrid kernels' quantisation steps (see
// quantfloats.go), each giving the portable code's bits:
//
//   - MinMaxF32 keeps lane-wise FMIN and FMAX, which propagate a NaN, so
//     x holds a NaN exactly when the reduced minimum is NaN.
//   - ScaleRoundInt8 forms y with FMUL then FADD (each rounded, no FMLA),
//     rounds it half away from zero with FRINTA and converts it with
//     FCVTZS; its saturation (NaN → 0, y ≥ 2^31 → INT32_MAX, -Inf →
//     INT32_MIN) is overridden as x86's conversion gives it: a lane where
//     2^31 > y fails (NaN, y ≥ 2^31) takes lo through BIF, the others are
//     clamped with SMAX/SMIN (the rounding is monotone and lo, hi are
//     integers, so y ≤ lo gives lo and y ≥ hi gives hi).
//   - DequantRowsF32 is SUB, SCVTF, FMUL and FADD, each rounded.
//   - MulAccOffsetInt8 widens x − zp with SSUBL (exact in int16 for
//     zp within [-128, 127]) and accumulates with SMLAL, which wraps.
//
// Sixteen values per step, then four (eight for MulAccOffsetInt8), then
// one at a time (through S registers, where a scalar load clears the
// other lanes and their results are not stored; MulAccOffsetInt8's last
// ones in general registers), so no access goes beyond the slices.
// The ASIMD instructions Go's assembler lacks are WORDs checked by
// TestARM64Words.

#include "textflag.h"

// MINMAX_k: V0 = min(V0, Vk), V1 = max(V1, Vk), NaN propagating.
#define MINMAX_2 \
	WORD $0x4ea2f400 /* fmin v0.4s, v0.4s, v2.4s */ \
	WORD $0x4e22f421 /* fmax v1.4s, v1.4s, v2.4s */

#define MINMAX_3 \
	WORD $0x4ea3f400 /* fmin v0.4s, v0.4s, v3.4s */ \
	WORD $0x4e23f421 /* fmax v1.4s, v1.4s, v3.4s */

#define MINMAX_4 \
	WORD $0x4ea4f400 /* fmin v0.4s, v0.4s, v4.4s */ \
	WORD $0x4e24f421 /* fmax v1.4s, v1.4s, v4.4s */

#define MINMAX_5 \
	WORD $0x4ea5f400 /* fmin v0.4s, v0.4s, v5.4s */ \
	WORD $0x4e25f421 /* fmax v1.4s, v1.4s, v5.4s */

// ROUND_k: Vk = the int32 of y = zp + Vk·inv (FMUL then FADD) as
// roundClampF32Int8 gives it, with V(k+4) as the mask.
#define ROUND_0 \
	WORD $0x6e3cdc00 /* fmul v0.4s, v0.4s, v28.4s */ \
	WORD $0x4e20d7a0 /* fadd v0.4s, v29.4s, v0.4s */ \
	WORD $0x6ea0e764 /* fcmgt v4.4s, v27.4s, v0.4s */ \
	WORD $0x6e218800 /* frinta v0.4s, v0.4s */ \
	WORD $0x4ea1b800 /* fcvtzs v0.4s, v0.4s */ \
	WORD $0x4ebe6400 /* smax v0.4s, v0.4s, v30.4s */ \
	WORD $0x4ebf6c00 /* smin v0.4s, v0.4s, v31.4s */ \
	WORD $0x6ee41fc0 /* bif v0.16b, v30.16b, v4.16b */

#define ROUND_1 \
	WORD $0x6e3cdc21 /* fmul v1.4s, v1.4s, v28.4s */ \
	WORD $0x4e21d7a1 /* fadd v1.4s, v29.4s, v1.4s */ \
	WORD $0x6ea1e765 /* fcmgt v5.4s, v27.4s, v1.4s */ \
	WORD $0x6e218821 /* frinta v1.4s, v1.4s */ \
	WORD $0x4ea1b821 /* fcvtzs v1.4s, v1.4s */ \
	WORD $0x4ebe6421 /* smax v1.4s, v1.4s, v30.4s */ \
	WORD $0x4ebf6c21 /* smin v1.4s, v1.4s, v31.4s */ \
	WORD $0x6ee51fc1 /* bif v1.16b, v30.16b, v5.16b */

#define ROUND_2 \
	WORD $0x6e3cdc42 /* fmul v2.4s, v2.4s, v28.4s */ \
	WORD $0x4e22d7a2 /* fadd v2.4s, v29.4s, v2.4s */ \
	WORD $0x6ea2e766 /* fcmgt v6.4s, v27.4s, v2.4s */ \
	WORD $0x6e218842 /* frinta v2.4s, v2.4s */ \
	WORD $0x4ea1b842 /* fcvtzs v2.4s, v2.4s */ \
	WORD $0x4ebe6442 /* smax v2.4s, v2.4s, v30.4s */ \
	WORD $0x4ebf6c42 /* smin v2.4s, v2.4s, v31.4s */ \
	WORD $0x6ee61fc2 /* bif v2.16b, v30.16b, v6.16b */

#define ROUND_3 \
	WORD $0x6e3cdc63 /* fmul v3.4s, v3.4s, v28.4s */ \
	WORD $0x4e23d7a3 /* fadd v3.4s, v29.4s, v3.4s */ \
	WORD $0x6ea3e767 /* fcmgt v7.4s, v27.4s, v3.4s */ \
	WORD $0x6e218863 /* frinta v3.4s, v3.4s */ \
	WORD $0x4ea1b863 /* fcvtzs v3.4s, v3.4s */ \
	WORD $0x4ebe6463 /* smax v3.4s, v3.4s, v30.4s */ \
	WORD $0x4ebf6c63 /* smin v3.4s, v3.4s, v31.4s */ \
	WORD $0x6ee71fc3 /* bif v3.16b, v30.16b, v7.16b */

// DEQ_k: Vk = float32(Vk − V(k+4)) · V(k+16), DEQB_k then + V(k+20).
#define DEQ_0 \
	WORD $0x6ea48400 /* sub v0.4s, v0.4s, v4.4s */ \
	WORD $0x4e21d800 /* scvtf v0.4s, v0.4s */ \
	WORD $0x6e30dc00 /* fmul v0.4s, v0.4s, v16.4s */

#define DEQB_0 \
	WORD $0x4e34d400 /* fadd v0.4s, v0.4s, v20.4s */

#define DEQ_1 \
	WORD $0x6ea58421 /* sub v1.4s, v1.4s, v5.4s */ \
	WORD $0x4e21d821 /* scvtf v1.4s, v1.4s */ \
	WORD $0x6e31dc21 /* fmul v1.4s, v1.4s, v17.4s */

#define DEQB_1 \
	WORD $0x4e35d421 /* fadd v1.4s, v1.4s, v21.4s */

#define DEQ_2 \
	WORD $0x6ea68442 /* sub v2.4s, v2.4s, v6.4s */ \
	WORD $0x4e21d842 /* scvtf v2.4s, v2.4s */ \
	WORD $0x6e32dc42 /* fmul v2.4s, v2.4s, v18.4s */

#define DEQB_2 \
	WORD $0x4e36d442 /* fadd v2.4s, v2.4s, v22.4s */

#define DEQ_3 \
	WORD $0x6ea78463 /* sub v3.4s, v3.4s, v7.4s */ \
	WORD $0x4e21d863 /* scvtf v3.4s, v3.4s */ \
	WORD $0x6e33dc63 /* fmul v3.4s, v3.4s, v19.4s */

#define DEQB_3 \
	WORD $0x4e37d463 /* fadd v3.4s, v3.4s, v23.4s */

// func minMaxF32NEON(x []float32) (lo, hi float32, nan bool)
//
// len(x) ≥ 1. V0 minimum, V1 maximum, both starting at x[0] in every
// lane; R0 cursor, R1 length, R2 step counter.
TEXT ·minMaxF32NEON(SB), NOSPLIT, $0-33
	MOVD  x_base+0(FP), R0
	MOVD  x_len+8(FP), R1
	VLD1R (R0), [V0.S4]
	VMOV  V0.B16, V1.B16
	LSR   $4, R1, R2
	CBZ   R2, m4

m16:
	VLD1.P 64(R0), [V2.S4, V3.S4, V4.S4, V5.S4]
	MINMAX_2
	MINMAX_3
	MINMAX_4
	MINMAX_5
	SUB    $1, R2
	CBNZ   R2, m16

m4:
	UBFX $2, R1, $2, R2
	CBZ  R2, mreduce

m4loop:
	VLD1.P 16(R0), [V2.S4]
	MINMAX_2
	SUB    $1, R2
	CBNZ   R2, m4loop

mreduce:
	WORD $0x6eb0f800 // fminv s0, v0.4s
	WORD $0x6e30f821 // fmaxv s1, v1.4s
	AND  $3, R1, R2
	CBZ  R2, mdone

m1loop:
	FMOVS.P 4(R0), F2
	WORD    $0x1e225800 // fmin s0, s0, s2
	WORD    $0x1e224821 // fmax s1, s1, s2
	SUB     $1, R2
	CBNZ    R2, m1loop

mdone:
	FCMPS F0, F0
	BVS   mnan
	FMOVS F0, lo+24(FP)
	FMOVS F1, hi+28(FP)
	MOVB  ZR, nan+32(FP)
	RET

mnan:
	MOVW ZR, lo+24(FP)
	MOVW ZR, hi+28(FP)
	MOVD $1, R3
	MOVB R3, nan+32(FP)
	RET

// func scaleRoundInt8NEON(dst []int8, x []float32, inv, zp float32, lo, hi int32)
//
// inv in V28, zp in V29, lo in V30 and hi in V31 (int32 lanes), 2^31 in
// V27; R0 dst cursor, R1 x cursor, R2 length, R4 step counter.
TEXT ·scaleRoundInt8NEON(SB), NOSPLIT, $0-64
	MOVD  dst_base+0(FP), R0
	MOVD  x_base+24(FP), R1
	MOVD  x_len+32(FP), R2
	MOVWU inv+48(FP), R3
	VDUP  R3, V28.S4
	MOVWU zp+52(FP), R3
	VDUP  R3, V29.S4
	MOVWU lo+56(FP), R3
	VDUP  R3, V30.S4
	MOVWU hi+60(FP), R3
	VDUP  R3, V31.S4
	MOVW  $0x4f000000, R3
	VDUP  R3, V27.S4
	LSR   $4, R2, R4
	CBZ   R4, s4

s16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	ROUND_0
	ROUND_1
	ROUND_2
	ROUND_3
	WORD   $0x4e411800 // uzp1 v0.8h, v0.8h, v1.8h
	WORD   $0x4e431842 // uzp1 v2.8h, v2.8h, v3.8h
	WORD   $0x4e021800 // uzp1 v0.16b, v0.16b, v2.16b
	VST1.P [V0.B16], 16(R0)
	SUB    $1, R4
	CBNZ   R4, s16

s4:
	UBFX $2, R2, $2, R4
	CBZ  R4, s1

s4loop:
	VLD1.P  16(R1), [V0.S4]
	ROUND_0
	WORD    $0x4e401800 // uzp1 v0.8h, v0.8h, v0.8h
	WORD    $0x4e001800 // uzp1 v0.16b, v0.16b, v0.16b
	FMOVS.P F0, 4(R0)
	SUB     $1, R4
	CBNZ    R4, s4loop

s1:
	AND $3, R2, R4
	CBZ R4, sdone

s1loop:
	FMOVS.P 4(R1), F0
	ROUND_0
	VMOV    V0.B[0], R3
	MOVB.P  R3, 1(R0)
	SUB     $1, R4
	CBNZ    R4, s1loop

sdone:
	RET

// func dequantRowsF32NEONAsm(dst *float32, acc *int32, m, n int, corr *int32, scale, bias *float32)
//
// m, n ≥ 1, bias nil or n values. R0 dst cursor, R1 acc cursor, R2 rows
// left, R3 n, R4-R6 corr, scale, bias; R7-R9 their cursors in the row,
// R10 step counter.
TEXT ·dequantRowsF32NEONAsm(SB), NOSPLIT, $0-56
	MOVD dst+0(FP), R0
	MOVD acc+8(FP), R1
	MOVD m+16(FP), R2
	MOVD n+24(FP), R3
	MOVD corr+32(FP), R4
	MOVD scale+40(FP), R5
	MOVD bias+48(FP), R6
	CBZ  R6, n_row

brow:
	MOVD R4, R7
	MOVD R5, R8
	MOVD R6, R9
	LSR  $4, R3, R10
	CBZ  R10, b4

b16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R7), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(R8), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R9), [V20.S4, V21.S4, V22.S4, V23.S4]
	DEQ_0
	DEQB_0
	DEQ_1
	DEQB_1
	DEQ_2
	DEQB_2
	DEQ_3
	DEQB_3
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB    $1, R10
	CBNZ   R10, b16

b4:
	UBFX $2, R3, $2, R10
	CBZ  R10, b1

b4loop:
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R7), [V4.S4]
	VLD1.P 16(R8), [V16.S4]
	VLD1.P 16(R9), [V20.S4]
	DEQ_0
	DEQB_0
	VST1.P [V0.S4], 16(R0)
	SUB    $1, R10
	CBNZ   R10, b4loop

b1:
	AND $3, R3, R10
	CBZ R10, bnext

b1loop:
	FMOVS.P 4(R1), F0
	FMOVS.P 4(R7), F4
	FMOVS.P 4(R8), F16
	FMOVS.P 4(R9), F20
	DEQ_0
	DEQB_0
	FMOVS.P F0, 4(R0)
	SUB     $1, R10
	CBNZ    R10, b1loop

bnext:
	SUB  $1, R2
	CBNZ R2, brow
	RET

n_row:
	MOVD R4, R7
	MOVD R5, R8
	LSR  $4, R3, R10
	CBZ  R10, n_4

n_16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R7), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(R8), [V16.S4, V17.S4, V18.S4, V19.S4]
	DEQ_0
	DEQ_1
	DEQ_2
	DEQ_3
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB    $1, R10
	CBNZ   R10, n_16

n_4:
	UBFX $2, R3, $2, R10
	CBZ  R10, n_1

n_4loop:
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R7), [V4.S4]
	VLD1.P 16(R8), [V16.S4]
	DEQ_0
	VST1.P [V0.S4], 16(R0)
	SUB    $1, R10
	CBNZ   R10, n_4loop

n_1:
	AND $3, R3, R10
	CBZ R10, n_next

n_1loop:
	FMOVS.P 4(R1), F0
	FMOVS.P 4(R7), F4
	FMOVS.P 4(R8), F16
	DEQ_0
	FMOVS.P F0, 4(R0)
	SUB     $1, R10
	CBNZ    R10, n_1loop

n_next:
	SUB  $1, R2
	CBNZ R2, n_row
	RET

// func mulAccOffsetInt8NEON(acc []int32, w, x []int8, zp int32)
//
// zp in every byte of V31 and in R4; R0 acc cursor, R1 w cursor, R2 x
// cursor, R3 length, R5 step counter.
TEXT ·mulAccOffsetInt8NEON(SB), NOSPLIT, $0-76
	MOVD acc_base+0(FP), R0
	MOVD acc_len+8(FP), R3
	MOVD w_base+24(FP), R1
	MOVD x_base+48(FP), R2
	MOVW zp+72(FP), R4
	VDUP R4, V31.B16
	LSR  $4, R3, R5
	CBZ  R5, a8

a16:
	VLD1.P 16(R1), [V0.B16]
	VLD1.P 16(R2), [V1.B16]
	VLD1   (R0), [V4.S4, V5.S4, V6.S4, V7.S4]
	WORD   $0x0e3f2022 // ssubl v2.8h, v1.8b, v31.8b
	WORD   $0x4e3f2023 // ssubl2 v3.8h, v1.16b, v31.16b
	WORD   $0x0f08a410 // sxtl v16.8h, v0.8b
	WORD   $0x4f08a411 // sxtl2 v17.8h, v0.16b
	WORD   $0x0e628204 // smlal v4.4s, v16.4h, v2.4h
	WORD   $0x4e628205 // smlal2 v5.4s, v16.8h, v2.8h
	WORD   $0x0e638226 // smlal v6.4s, v17.4h, v3.4h
	WORD   $0x4e638227 // smlal2 v7.4s, v17.8h, v3.8h
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)
	SUB    $1, R5
	CBNZ   R5, a16

a8:
	TBZ $3, R3, a1
	FMOVD.P 8(R1), F0
	FMOVD.P 8(R2), F1
	VLD1    (R0), [V4.S4, V5.S4]
	WORD    $0x0e3f2022 // ssubl v2.8h, v1.8b, v31.8b
	WORD    $0x0f08a410 // sxtl v16.8h, v0.8b
	WORD    $0x0e628204 // smlal v4.4s, v16.4h, v2.4h
	WORD    $0x4e628205 // smlal2 v5.4s, v16.8h, v2.8h
	VST1.P  [V4.S4, V5.S4], 32(R0)

a1:
	AND $7, R3, R5
	CBZ R5, adone

a1loop:
	MOVB.P  1(R1), R6
	MOVB.P  1(R2), R7
	SUBW    R4, R7
	MULW    R6, R7
	MOVW    (R0), R8
	ADDW    R7, R8
	MOVW.P  R8, 4(R0)
	SUB     $1, R5
	CBNZ    R5, a1loop

adone:
	RET
