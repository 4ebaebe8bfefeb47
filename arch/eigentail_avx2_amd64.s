//go:build !purego

// AVX2 kernels of eigenTail (gemm_eigen.go): Eigen's remainder-channel
// orders for one depth block, four channels per XMM register, each
// product rounded and then added (VMULPS, VADDPS), rows one at a time.
// The clamp is VMAXPS with lo then VMINPS with hi, x the second source,
// so a NaN passes.

#include "textflag.h"

// func eigenPacketAVX2(dst *float32, ldd int, a *float32, lda int, w, bias *float32, m, kb, flags int, lo, hi float32)
//
// The 4-channel packet: X0 even, X1 odd indices below kb rounded down
// to 8, added, then the rest in order; the block sum is added to 0 or
// (tailAcc) to dst; with tailFinal the bias and the clamp. SI, DI rows;
// AX, R9 walk a and w; CX counts. m ≥ 1, kb ≥ 1.
TEXT ·eigenPacketAVX2(SB), NOSPLIT, $0-80
	MOVQ         dst+0(FP), DI
	MOVQ         ldd+8(FP), R10
	SHLQ         $2, R10
	MOVQ         a+16(FP), SI
	MOVQ         lda+24(FP), R11
	SHLQ         $2, R11
	MOVQ         w+32(FP), R8
	MOVQ         bias+40(FP), DX
	MOVQ         m+48(FP), R12
	MOVQ         kb+56(FP), R13
	MOVQ         flags+64(FP), BX
	VBROADCASTSS lo+72(FP), X14
	VBROADCASTSS hi+76(FP), X13

prow:
	VXORPS X0, X0, X0
	VXORPS X1, X1, X1
	MOVQ   SI, AX
	MOVQ   R8, R9
	MOVQ   R13, CX
	SHRQ   $3, CX
	SHLQ   $2, CX
	TESTQ  CX, CX
	JZ     ppeeled

ploop:
	VBROADCASTSS (AX), X8
	VMULPS       (R9), X8, X9
	VADDPS       X9, X0, X0
	VBROADCASTSS 4(AX), X8
	VMULPS       64(R9), X8, X9
	VADDPS       X9, X1, X1
	ADDQ         $8, AX
	ADDQ         $128, R9
	DECQ         CX
	JNZ          ploop

ppeeled:
	VADDPS X1, X0, X0
	MOVQ   R13, CX
	ANDQ   $7, CX
	JZ     pacc

prest:
	VBROADCASTSS (AX), X8
	VMULPS       (R9), X8, X9
	VADDPS       X9, X0, X0
	ADDQ         $4, AX
	ADDQ         $64, R9
	DECQ         CX
	JNZ          prest

pacc:
	VXORPS X2, X2, X2
	TESTQ  $4, BX
	JZ     padd
	VMOVUPS (DI), X2

padd:
	VADDPS X0, X2, X0
	TESTQ  $8, BX
	JZ     pstore
	VMOVUPS (DX), X3
	VADDPS X3, X0, X0
	VMAXPS X0, X14, X0
	VMINPS X0, X13, X0

pstore:
	VMOVUPS X0, (DI)
	ADDQ    R10, DI
	ADDQ    R11, SI
	DECQ    R12
	JNZ     prow
	RET

// func eigenRemAVX2(dst *float32, ldd int, a *float32, lda int, w, bias *float32, m, kb int, mask *int32, flags int, lo, hi float32)
//
// The n%4 remainder channels (lanes of the mask): X0-X3 the sums of
// indices ≡ 0..3 mod 4 below kb rounded down to 4, combined as
// (s0+s1)+(s2+s3), then the rest in order; with tailAcc dst is added
// first (dst + s); with tailFinal the bias and the clamp. dst and bias
// are read and written through the mask only. m ≥ 1, kb ≥ 1.
TEXT ·eigenRemAVX2(SB), NOSPLIT, $0-88
	MOVQ         dst+0(FP), DI
	MOVQ         ldd+8(FP), R10
	SHLQ         $2, R10
	MOVQ         a+16(FP), SI
	MOVQ         lda+24(FP), R11
	SHLQ         $2, R11
	MOVQ         w+32(FP), R8
	MOVQ         bias+40(FP), DX
	MOVQ         m+48(FP), R12
	MOVQ         kb+56(FP), R13
	MOVQ         mask+64(FP), AX
	VMOVUPS      (AX), X15
	MOVQ         flags+72(FP), BX
	VBROADCASTSS lo+80(FP), X14
	VBROADCASTSS hi+84(FP), X13

rrow:
	VXORPS X0, X0, X0
	VXORPS X1, X1, X1
	VXORPS X2, X2, X2
	VXORPS X3, X3, X3
	MOVQ   SI, AX
	MOVQ   R8, R9
	MOVQ   R13, CX
	SHRQ   $2, CX
	JZ     rcombine

rloop:
	VBROADCASTSS (AX), X8
	VMULPS       (R9), X8, X9
	VADDPS       X9, X0, X0
	VBROADCASTSS 4(AX), X8
	VMULPS       64(R9), X8, X9
	VADDPS       X9, X1, X1
	VBROADCASTSS 8(AX), X8
	VMULPS       128(R9), X8, X9
	VADDPS       X9, X2, X2
	VBROADCASTSS 12(AX), X8
	VMULPS       192(R9), X8, X9
	VADDPS       X9, X3, X3
	ADDQ         $16, AX
	ADDQ         $256, R9
	DECQ         CX
	JNZ          rloop

rcombine:
	VADDPS X1, X0, X0
	VADDPS X3, X2, X2
	VADDPS X2, X0, X0
	MOVQ   R13, CX
	ANDQ   $3, CX
	JZ     racc

rrest:
	VBROADCASTSS (AX), X8
	VMULPS       (R9), X8, X9
	VADDPS       X9, X0, X0
	ADDQ         $4, AX
	ADDQ         $64, R9
	DECQ         CX
	JNZ          rrest

racc:
	TESTQ      $4, BX
	JZ         rfin
	VMASKMOVPS (DI), X15, X4
	VADDPS     X0, X4, X0

rfin:
	TESTQ      $8, BX
	JZ         rstore
	VMASKMOVPS (DX), X15, X5
	VADDPS     X5, X0, X0
	VMAXPS     X0, X14, X0
	VMINPS     X0, X13, X0

rstore:
	VMASKMOVPS X0, X15, (DI)
	ADDQ       R10, DI
	ADDQ       R11, SI
	DECQ       R12
	JNZ        rrow
	RET
