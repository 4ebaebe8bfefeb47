//go:build !purego

// AVX-512 float32 GEMM micro-kernels for GemmF32 (gemm.go): a block of up
// to 8 (or 4) pixel rows times the packed weights, 16 output channels per
// step. Each reduction step loads one vector of 16 packed weights and
// multiplies it by an element of every row, broadcast from memory
// ({1to16}) straight into a fused multiply-add, so the kernel does no
// horizontal sums. The sums start at the bias; the activation clamp
// (VMAXPS with lo, then VMINPS with hi, x as the second source so that a
// NaN passes through) is applied before the store. The last channel block
// is stored under the opmask tail (K1).
//
// Rows beyond m in the last row block alias the last real row: they are
// computed (wasted work, no out-of-bounds reads) but not stored.

#include "textflag.h"

// ROWPTRS sets the row pointers: each is the previous plus the row stride
// R14, or the previous again when the row index reaches m (DI).
#define ROWPTR(prev, next, idx) \
	LEAQ    (prev)(R14*1), next \
	CMPQ    DI, $idx            \
	CMOVQLT prev, next

// func gemmF32R8AVX512(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, tail uint64)
//
// SI, BX, CX, DX, R8-R11 rows 0-7; R12 packed weights; AX reduction
// offset (bytes); R13 k·4; DI channel index j; Z0-Z7 sums; Z8 weights;
// Z30/Z31 lo/hi; K1 channel mask. k ≥ 1, m ≥ 1, n ≥ 1.
TEXT ·gemmF32R8AVX512(SB), NOSPLIT, $0-88
	VBROADCASTSS lo+72(FP), Z30
	VBROADCASTSS hi+76(FP), Z31
	MOVQ         k+64(FP), R13
	SHLQ         $2, R13
	MOVQ         a+16(FP), SI

rowblk8:
	MOVQ lda+24(FP), R14
	SHLQ $2, R14
	MOVQ m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, CX, 3)
	ROWPTR(CX, DX, 4)
	ROWPTR(DX, R8, 5)
	ROWPTR(R8, R9, 6)
	ROWPTR(R9, R10, 7)
	ROWPTR(R10, R11, 8)
	MOVQ w+32(FP), R12
	XORQ DI, DI

nblk8:
	MOVQ  n+56(FP), R14
	SUBQ  DI, R14
	MOVL  $0xffff, AX
	CMPQ  R14, $16
	JGE   mask8
	MOVQ  tail+80(FP), AX

mask8:
	KMOVW     AX, K1
	MOVQ      bias+40(FP), R14
	VMOVUPS.Z (R14)(DI*4), K1, Z0
	VMOVAPS   Z0, Z1
	VMOVAPS   Z0, Z2
	VMOVAPS   Z0, Z3
	VMOVAPS   Z0, Z4
	VMOVAPS   Z0, Z5
	VMOVAPS   Z0, Z6
	VMOVAPS   Z0, Z7
	XORQ      AX, AX

kloop8:
	VMOVUPS          (R12), Z8
	VFMADD231PS.BCST (SI)(AX*1), Z8, Z0
	VFMADD231PS.BCST (BX)(AX*1), Z8, Z1
	VFMADD231PS.BCST (CX)(AX*1), Z8, Z2
	VFMADD231PS.BCST (DX)(AX*1), Z8, Z3
	VFMADD231PS.BCST (R8)(AX*1), Z8, Z4
	VFMADD231PS.BCST (R9)(AX*1), Z8, Z5
	VFMADD231PS.BCST (R10)(AX*1), Z8, Z6
	VFMADD231PS.BCST (R11)(AX*1), Z8, Z7
	ADDQ             $64, R12
	ADDQ             $4, AX
	CMPQ             AX, R13
	JLT              kloop8

	VMAXPS Z0, Z30, Z0
	VMAXPS Z1, Z30, Z1
	VMAXPS Z2, Z30, Z2
	VMAXPS Z3, Z30, Z3
	VMAXPS Z4, Z30, Z4
	VMAXPS Z5, Z30, Z5
	VMAXPS Z6, Z30, Z6
	VMAXPS Z7, Z30, Z7
	VMINPS Z0, Z31, Z0
	VMINPS Z1, Z31, Z1
	VMINPS Z2, Z31, Z2
	VMINPS Z3, Z31, Z3
	VMINPS Z4, Z31, Z4
	VMINPS Z5, Z31, Z5
	VMINPS Z6, Z31, Z6
	VMINPS Z7, Z31, Z7

	MOVQ    dst+0(FP), R14
	LEAQ    (R14)(DI*4), R14
	MOVQ    ldd+8(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, K1, (R14)
	CMPQ    m+48(FP), $2
	JLT     stored8
	ADDQ    AX, R14
	VMOVUPS Z1, K1, (R14)
	CMPQ    m+48(FP), $3
	JLT     stored8
	ADDQ    AX, R14
	VMOVUPS Z2, K1, (R14)
	CMPQ    m+48(FP), $4
	JLT     stored8
	ADDQ    AX, R14
	VMOVUPS Z3, K1, (R14)
	CMPQ    m+48(FP), $5
	JLT     stored8
	ADDQ    AX, R14
	VMOVUPS Z4, K1, (R14)
	CMPQ    m+48(FP), $6
	JLT     stored8
	ADDQ    AX, R14
	VMOVUPS Z5, K1, (R14)
	CMPQ    m+48(FP), $7
	JLT     stored8
	ADDQ    AX, R14
	VMOVUPS Z6, K1, (R14)
	CMPQ    m+48(FP), $8
	JLT     stored8
	ADDQ    AX, R14
	VMOVUPS Z7, K1, (R14)

stored8:
	ADDQ $16, DI
	CMPQ DI, n+56(FP)
	JLT  nblk8

	// Next block of 8 rows.
	SUBQ $8, m+48(FP)
	JLE  done8
	MOVQ ldd+8(FP), AX
	SHLQ $5, AX
	ADDQ AX, dst+0(FP)
	MOVQ lda+24(FP), AX
	SHLQ $5, AX
	ADDQ AX, SI
	JMP  rowblk8

done8:
	VZEROUPPER
	RET

// func gemmF32R4AVX512(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, tail uint64)
//
// gemmF32R8AVX512 for 1 ≤ m ≤ 4 rows (one block): SI, BX, CX, DX rows
// 0-3, Z0-Z3 sums; the other registers as there.
TEXT ·gemmF32R4AVX512(SB), NOSPLIT, $0-88
	VBROADCASTSS lo+72(FP), Z30
	VBROADCASTSS hi+76(FP), Z31
	MOVQ         k+64(FP), R13
	SHLQ         $2, R13
	MOVQ         a+16(FP), SI
	MOVQ         lda+24(FP), R14
	SHLQ         $2, R14
	MOVQ         m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, CX, 3)
	ROWPTR(CX, DX, 4)
	MOVQ         w+32(FP), R12
	XORQ         DI, DI

nblk4:
	MOVQ  n+56(FP), R14
	SUBQ  DI, R14
	MOVL  $0xffff, AX
	CMPQ  R14, $16
	JGE   mask4
	MOVQ  tail+80(FP), AX

mask4:
	KMOVW     AX, K1
	MOVQ      bias+40(FP), R14
	VMOVUPS.Z (R14)(DI*4), K1, Z0
	VMOVAPS   Z0, Z1
	VMOVAPS   Z0, Z2
	VMOVAPS   Z0, Z3
	XORQ      AX, AX

kloop4:
	VMOVUPS          (R12), Z8
	VFMADD231PS.BCST (SI)(AX*1), Z8, Z0
	VFMADD231PS.BCST (BX)(AX*1), Z8, Z1
	VFMADD231PS.BCST (CX)(AX*1), Z8, Z2
	VFMADD231PS.BCST (DX)(AX*1), Z8, Z3
	ADDQ             $64, R12
	ADDQ             $4, AX
	CMPQ             AX, R13
	JLT              kloop4

	VMAXPS Z0, Z30, Z0
	VMAXPS Z1, Z30, Z1
	VMAXPS Z2, Z30, Z2
	VMAXPS Z3, Z30, Z3
	VMINPS Z0, Z31, Z0
	VMINPS Z1, Z31, Z1
	VMINPS Z2, Z31, Z2
	VMINPS Z3, Z31, Z3

	MOVQ    dst+0(FP), R14
	LEAQ    (R14)(DI*4), R14
	MOVQ    ldd+8(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, K1, (R14)
	CMPQ    m+48(FP), $2
	JLT     stored4
	ADDQ    AX, R14
	VMOVUPS Z1, K1, (R14)
	CMPQ    m+48(FP), $3
	JLT     stored4
	ADDQ    AX, R14
	VMOVUPS Z2, K1, (R14)
	CMPQ    m+48(FP), $4
	JLT     stored4
	ADDQ    AX, R14
	VMOVUPS Z3, K1, (R14)

stored4:
	ADDQ $16, DI
	CMPQ DI, n+56(FP)
	JLT  nblk4
	VZEROUPPER
	RET

// func gemmF32R8AVX512Y(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, tail uint64)
//
// gemmF32R8AVX512 for n ≤ 8 on EVEX YMM registers (8 lanes: twice the
// throughput of half-empty ZMM vectors on Zen 4).
//
// SI, BX, CX, DX, R8-R11 rows 0-7; R12 packed weights; AX reduction
// offset (bytes); R13 k·4; DI channel index j; Y0-Y7 sums; Y8 weights;
// Y30/Y31 lo/hi; K1 channel mask. k ≥ 1, m ≥ 1, n ≥ 1.
TEXT ·gemmF32R8AVX512Y(SB), NOSPLIT, $0-88
	VBROADCASTSS lo+72(FP), Y30
	VBROADCASTSS hi+76(FP), Y31
	MOVQ         k+64(FP), R13
	SHLQ         $2, R13
	MOVQ         a+16(FP), SI

rowblk8y:
	MOVQ lda+24(FP), R14
	SHLQ $2, R14
	MOVQ m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, CX, 3)
	ROWPTR(CX, DX, 4)
	ROWPTR(DX, R8, 5)
	ROWPTR(R8, R9, 6)
	ROWPTR(R9, R10, 7)
	ROWPTR(R10, R11, 8)
	MOVQ w+32(FP), R12
	XORQ DI, DI

nblk8y:
	MOVQ  n+56(FP), R14
	SUBQ  DI, R14
	MOVL  $0xffff, AX
	CMPQ  R14, $16
	JGE   mask8y
	MOVQ  tail+80(FP), AX

mask8y:
	KMOVW     AX, K1
	MOVQ      bias+40(FP), R14
	VMOVUPS.Z (R14)(DI*4), K1, Y0
	VMOVAPS   Y0, Y1
	VMOVAPS   Y0, Y2
	VMOVAPS   Y0, Y3
	VMOVAPS   Y0, Y4
	VMOVAPS   Y0, Y5
	VMOVAPS   Y0, Y6
	VMOVAPS   Y0, Y7
	XORQ      AX, AX

kloop8y:
	VMOVUPS          (R12), Y8
	VFMADD231PS.BCST (SI)(AX*1), Y8, Y0
	VFMADD231PS.BCST (BX)(AX*1), Y8, Y1
	VFMADD231PS.BCST (CX)(AX*1), Y8, Y2
	VFMADD231PS.BCST (DX)(AX*1), Y8, Y3
	VFMADD231PS.BCST (R8)(AX*1), Y8, Y4
	VFMADD231PS.BCST (R9)(AX*1), Y8, Y5
	VFMADD231PS.BCST (R10)(AX*1), Y8, Y6
	VFMADD231PS.BCST (R11)(AX*1), Y8, Y7
	ADDQ             $64, R12
	ADDQ             $4, AX
	CMPQ             AX, R13
	JLT              kloop8y

	VMAXPS Y0, Y30, Y0
	VMAXPS Y1, Y30, Y1
	VMAXPS Y2, Y30, Y2
	VMAXPS Y3, Y30, Y3
	VMAXPS Y4, Y30, Y4
	VMAXPS Y5, Y30, Y5
	VMAXPS Y6, Y30, Y6
	VMAXPS Y7, Y30, Y7
	VMINPS Y0, Y31, Y0
	VMINPS Y1, Y31, Y1
	VMINPS Y2, Y31, Y2
	VMINPS Y3, Y31, Y3
	VMINPS Y4, Y31, Y4
	VMINPS Y5, Y31, Y5
	VMINPS Y6, Y31, Y6
	VMINPS Y7, Y31, Y7

	MOVQ    dst+0(FP), R14
	LEAQ    (R14)(DI*4), R14
	MOVQ    ldd+8(FP), AX
	SHLQ    $2, AX
	VMOVUPS Y0, K1, (R14)
	CMPQ    m+48(FP), $2
	JLT     stored8y
	ADDQ    AX, R14
	VMOVUPS Y1, K1, (R14)
	CMPQ    m+48(FP), $3
	JLT     stored8y
	ADDQ    AX, R14
	VMOVUPS Y2, K1, (R14)
	CMPQ    m+48(FP), $4
	JLT     stored8y
	ADDQ    AX, R14
	VMOVUPS Y3, K1, (R14)
	CMPQ    m+48(FP), $5
	JLT     stored8y
	ADDQ    AX, R14
	VMOVUPS Y4, K1, (R14)
	CMPQ    m+48(FP), $6
	JLT     stored8y
	ADDQ    AX, R14
	VMOVUPS Y5, K1, (R14)
	CMPQ    m+48(FP), $7
	JLT     stored8y
	ADDQ    AX, R14
	VMOVUPS Y6, K1, (R14)
	CMPQ    m+48(FP), $8
	JLT     stored8y
	ADDQ    AX, R14
	VMOVUPS Y7, K1, (R14)

stored8y:
	ADDQ $16, DI
	CMPQ DI, n+56(FP)
	JLT  nblk8y

	// Next block of 8 rows.
	SUBQ $8, m+48(FP)
	JLE  done8y
	MOVQ ldd+8(FP), AX
	SHLQ $5, AX
	ADDQ AX, dst+0(FP)
	MOVQ lda+24(FP), AX
	SHLQ $5, AX
	ADDQ AX, SI
	JMP  rowblk8y

done8y:
	VZEROUPPER
	RET

// func gemmF32R4AVX512Y(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, tail uint64)
//
// gemmF32R4AVX512 for n ≤ 8 on EVEX YMM registers (8 lanes: twice the
// throughput of half-empty ZMM vectors on Zen 4).
//
// gemmF32R8AVX512 for 1 ≤ m ≤ 4 rows (one block): SI, BX, CX, DX rows
// 0-3, Y0-Y3 sums; the other registers as there.
TEXT ·gemmF32R4AVX512Y(SB), NOSPLIT, $0-88
	VBROADCASTSS lo+72(FP), Y30
	VBROADCASTSS hi+76(FP), Y31
	MOVQ         k+64(FP), R13
	SHLQ         $2, R13
	MOVQ         a+16(FP), SI
	MOVQ         lda+24(FP), R14
	SHLQ         $2, R14
	MOVQ         m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, CX, 3)
	ROWPTR(CX, DX, 4)
	MOVQ         w+32(FP), R12
	XORQ         DI, DI

nblk4y:
	MOVQ  n+56(FP), R14
	SUBQ  DI, R14
	MOVL  $0xffff, AX
	CMPQ  R14, $16
	JGE   mask4y
	MOVQ  tail+80(FP), AX

mask4y:
	KMOVW     AX, K1
	MOVQ      bias+40(FP), R14
	VMOVUPS.Z (R14)(DI*4), K1, Y0
	VMOVAPS   Y0, Y1
	VMOVAPS   Y0, Y2
	VMOVAPS   Y0, Y3
	XORQ      AX, AX

kloop4y:
	VMOVUPS          (R12), Y8
	VFMADD231PS.BCST (SI)(AX*1), Y8, Y0
	VFMADD231PS.BCST (BX)(AX*1), Y8, Y1
	VFMADD231PS.BCST (CX)(AX*1), Y8, Y2
	VFMADD231PS.BCST (DX)(AX*1), Y8, Y3
	ADDQ             $64, R12
	ADDQ             $4, AX
	CMPQ             AX, R13
	JLT              kloop4y

	VMAXPS Y0, Y30, Y0
	VMAXPS Y1, Y30, Y1
	VMAXPS Y2, Y30, Y2
	VMAXPS Y3, Y30, Y3
	VMINPS Y0, Y31, Y0
	VMINPS Y1, Y31, Y1
	VMINPS Y2, Y31, Y2
	VMINPS Y3, Y31, Y3

	MOVQ    dst+0(FP), R14
	LEAQ    (R14)(DI*4), R14
	MOVQ    ldd+8(FP), AX
	SHLQ    $2, AX
	VMOVUPS Y0, K1, (R14)
	CMPQ    m+48(FP), $2
	JLT     stored4y
	ADDQ    AX, R14
	VMOVUPS Y1, K1, (R14)
	CMPQ    m+48(FP), $3
	JLT     stored4y
	ADDQ    AX, R14
	VMOVUPS Y2, K1, (R14)
	CMPQ    m+48(FP), $4
	JLT     stored4y
	ADDQ    AX, R14
	VMOVUPS Y3, K1, (R14)

stored4y:
	ADDQ $16, DI
	CMPQ DI, n+56(FP)
	JLT  nblk4y
	VZEROUPPER
	RET
