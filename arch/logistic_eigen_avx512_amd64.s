//go:build !purego

// AVX-512 kernel of LogisticEigenF32 (logistic_eigen.go): the AVX2
// kernel's steps on 16 lanes, the constants broadcast from the first
// lane of each of logisticEigenConsts' rows; every step one VMULPS or
// VADDPS (rounded apart), floor by VRNDSCALEPS, 2^m in the exponent
// field, results below FLT_MIN flushed to 0 and inputs below -104 giving
// 0 (opmasks instead of the AVX2 kernel's and-not masks).

#include "textflag.h"

// Offsets of the constants in logisticEigenConsts (32 bytes a row).
#define C_LO 0
#define C_HI 32
#define C_HALF 64
#define C_LOG2E 96
#define C_C1 128
#define C_C2 160
#define C_P2 192
#define C_P3 224
#define C_P4 256
#define C_P5 288
#define C_ONE 320
#define C_BIAS 352
#define C_MIN 384

// func logisticEigenAVX512(dst, x *float32, n int, c *[13][8]uint32)
//
// n is a multiple of 16. DI dst, SI x, CX n, R8 constants; Z14 the
// clamp, Z15 1.0.
TEXT ·logisticEigenAVX512(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         c+24(FP), R8
	VBROADCASTSS C_HI(R8), Z14
	VBROADCASTSS C_ONE(R8), Z15
	TESTQ        CX, CX
	JZ           done

loop:
	VMOVUPS          (SI), Z0
	VCMPPS.BCST      $1, C_LO(R8), Z0, K1 // x < -104: the result is 0
	KNOTW            K1, K1
	VMINPS           Z0, Z14, Z2
	VMULPS.BCST      C_HALF(R8), Z2, Z2
	VMULPS.BCST      C_LOG2E(R8), Z2, Z3
	VADDPS.BCST      C_HALF(R8), Z3, Z3
	VRNDSCALEPS      $1, Z3, Z3
	VMULPS.BCST      C_C1(R8), Z3, Z4
	VADDPS           Z2, Z4, Z4
	VMULPS.BCST      C_C2(R8), Z3, Z5
	VADDPS           Z4, Z5, Z4
	VMULPS           Z4, Z4, Z5
	VMULPS.BCST      C_P4(R8), Z5, Z6
	VADDPS.BCST      C_P2(R8), Z6, Z6
	VMULPS.BCST      C_P5(R8), Z5, Z7
	VADDPS.BCST      C_P3(R8), Z7, Z7
	VADDPS           Z15, Z4, Z9
	VMULPS           Z7, Z4, Z7
	VADDPS           Z6, Z7, Z7
	VMULPS           Z7, Z5, Z7
	VADDPS           Z9, Z7, Z7
	VCVTTPS2DQ       Z3, Z3
	VPADDD.BCST      C_BIAS(R8), Z3, Z3
	VPSLLD           $23, Z3, Z3
	VMULPS           Z3, Z7, Z7
	VMULPS           Z7, Z7, Z7
	VCMPPS.BCST      $1, C_MIN(R8), Z7, K2 // e < FLT_MIN: flushed to 0
	KNOTW            K2, K2
	VMOVAPS.Z        Z7, K2, Z7
	VADDPS           Z15, Z7, Z6
	VDIVPS           Z6, Z7, Z7
	VMOVAPS.Z        Z7, K1, Z7
	VMOVUPS          Z7, (DI)
	ADDQ             $64, SI
	ADDQ             $64, DI
	SUBQ             $16, CX
	JNZ              loop

done:
	VZEROUPPER
	RET
