//go:build !purego

// AVX2 quantised PRELU (see preluquant.go), eight lanes per step,
// bit-exact with preluquant_generic.go. Both branches are computed for
// every lane: v = x + inOff rescaled by the positive stage, and the
// wrapping product v·(alpha + aOff) (VPMULLD) by the negative one, each
// addquant_avx2_amd64.s's MultiplyByQuantizedMultiplier with ties away
// from zero; VBLENDVPS keeps the second where v's sign bit is set. Then
// the output zero point and the clamp; the clamp range lies within the
// output type, so the saturating packs change nothing.

#include "textflag.h"

#include "mbqm_avx2_amd64.h"

// PRELU8: Y1 = the clamped int32 results for the inputs Y0 (x) and Y11
// (alpha). Clobbers Y0, Y2-Y4, Y11-Y13.
#define PRELU8 \
	VPADDD    Y5, Y0, Y0                \
	VMOVDQU   Y0, Y13                   \
	VPADDD    Y6, Y11, Y11              \
	VPMULLD   Y0, Y11, Y11              \
	MBQM(64, 96, 128, 384, 400)         \
	VMOVDQU   Y1, Y12                   \
	VMOVDQU   Y11, Y0                   \
	MBQM(160, 192, 224, 416, 432)       \
	VBLENDVPS Y13, Y1, Y12, Y1          \
	VPADDD    Y7, Y1, Y1                \
	VPMAXSD   Y8, Y1, Y1                \
	VPMINSD   Y9, Y1, Y1

// SETUP: DI dst, SI x, DX alpha, CX n, R8 the parameter block, AX index;
// Y5 inOff, Y6 aOff, Y7 outOff, Y8 lo, Y9 hi, Y10 the rounding constant.
#define SETUP \
	MOVQ    dst+0(FP), DI   \
	MOVQ    x+8(FP), SI     \
	MOVQ    alpha+16(FP), DX \
	MOVQ    n+24(FP), CX    \
	MOVQ    v+32(FP), R8    \
	VMOVDQU 0(R8), Y5       \
	VMOVDQU 32(R8), Y6      \
	VMOVDQU 256(R8), Y7     \
	VMOVDQU 288(R8), Y8     \
	VMOVDQU 320(R8), Y9     \
	VMOVDQU 352(R8), Y10    \
	XORQ    AX, AX

// func preluQuantInt8AVX2Asm(dst, x, alpha *int8, n int, v *quantPReluVec)
TEXT ·preluQuantInt8AVX2Asm(SB), NOSPLIT, $0-40
	SETUP

loop:
	CMPQ         AX, CX
	JGE          done
	VPMOVSXBD    (SI)(AX*1), Y0
	VPMOVSXBD    (DX)(AX*1), Y11
	PRELU8
	VEXTRACTI128 $1, Y1, X13
	VPACKSSDW    X13, X1, X1
	VPACKSSWB    X1, X1, X1
	VMOVQ        X1, (DI)(AX*1)
	ADDQ         $8, AX
	JMP          loop

done:
	VZEROUPPER
	RET

// func preluQuantUint8AVX2Asm(dst, x, alpha *uint8, n int, v *quantPReluVec)
TEXT ·preluQuantUint8AVX2Asm(SB), NOSPLIT, $0-40
	SETUP

loop:
	CMPQ         AX, CX
	JGE          done
	VPMOVZXBD    (SI)(AX*1), Y0
	VPMOVZXBD    (DX)(AX*1), Y11
	PRELU8
	VEXTRACTI128 $1, Y1, X13
	VPACKSSDW    X13, X1, X1
	VPACKUSWB    X1, X1, X1
	VMOVQ        X1, (DI)(AX*1)
	ADDQ         $8, AX
	JMP          loop

done:
	VZEROUPPER
	RET
