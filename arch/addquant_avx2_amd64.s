//go:build !purego

// AVX2 quantised addition (see addquant.go), eight lanes per step,
// bit-exact with addquant_generic.go. Each of the three rescalings is
// requant_avx2_amd64.s's MultiplyByQuantizedMultiplier with ties away
// from zero, reading its parameters from the quantAddVec block (R8):
//
//	x  = v << left                       VPSLLD (wraps)
//	h  = (x·mult + 2^30) >> 31           VPMULDQ on the even and the odd
//	                                     lanes, bits 31..62 of each product
//	r  = (h >> right) + (h&mask + (h>>31) > thr)
//	                                     RoundingDivideByPOT: the remainder
//	                                     above half, or above half plus one
//	                                     for negative h
//
// then the second scaled input's sign is set (VPSIGND by the block's
// sign lanes: 1 for ADD, -1 for SUB; -MinInt32 wraps as in Go), the two
// are summed, rescaled, offset by the output
// zero point and clamped; the clamp range lies within the output type,
// so the saturating packs change nothing.

#include "textflag.h"

#include "mbqm_avx2_amd64.h"

// SUM8: Y1 = the clamped int32 sums (or differences) of the eight inputs
// Y0 (a) and Y11 (b). Clobbers Y0, Y2-Y4, Y11.
#define SUM8 \
	VPADDD  Y5, Y0, Y0                \
	MBQM(64, 96, 128, 480, 496)       \
	VMOVDQU Y1, Y12                   \
	VPADDD  Y6, Y11, Y0               \
	MBQM(160, 192, 224, 512, 528)     \
	VPSIGND 576(R8), Y1, Y1           \
	VPADDD  Y12, Y1, Y0               \
	MBQM(256, 288, 320, 544, 560)     \
	VPADDD  Y7, Y1, Y1                \
	VPMAXSD Y8, Y1, Y1                \
	VPMINSD Y9, Y1, Y1

// SETUP: DI dst, SI a, DX b, CX n, R8 the parameter block, AX index;
// Y5 off1, Y6 off2, Y7 outOff, Y8 lo, Y9 hi, Y10 the rounding constant.
#define SETUP \
	MOVQ    dst+0(FP), DI   \
	MOVQ    a+8(FP), SI     \
	MOVQ    b+16(FP), DX    \
	MOVQ    n+24(FP), CX    \
	MOVQ    v+32(FP), R8    \
	VMOVDQU 0(R8), Y5       \
	VMOVDQU 32(R8), Y6      \
	VMOVDQU 352(R8), Y7     \
	VMOVDQU 384(R8), Y8     \
	VMOVDQU 416(R8), Y9     \
	VMOVDQU 448(R8), Y10    \
	XORQ    AX, AX

// func addQuantInt8AVX2Asm(dst, a, b *int8, n int, v *quantAddVec)
TEXT ·addQuantInt8AVX2Asm(SB), NOSPLIT, $0-40
	SETUP

loop:
	CMPQ         AX, CX
	JGE          done
	VPMOVSXBD    (SI)(AX*1), Y0
	VPMOVSXBD    (DX)(AX*1), Y11
	SUM8
	VEXTRACTI128 $1, Y1, X13
	VPACKSSDW    X13, X1, X1
	VPACKSSWB    X1, X1, X1
	VMOVQ        X1, (DI)(AX*1)
	ADDQ         $8, AX
	JMP          loop

done:
	VZEROUPPER
	RET

// func addQuantUint8AVX2Asm(dst, a, b *uint8, n int, v *quantAddVec)
TEXT ·addQuantUint8AVX2Asm(SB), NOSPLIT, $0-40
	SETUP

loop:
	CMPQ         AX, CX
	JGE          done
	VPMOVZXBD    (SI)(AX*1), Y0
	VPMOVZXBD    (DX)(AX*1), Y11
	SUM8
	VEXTRACTI128 $1, Y1, X13
	VPACKSSDW    X13, X1, X1
	VPACKUSWB    X1, X1, X1
	VMOVQ        X1, (DI)(AX*1)
	ADDQ         $8, AX
	JMP          loop

done:
	VZEROUPPER
	RET
