//go:build !purego

// AVX-512 MultiplyByQuantizedMultiplier on 16 lanes, bit-exact with
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

// SETUP_AVX512 loads the shared parameters: X14 left, X15 right, Z13 mult,
// Z12 mask, Z11 thr, Z10 2^30 per qword, Z9 ones, K2 odd lanes. Clobbers
// AX.
#define SETUP_AVX512 \
	VMOVQ        left+56(FP), X14  \
	VMOVQ        right+64(FP), X15 \
	MOVL         mult+72(FP), AX   \
	VPBROADCASTD AX, Z13           \
	MOVL         mask+76(FP), AX   \
	VPBROADCASTD AX, Z12           \
	MOVL         thr+80(FP), AX    \
	VPBROADCASTD AX, Z11           \
	MOVQ         $0x40000000, AX   \
	VPBROADCASTQ AX, Z10           \
	MOVL         $1, AX            \
	VPBROADCASTD AX, Z9            \
	MOVL         $0xaaaa, AX       \
	KMOVW        AX, K2

// MBQM16: Z1 = MBQM(Z0) on sixteen int32 lanes; the rounding carry is a
// merge-masked add (K3); the sign term of the threshold is zero-masked by
// the tie mask K5 (all lanes: ties away from zero; none: upward).
// Clobbers Z0, Z2-Z4, K3.
#define MBQM16 \
	VPSLLD    X14, Z0, Z0       \
	VPMULDQ   Z13, Z0, Z1       \
	VPSRLQ    $32, Z0, Z2       \
	VPMULDQ   Z13, Z2, Z2       \
	VPADDQ    Z10, Z1, Z1       \
	VPADDQ    Z10, Z2, Z2       \
	VPSRLQ    $31, Z1, Z1       \
	VPSRLQ    $31, Z2, Z2       \
	VPSLLQ    $32, Z2, Z2       \
	VPBLENDMD Z2, Z1, K2, Z1    \
	VPANDD    Z12, Z1, Z3       \
	VPSRAD.Z  $31, Z1, K5, Z4   \
	VPSUBD    Z4, Z11, Z4       \
	VPCMPGTD  Z4, Z3, K3        \
	VPSRAD    X15, Z1, Z1       \
	VPADDD    Z9, Z1, K3, Z1

// TAILMASK16: K1 = 2^CX - 1 (CX < 16). Clobbers BX.
#define TAILMASK16 \
	MOVL  $1, BX  \
	SHLL  CX, BX  \
	DECL  BX      \
	KMOVW BX, K1

// func requantAccInt16AVX512Asm(dst []int16, acc []int32, n int, left, right uint64, mult, mask, thr int32)
//
// All n elements: sixteen at a time, then an opmask (K1) step; VPMOVSDW
// stores with int16 saturation. Ties away from zero (K5 all lanes).
TEXT ·requantAccInt16AVX512Asm(SB), NOSPLIT, $0-84
	MOVQ  dst_base+0(FP), DI
	MOVQ  acc_base+24(FP), SI
	MOVQ  n+48(FP), CX
	SETUP_AVX512
	MOVL  $0xffff, AX
	KMOVW AX, K5
	MOVQ CX, R8
	ANDQ $-16, R8
	XORQ AX, AX

loop:
	CMPQ      AX, R8
	JGE       tail
	VMOVDQU32 (SI)(AX*4), Z0
	MBQM16
	VPMOVSXWD (DI)(AX*2), Z5
	VPADDD    Z5, Z1, Z1
	VPMOVSDW  Z1, (DI)(AX*2)
	ADDQ      $16, AX
	JMP       loop

tail:
	SUBQ        AX, CX
	JZ          done
	TAILMASK16
	VMOVDQU32.Z (SI)(AX*4), K1, Z0
	MBQM16
	VPMOVSXWD.Z (DI)(AX*2), K1, Z5
	VPADDD      Z5, Z1, Z1
	VPMOVSDW    Z1, K1, (DI)(AX*2)

done:
	VZEROUPPER
	RET

// func requantInt8AVX512Asm(dst []int8, acc []int32, n int, left, right uint64, mult, mask, thr, zp, lo, hi, tie int32)
//
// All n elements, sixteen at a time, then an opmask step; VPMOVSDB
// narrows (the clamp already fits int8). Z6 zp, Z7 lo, Z8 hi, K5 the
// low 16 bits of the tie mask.
TEXT ·requantInt8AVX512Asm(SB), NOSPLIT, $0-100
	MOVQ         dst_base+0(FP), DI
	MOVQ         acc_base+24(FP), SI
	MOVQ         n+48(FP), CX
	SETUP_AVX512
	MOVL         zp+84(FP), AX
	VPBROADCASTD AX, Z6
	MOVL         lo+88(FP), AX
	VPBROADCASTD AX, Z7
	MOVL         hi+92(FP), AX
	VPBROADCASTD AX, Z8
	MOVL         tie+96(FP), AX
	KMOVW        AX, K5
	MOVQ         CX, R8
	ANDQ         $-16, R8
	XORQ         AX, AX

loop:
	CMPQ      AX, R8
	JGE       tail
	VMOVDQU32 (SI)(AX*4), Z0
	MBQM16
	VPADDD    Z6, Z1, Z1
	VPMAXSD   Z7, Z1, Z1
	VPMINSD   Z8, Z1, Z1
	VPMOVSDB  Z1, (DI)(AX*1)
	ADDQ      $16, AX
	JMP       loop

tail:
	SUBQ        AX, CX
	JZ          done
	TAILMASK16
	VMOVDQU32.Z (SI)(AX*4), K1, Z0
	MBQM16
	VPADDD      Z6, Z1, Z1
	VPMAXSD     Z7, Z1, Z1
	VPMINSD     Z8, Z1, Z1
	VPMOVSDB    Z1, K1, (DI)(AX*1)

done:
	VZEROUPPER
	RET
