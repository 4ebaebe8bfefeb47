//go:build !purego

// AVX2 kernel of HardSwishF32 (hardswish.go), 8 lanes at a time:
// r = x+3; r = MAXPS(r, 0) = (r > 0 ? r : 0), std::max(0, r) with a NaN r
// giving 0; r = MINPS(r, 6) = (r < 6 ? r : 6), std::min(6, r); then
// (x·r)·(1/6), each product rounded.

#include "textflag.h"

// Offsets of the constants in hardSwishConsts (32 bytes each).
#define C_THREE 0
#define C_ZERO 32
#define C_SIX 64
#define C_SIXTH 96

// func hardSwishAVX2(dst, x *float32, n int, c *[4][8]uint32)
//
// n is a multiple of 8. DI dst, SI x, CX n, R8 constants.
TEXT ·hardSwishAVX2(SB), NOSPLIT, $0-32
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	MOVQ    c+24(FP), R8
	VMOVUPS C_THREE(R8), Y12
	VMOVUPS C_ZERO(R8), Y13
	VMOVUPS C_SIX(R8), Y14
	VMOVUPS C_SIXTH(R8), Y15
	TESTQ   CX, CX
	JZ      done

loop:
	VMOVUPS (SI), Y0
	VADDPS  Y12, Y0, Y1
	VMAXPS  Y13, Y1, Y1
	VMINPS  Y14, Y1, Y1
	VMULPS  Y1, Y0, Y1
	VMULPS  Y15, Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNZ     loop

done:
	VZEROUPPER
	RET
