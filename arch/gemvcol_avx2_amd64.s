//go:build !purego

// AVX2 kernel of gemvCol (gemm_eigen.go): Eigen's matrix × vector order
// for one channel whose weights lie 16 floats apart in the packed
// matrix. Per row the four lane sums (i mod 4) are one XMM register,
// the weights gathered by VINSERTPS, each product rounded and then added
// (VMULPS, VADDPS); the lanes combine as (s0+s2)+(s1+s3), the last k%4
// products follow in order, then the bias and the clamp (VMAXSS with lo,
// VMINSS with hi, x the second source, so a NaN passes).

#include "textflag.h"

// func gemvColAVX2(dst *float32, ldd int, a *float32, lda int, w *float32, bias float32, m, k int, lo, hi float32)
//
// DI, SI rows; AX, R9 walk a and w; CX counts; X0 lane sums. m ≥ 1,
// k ≥ 1.
TEXT ·gemvColAVX2(SB), NOSPLIT, $0-72
	MOVQ  dst+0(FP), DI
	MOVQ  ldd+8(FP), R10
	SHLQ  $2, R10
	MOVQ  a+16(FP), SI
	MOVQ  lda+24(FP), R11
	SHLQ  $2, R11
	MOVQ  w+32(FP), R8
	VMOVSS bias+40(FP), X12
	MOVQ  m+48(FP), R12
	MOVQ  k+56(FP), R13
	VMOVSS lo+64(FP), X14
	VMOVSS hi+68(FP), X13

row:
	VXORPS X0, X0, X0
	MOVQ   SI, AX
	MOVQ   R8, R9
	MOVQ   R13, CX
	SHRQ   $2, CX
	JZ     combine

loop:
	VMOVUPS   (AX), X1
	VMOVSS    (R9), X2
	VINSERTPS $0x10, 64(R9), X2, X2
	VINSERTPS $0x20, 128(R9), X2, X2
	VINSERTPS $0x30, 192(R9), X2, X2
	VMULPS    X2, X1, X3
	VADDPS    X3, X0, X0
	ADDQ      $16, AX
	ADDQ      $256, R9
	DECQ      CX
	JNZ       loop

combine:
	VMOVHLPS  X0, X0, X1
	VADDPS    X1, X0, X0
	VMOVSHDUP X0, X1
	VADDSS    X1, X0, X0
	MOVQ      R13, CX
	ANDQ      $3, CX
	JZ        finish

rest:
	VMOVSS (AX), X1
	VMULSS (R9), X1, X1
	VADDSS X1, X0, X0
	ADDQ   $4, AX
	ADDQ   $64, R9
	DECQ   CX
	JNZ    rest

finish:
	VADDSS X12, X0, X0
	VMAXSS X0, X14, X0
	VMINSS X0, X13, X0
	VMOVSS X0, (DI)
	ADDQ   R10, DI
	ADDQ   R11, SI
	DECQ   R12
	JNZ    row
	RET
