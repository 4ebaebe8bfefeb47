//go:build !purego

// AVX2 kernel of laneSums4 (gemm_eigen.go): the four lane sums of
// Eigen's SSE dot products, four rows at a time. For row p and lane l,
// out[4p+l] += Σ_t a[p·lda + 4t + l]·w[4t + l] over t < k4/4, in order
// of t, starting at the value in out, each product rounded and then added (VMULPS, VADDPS on XMM).

#include "textflag.h"

// func laneSums4AVX2(out *float32, a *float32, lda int, w *float32, m, k4 int)
//
// SI, BX, CX, DX rows; R8 w; AX offset (bytes); R9 k4·4; R10 lda·4;
// X0-X3 sums; X4 weights; X5-X8 products. m ≥ 0, k4 % 4 == 0.
TEXT ·laneSums4AVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R10
	SHLQ $2, R10
	MOVQ w+24(FP), R8
	MOVQ m+32(FP), R11
	MOVQ k4+40(FP), R9
	SHLQ $2, R9

rows4:
	CMPQ R11, $4
	JLT  rows1
	LEAQ (SI)(R10*1), BX
	LEAQ (BX)(R10*1), CX
	LEAQ (CX)(R10*1), DX
	VMOVUPS (DI), X0
	VMOVUPS 16(DI), X1
	VMOVUPS 32(DI), X2
	VMOVUPS 48(DI), X3
	XORQ AX, AX
	CMPQ AX, R9
	JGE  store4

loop4:
	VMOVUPS (R8)(AX*1), X4
	VMULPS  (SI)(AX*1), X4, X5
	VMULPS  (BX)(AX*1), X4, X6
	VMULPS  (CX)(AX*1), X4, X7
	VMULPS  (DX)(AX*1), X4, X8
	VADDPS  X5, X0, X0
	VADDPS  X6, X1, X1
	VADDPS  X7, X2, X2
	VADDPS  X8, X3, X3
	ADDQ    $16, AX
	CMPQ    AX, R9
	JLT     loop4

store4:
	VMOVUPS X0, (DI)
	VMOVUPS X1, 16(DI)
	VMOVUPS X2, 32(DI)
	VMOVUPS X3, 48(DI)
	ADDQ    $64, DI
	LEAQ    (DX)(R10*1), SI
	SUBQ    $4, R11
	JMP     rows4

rows1:
	TESTQ R11, R11
	JZ    done
	VMOVUPS (DI), X0
	XORQ AX, AX
	CMPQ AX, R9
	JGE  store1

loop1:
	VMOVUPS (R8)(AX*1), X4
	VMULPS  (SI)(AX*1), X4, X5
	VADDPS  X5, X0, X0
	ADDQ    $16, AX
	CMPQ    AX, R9
	JLT     loop1

store1:
	VMOVUPS X0, (DI)
	ADDQ    $16, DI
	ADDQ    R10, SI
	DECQ    R11
	JMP     rows1

done:
	RET
