//go:build !purego

// AVX2 kernel of ExpEigenF32 (exp_eigen.go): Eigen's pexp_float on 8
// lanes at a time, every step one VMULPS or VADDPS (rounded apart, as
// Eigen's pmadd without FMA), floor by VROUNDPS, 2^m built in the exponent
// field (VCVTTPS2DQ, +127, shift by 23), lanes below -104 set to 0. Only
// the fast path: the caller gives blocks with a lane in [-104, -87), above
// 87 or NaN to the portable code.

#include "textflag.h"

// Offsets of the constants in expEigenConsts (32 bytes each).
#define C_HI 0
#define C_HALF 32
#define C_LOG2E 64
#define C_C1 96
#define C_C2 128
#define C_P2 160
#define C_P3 192
#define C_P4 224
#define C_P5 256
#define C_P6 288
#define C_ONE 320
#define C_BIAS 352
#define C_LO 384

// func expEigenAVX2(dst, x *float32, n int, c *[13][8]uint32)
//
// n is a multiple of 8. DI dst, SI x, CX n, R8 constants; Y14 the clamp.
TEXT ·expEigenAVX2(SB), NOSPLIT, $0-32
	MOVQ       dst+0(FP), DI
	MOVQ       x+8(FP), SI
	MOVQ       n+16(FP), CX
	MOVQ       c+24(FP), R8
	VMOVUPS    C_HI(R8), Y14
	TESTQ      CX, CX
	JZ         done

loop:
	VMOVUPS    (SI), Y0
	VCMPPS     $1, C_LO(R8), Y0, Y1
	VMINPS     Y0, Y14, Y2
	VMULPS     C_LOG2E(R8), Y2, Y3
	VADDPS     C_HALF(R8), Y3, Y3
	VROUNDPS   $1, Y3, Y3
	VMULPS     C_C1(R8), Y3, Y4
	VADDPS     Y2, Y4, Y4
	VMULPS     C_C2(R8), Y3, Y5
	VADDPS     Y4, Y5, Y4
	VMULPS     Y4, Y4, Y5
	VMULPS     C_P6(R8), Y5, Y6
	VADDPS     C_P4(R8), Y6, Y6
	VMULPS     C_P5(R8), Y5, Y7
	VADDPS     C_P3(R8), Y7, Y7
	VMULPS     Y6, Y5, Y6
	VADDPS     C_P2(R8), Y6, Y6
	VADDPS     C_ONE(R8), Y4, Y9
	VMULPS     Y7, Y4, Y7
	VADDPS     Y6, Y7, Y7
	VMULPS     Y7, Y5, Y7
	VADDPS     Y9, Y7, Y7
	VCVTTPS2DQ Y3, Y3
	VPADDD     C_BIAS(R8), Y3, Y3
	VPSLLD     $23, Y3, Y3
	VMULPS     Y3, Y7, Y7
	VANDNPS    Y7, Y1, Y7
	VMOVUPS    Y7, (DI)
	ADDQ       $32, SI
	ADDQ       $32, DI
	SUBQ       $8, CX
	JNZ        loop

done:
	VZEROUPPER
	RET
