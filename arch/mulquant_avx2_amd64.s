//go:build !purego

// AVX2 quantised multiplication (see mulquant.go), eight lanes per step,
// bit-exact with mulquant_generic.go: the offset inputs multiplied with
// VPMULLD (the low 32 bits: Go's wrapping int32 product), then the
// MultiplyByQuantizedMultiplier of addquant_avx2_amd64.s with its
// parameters read from the quantMulVec block (R8), the output zero point
// and the clamp; the clamp range lies within the output type, so the
// saturating packs change nothing.

#include "textflag.h"

#include "mbqm_avx2_amd64.h"

// PRODUCT8: Y1 = the clamped int32 products of the inputs Y0 (a) and
// Y11 (b). Clobbers Y0, Y2-Y4.
#define PRODUCT8 \
	VPADDD  Y5, Y0, Y0   \
	VPADDD  Y6, Y11, Y11 \
	VPMULLD Y11, Y0, Y0  \
	MBQM(64, 96, 128, 288, 304)                 \
	VPADDD  Y7, Y1, Y1   \
	VPMAXSD Y8, Y1, Y1   \
	VPMINSD Y9, Y1, Y1

// SETUP: DI dst, SI a, DX b, CX n, R8 the parameter block, AX index;
// Y5 off1, Y6 off2, Y7 outOff, Y8 lo, Y9 hi, Y10 the rounding constant.
#define SETUP \
	MOVQ    dst+0(FP), DI \
	MOVQ    a+8(FP), SI   \
	MOVQ    b+16(FP), DX  \
	MOVQ    n+24(FP), CX  \
	MOVQ    v+32(FP), R8  \
	VMOVDQU 0(R8), Y5     \
	VMOVDQU 32(R8), Y6    \
	VMOVDQU 160(R8), Y7   \
	VMOVDQU 192(R8), Y8   \
	VMOVDQU 224(R8), Y9   \
	VMOVDQU 256(R8), Y10  \
	XORQ    AX, AX

// func mulQuantInt8AVX2Asm(dst, a, b *int8, n int, v *quantMulVec)
TEXT ·mulQuantInt8AVX2Asm(SB), NOSPLIT, $0-40
	SETUP

loop:
	CMPQ         AX, CX
	JGE          done
	VPMOVSXBD    (SI)(AX*1), Y0
	VPMOVSXBD    (DX)(AX*1), Y11
	PRODUCT8
	VEXTRACTI128 $1, Y1, X13
	VPACKSSDW    X13, X1, X1
	VPACKSSWB    X1, X1, X1
	VMOVQ        X1, (DI)(AX*1)
	ADDQ         $8, AX
	JMP          loop

done:
	VZEROUPPER
	RET

// func mulQuantUint8AVX2Asm(dst, a, b *uint8, n int, v *quantMulVec)
TEXT ·mulQuantUint8AVX2Asm(SB), NOSPLIT, $0-40
	SETUP

loop:
	CMPQ         AX, CX
	JGE          done
	VPMOVZXBD    (SI)(AX*1), Y0
	VPMOVZXBD    (DX)(AX*1), Y11
	PRODUCT8
	VEXTRACTI128 $1, Y1, X13
	VPACKSSDW    X13, X1, X1
	VPACKUSWB    X1, X1, X1
	VMOVQ        X1, (DI)(AX*1)
	ADDQ         $8, AX
	JMP          loop

done:
	VZEROUPPER
	RET
