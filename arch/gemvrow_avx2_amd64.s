//go:build !purego

// AVX2 kernel of gemvRow16 (gemm_eigen.go): Eigen's matrix × vector
// order for one row against a packed block of 16 channels. Lane l of
// every channel (reduction indices i ≡ l mod 4 below k rounded down to
// 4) is summed from 0 in order in its own pair of YMM registers, each
// product rounded and then added (VMULPS, VADDPS); the lanes combine as
// (s0+s2)+(s1+s3), the last k%4 products are added in order, then the
// bias, then the clamp (VMAXPS with lo, VMINPS with hi, x the second
// source, so a NaN passes).

#include "textflag.h"

// func gemvRow16AVX2(dst, a, w, bias *float32, k int, lo, hi float32)
//
// SI a; R8 w (16 floats per index); CX groups of 4 indices; R9 k%4;
// Y0-Y7 lane sums (lane l: Y2l channels 0-7, Y2l+1 channels 8-15);
// Y8 broadcast; Y9, Y10 products. k ≥ 1.
TEXT ·gemvRow16AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ bias+24(FP), DX
	MOVQ k+32(FP), CX
	MOVQ CX, R9
	ANDQ $3, R9
	SHRQ $2, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	TESTQ CX, CX
	JZ    combine

loop:
	VBROADCASTSS (SI), Y8
	VMULPS       (R8), Y8, Y9
	VMULPS       32(R8), Y8, Y10
	VADDPS       Y9, Y0, Y0
	VADDPS       Y10, Y1, Y1
	VBROADCASTSS 4(SI), Y8
	VMULPS       64(R8), Y8, Y9
	VMULPS       96(R8), Y8, Y10
	VADDPS       Y9, Y2, Y2
	VADDPS       Y10, Y3, Y3
	VBROADCASTSS 8(SI), Y8
	VMULPS       128(R8), Y8, Y9
	VMULPS       160(R8), Y8, Y10
	VADDPS       Y9, Y4, Y4
	VADDPS       Y10, Y5, Y5
	VBROADCASTSS 12(SI), Y8
	VMULPS       192(R8), Y8, Y9
	VMULPS       224(R8), Y8, Y10
	VADDPS       Y9, Y6, Y6
	VADDPS       Y10, Y7, Y7
	ADDQ         $16, SI
	ADDQ         $256, R8
	DECQ         CX
	JNZ          loop

combine:
	VADDPS Y4, Y0, Y0
	VADDPS Y6, Y2, Y2
	VADDPS Y2, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y7, Y3, Y3
	VADDPS Y3, Y1, Y1
	TESTQ  R9, R9
	JZ     finish

rest:
	VBROADCASTSS (SI), Y8
	VMULPS       (R8), Y8, Y9
	VMULPS       32(R8), Y8, Y10
	VADDPS       Y9, Y0, Y0
	VADDPS       Y10, Y1, Y1
	ADDQ         $4, SI
	ADDQ         $64, R8
	DECQ         R9
	JNZ          rest

finish:
	VADDPS       (DX), Y0, Y0
	VADDPS       32(DX), Y1, Y1
	VBROADCASTSS lo+40(FP), Y14
	VBROADCASTSS hi+44(FP), Y15
	VMAXPS       Y0, Y14, Y0
	VMAXPS       Y1, Y14, Y1
	VMINPS       Y0, Y15, Y0
	VMINPS       Y1, Y15, Y1
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y1, 32(DI)
	VZEROUPPER
	RET
