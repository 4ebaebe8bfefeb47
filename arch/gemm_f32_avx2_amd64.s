//go:build !purego

// AVX2+FMA float32 GEMM micro-kernel for GemmF32 (gemm.go): up to 4 pixel
// rows times the packed weights, 16 output channels (two YMM vectors) per
// step. Each reduction step loads the 16 packed weights once, broadcasts
// one element of every row (VBROADCASTSS) and does two fused
// multiply-adds per row: no horizontal sums. The sums start at the bias;
// the clamp is VMAXPS with lo then VMINPS with hi (x the second source,
// so a NaN passes). The last, partial channel block reads the bias and
// stores through VMASKMOVPS with the masks mlo/mhi (neither reads nor
// writes masked-off lanes).
//
// Rows beyond m in the last row block alias the last real row: computed,
// not stored.

#include "textflag.h"

#define ROWPTR(prev, next, idx) \
	LEAQ    (prev)(R14*1), next \
	CMPQ    DI, $idx            \
	CMOVQLT prev, next

// func gemmF32R4AVX2(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, mlo, mhi *int32)
//
// SI, BX, CX, DX rows 0-3; R12 packed weights; AX reduction offset
// (bytes); R13 k·4; DI channel index j; Y0-Y7 sums (row r in Y(2r),
// Y(2r+1)); Y8/Y9 weights; Y10/Y11 broadcasts; Y12/Y13 tail masks;
// Y14/Y15 lo/hi. k ≥ 1, m ≥ 1, n ≥ 1.
TEXT ·gemmF32R4AVX2(SB), NOSPLIT, $0-96
	VBROADCASTSS lo+72(FP), Y14
	VBROADCASTSS hi+76(FP), Y15
	MOVQ         mlo+80(FP), R14
	VMOVDQU      (R14), Y12
	MOVQ         mhi+88(FP), R14
	VMOVDQU      (R14), Y13
	MOVQ         k+64(FP), R13
	SHLQ         $2, R13
	MOVQ         a+16(FP), SI

rowblk:
	MOVQ lda+24(FP), R14
	SHLQ $2, R14
	MOVQ m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, CX, 3)
	ROWPTR(CX, DX, 4)
	MOVQ w+32(FP), R12
	XORQ DI, DI

nblk:
	MOVQ bias+40(FP), R14
	LEAQ (R14)(DI*4), R14
	MOVQ n+56(FP), AX
	SUBQ DI, AX
	CMPQ AX, $16
	JLT  partialbias
	VMOVUPS (R14), Y0
	VMOVUPS 32(R14), Y1
	JMP  biased

partialbias:
	VMASKMOVPS (R14), Y12, Y0
	VMASKMOVPS 32(R14), Y13, Y1

biased:
	VMOVAPS Y0, Y2
	VMOVAPS Y1, Y3
	VMOVAPS Y0, Y4
	VMOVAPS Y1, Y5
	VMOVAPS Y0, Y6
	VMOVAPS Y1, Y7
	XORQ    AX, AX

kloop:
	VMOVUPS      (R12), Y8
	VMOVUPS      32(R12), Y9
	VBROADCASTSS (SI)(AX*1), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (BX)(AX*1), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS (CX)(AX*1), Y10
	VFMADD231PS  Y8, Y10, Y4
	VFMADD231PS  Y9, Y10, Y5
	VBROADCASTSS (DX)(AX*1), Y11
	VFMADD231PS  Y8, Y11, Y6
	VFMADD231PS  Y9, Y11, Y7
	ADDQ         $64, R12
	ADDQ         $4, AX
	CMPQ         AX, R13
	JLT          kloop

	VMAXPS Y0, Y14, Y0
	VMAXPS Y1, Y14, Y1
	VMAXPS Y2, Y14, Y2
	VMAXPS Y3, Y14, Y3
	VMAXPS Y4, Y14, Y4
	VMAXPS Y5, Y14, Y5
	VMAXPS Y6, Y14, Y6
	VMAXPS Y7, Y14, Y7
	VMINPS Y0, Y15, Y0
	VMINPS Y1, Y15, Y1
	VMINPS Y2, Y15, Y2
	VMINPS Y3, Y15, Y3
	VMINPS Y4, Y15, Y4
	VMINPS Y5, Y15, Y5
	VMINPS Y6, Y15, Y6
	VMINPS Y7, Y15, Y7

	MOVQ dst+0(FP), R14
	LEAQ (R14)(DI*4), R14
	MOVQ ldd+8(FP), AX
	SHLQ $2, AX
	MOVQ n+56(FP), R8
	SUBQ DI, R8
	CMPQ R8, $16
	JLT  partialstore

	VMOVUPS Y0, (R14)
	VMOVUPS Y1, 32(R14)
	CMPQ    m+48(FP), $2
	JLT     stored
	ADDQ    AX, R14
	VMOVUPS Y2, (R14)
	VMOVUPS Y3, 32(R14)
	CMPQ    m+48(FP), $3
	JLT     stored
	ADDQ    AX, R14
	VMOVUPS Y4, (R14)
	VMOVUPS Y5, 32(R14)
	CMPQ    m+48(FP), $4
	JLT     stored
	ADDQ    AX, R14
	VMOVUPS Y6, (R14)
	VMOVUPS Y7, 32(R14)
	JMP     stored

partialstore:
	VMASKMOVPS Y0, Y12, (R14)
	VMASKMOVPS Y1, Y13, 32(R14)
	CMPQ       m+48(FP), $2
	JLT        stored
	ADDQ       AX, R14
	VMASKMOVPS Y2, Y12, (R14)
	VMASKMOVPS Y3, Y13, 32(R14)
	CMPQ       m+48(FP), $3
	JLT        stored
	ADDQ       AX, R14
	VMASKMOVPS Y4, Y12, (R14)
	VMASKMOVPS Y5, Y13, 32(R14)
	CMPQ       m+48(FP), $4
	JLT        stored
	ADDQ       AX, R14
	VMASKMOVPS Y6, Y12, (R14)
	VMASKMOVPS Y7, Y13, 32(R14)

stored:
	ADDQ $16, DI
	CMPQ DI, n+56(FP)
	JLT  nblk

	SUBQ $4, m+48(FP)
	JLE  done
	MOVQ ldd+8(FP), AX
	SHLQ $4, AX
	ADDQ AX, dst+0(FP)
	MOVQ lda+24(FP), AX
	SHLQ $4, AX
	ADDQ AX, SI
	JMP  rowblk

done:
	VZEROUPPER
	RET
