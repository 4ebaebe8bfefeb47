//go:build !purego

// AVX2 MultiplyByQuantizedMultiplier on 8 lanes, bit-exact with
// requant_generic.go, with int16 accumulate-and-saturate
// (RequantizeAccInt16) or zero point and clamp to int8 (RequantizeInt8):
//
//	x  = acc << left                                   (wraps, as Go's x·2^left)
//	h  = (x·mult + 2^30) >> 31, low 32 bits             (SaturatingRoundingDoublingHighMul:
//	     gemmlowp's nudge 1-2^30 with truncating division for negative
//	     products equals this floor form; the result fits in int32 except
//	     for MinInt32·MinInt32, which the Go wrapper keeps away)
//	r  = (h >> right) + (h&mask > thr + (h<0 & tie)) ? 1 : 0
//	                                                   (RoundingDivideByPOT for tie = -1,
//	                                                   ruy's upward ties for tie = 0)
//	dst = sat16(dst + r)                               (int32 add wraps)
//
// The 32×32→64 products come from VPMULDQ on the even and the odd lanes
// separately; a logical 64-bit shift by 31 leaves the wanted 32 bits in the
// low half of each product.

#include "textflag.h"

// SETUP_AVX2 loads the shared parameters: X14 left, X15 right, Y13 mult,
// Y12 mask, Y11 thr, Y10 2^30 in each qword. Clobbers AX.
#define SETUP_AVX2 \
	VMOVQ        left+56(FP), X14  \
	VMOVQ        right+64(FP), X15 \
	MOVL         mult+72(FP), AX   \
	VMOVQ        AX, X13           \
	VPBROADCASTD X13, Y13          \
	MOVL         mask+76(FP), AX   \
	VMOVQ        AX, X12           \
	VPBROADCASTD X12, Y12          \
	MOVL         thr+80(FP), AX    \
	VMOVQ        AX, X11           \
	VPBROADCASTD X11, Y11          \
	MOVQ         $0x40000000, AX   \
	VMOVQ        AX, X10           \
	VPBROADCASTQ X10, Y10

// MBQM8: Y1 = MBQM(Y0) on eight int32 lanes with the tie mask in every
// dword of tie. Clobbers Y0, Y2-Y4.
#define MBQM8(tie) \
	VPSLLD   X14, Y0, Y0       \
	VPMULDQ  Y13, Y0, Y1       \
	VPSRLQ   $32, Y0, Y2       \
	VPMULDQ  Y13, Y2, Y2       \
	VPADDQ   Y10, Y1, Y1       \
	VPADDQ   Y10, Y2, Y2       \
	VPSRLQ   $31, Y1, Y1       \
	VPSRLQ   $31, Y2, Y2       \
	VPSLLQ   $32, Y2, Y2       \
	VPBLENDD $0xaa, Y2, Y1, Y1 \
	VPAND    Y12, Y1, Y3       \
	VPSRAD   $31, Y1, Y4       \
	VPAND    tie, Y4, Y4       \
	VPSUBD   Y4, Y11, Y4       \
	VPCMPGTD Y4, Y3, Y3        \
	VPSRAD   X15, Y1, Y1       \
	VPSUBD   Y3, Y1, Y1

// func requantAccInt16AVX2Asm(dst []int16, acc []int32, n int, left, right uint64, mult, mask, thr int32)
//
// dst[i] = sat16(dst[i] + MBQM(acc[i])) for the first n (a multiple of 8),
// ties away from zero (Y7 all ones). DI dst, SI acc, CX n, AX index.
TEXT ·requantAccInt16AVX2Asm(SB), NOSPLIT, $0-84
	MOVQ     dst_base+0(FP), DI
	MOVQ     acc_base+24(FP), SI
	MOVQ     n+48(FP), CX
	SETUP_AVX2
	VPCMPEQD Y7, Y7, Y7
	XORQ     AX, AX

loop:
	CMPQ         AX, CX
	JGE          done
	VMOVDQU      (SI)(AX*4), Y0
	MBQM8(Y7)
	VPMOVSXWD    (DI)(AX*2), Y5
	VPADDD       Y5, Y1, Y1
	VEXTRACTI128 $1, Y1, X6
	VPACKSSDW    X6, X1, X1
	VMOVDQU      X1, (DI)(AX*2)
	ADDQ         $8, AX
	JMP          loop

done:
	VZEROUPPER
	RET

// func requantInt8AVX2Asm(dst []int8, acc []int32, n int, left, right uint64, mult, mask, thr, zp, lo, hi, tie int32)
//
// dst[i] = int8(clamp(MBQM(acc[i]) + zp, lo, hi)) for the first n (a
// multiple of 8); lo and hi are within [-128, 127], so the saturating
// packs change nothing. Y7 zp, Y8 lo, Y9 hi, Y5 the tie mask.
TEXT ·requantInt8AVX2Asm(SB), NOSPLIT, $0-100
	MOVQ         dst_base+0(FP), DI
	MOVQ         acc_base+24(FP), SI
	MOVQ         n+48(FP), CX
	SETUP_AVX2
	MOVL         zp+84(FP), AX
	VMOVQ        AX, X7
	VPBROADCASTD X7, Y7
	MOVL         lo+88(FP), AX
	VMOVQ        AX, X8
	VPBROADCASTD X8, Y8
	MOVL         hi+92(FP), AX
	VMOVQ        AX, X9
	VPBROADCASTD X9, Y9
	MOVL         tie+96(FP), AX
	VMOVQ        AX, X5
	VPBROADCASTD X5, Y5
	XORQ         AX, AX

loop:
	CMPQ         AX, CX
	JGE          done
	VMOVDQU      (SI)(AX*4), Y0
	MBQM8(Y5)
	VPADDD       Y7, Y1, Y1
	VPMAXSD      Y8, Y1, Y1
	VPMINSD      Y9, Y1, Y1
	VEXTRACTI128 $1, Y1, X6
	VPACKSSDW    X6, X1, X1
	VPACKSSWB    X1, X1, X1
	VMOVQ        X1, (DI)(AX*1)
	ADDQ         $8, AX
	JMP          loop

done:
	VZEROUPPER
	RET
