//go:build !purego

// AVX-512 GEMM micro-kernels for GemmF32, GemmInt8 and
// GemmInt8RequantizeInt8/Uint8 (gemm.go): a block of up to 8 (or 4) pixel
// rows times the packed weights, 16 output channels per step, on ZMM
// registers, or on EVEX YMM registers (suffix Y) for up to 8 channels.

#include "textflag.h"
#include "requant_channel_amd64.h"

// ROWPTR sets a row pointer: the previous plus the row stride R14, or the
// previous again when the row index reaches m (DI).
#define ROWPTR(prev, next, idx) \
	LEAQ    (prev)(R14*1), next \
	CMPQ    DI, $idx            \
	CMOVQLT prev, next

// TAILA broadcasts the last k%4 bytes of a row (offset AX, mask K2), zero
// filled, to every dword of Z9.
#define TAILAY(row) \
	VMOVDQU8.Z   (row)(AX*1), K2, X9 \
	VPBROADCASTD X9, Y9

#define TAILA(row) \
	VMOVDQU8.Z   (row)(AX*1), K2, X9 \
	VPBROADCASTD X9, Z9

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

// AVX-512 VNNI int8 GEMM micro-kernels for GemmInt8 (gemm.go): a block of
// up to 8 (or 4) pixel rows times the packed weights, 16 output channels
// per step. The packed weights are stored as unsigned bytes w+128, and
// VPDPBUSD multiplies them by four signed bytes of a row broadcast from
// memory ({1to16}), adding the four products to each int32 lane: one
// instruction per row per group of four reduction indices, no horizontal
// sums, whatever k and n are. Σ(w+128)·a = Σw·a + 128·Σa, so each row's
// sum Σa (VPDPBUSD of the row with a vector of ones, once per row block)
// times 128 is subtracted from the seed the sums start at (times 128 +
// wz in the requantising variants, which also subtract the weights' zero
// point wz: Σ(w-wz)·a). VPDPBUSD wraps
// (unlike VPDPBUSDS), so every sum is the exact int32 result modulo 2^32.
// A last group of k%4 indices is loaded with a byte mask (K2: neither
// reads nor faults past the row), zeros above.
//
// Rows beyond m in the last row block alias the last real row: computed,
// not stored.

// Registers: SI, BX, CX, DX, R8-R11 rows; R12 packed weights; AX
// reduction offset; R13 4·floor(k/4); DI channel index; Z0-Z7 sums;
// Z12-Z19 128·row sums; Z8 weights; Z20 bytes of 1; K1 channel mask; K2
// k-tail byte mask. The requantising variants (…Rq…) keep the sums in
// registers and apply RQ16 (requant_channel_amd64.h, registers Z21-Z31,
// K3, K4) to them, storing bytes.

// func gemmInt8R8VNNI(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail uint64)
TEXT ·gemmInt8R8VNNI(SB), NOSPLIT, $0-88
	MOVQ         k+64(FP), R13
	ANDQ         $-4, R13
	MOVQ         ktail+80(FP), AX
	KMOVQ        AX, K2
	MOVL         $0x01010101, AX
	VPBROADCASTD AX, Z20
	MOVQ         a+16(FP), SI

rowblk8:
	MOVQ lda+24(FP), R14
	MOVQ m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, CX, 3)
	ROWPTR(CX, DX, 4)
	ROWPTR(DX, R8, 5)
	ROWPTR(R8, R9, 6)
	ROWPTR(R9, R10, 7)
	ROWPTR(R10, R11, 8)

	// Row sums Σa of the block's rows, times 128: Z12-Z19.
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	XORQ   AX, AX
	CMPQ   AX, R13
	JGE    sumtail8

sumloop8:
	VPDPBUSD.BCST (SI)(AX*1), Z20, Z12
	VPDPBUSD.BCST (BX)(AX*1), Z20, Z13
	VPDPBUSD.BCST (CX)(AX*1), Z20, Z14
	VPDPBUSD.BCST (DX)(AX*1), Z20, Z15
	VPDPBUSD.BCST (R8)(AX*1), Z20, Z16
	VPDPBUSD.BCST (R9)(AX*1), Z20, Z17
	VPDPBUSD.BCST (R10)(AX*1), Z20, Z18
	VPDPBUSD.BCST (R11)(AX*1), Z20, Z19
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           sumloop8

sumtail8:
	CMPQ ktail+80(FP), $0
	JEQ  sumdone8
	TAILA(SI)
	VPDPBUSD Z9, Z20, Z12
	TAILA(BX)
	VPDPBUSD Z9, Z20, Z13
	TAILA(CX)
	VPDPBUSD Z9, Z20, Z14
	TAILA(DX)
	VPDPBUSD Z9, Z20, Z15
	TAILA(R8)
	VPDPBUSD Z9, Z20, Z16
	TAILA(R9)
	VPDPBUSD Z9, Z20, Z17
	TAILA(R10)
	VPDPBUSD Z9, Z20, Z18
	TAILA(R11)
	VPDPBUSD Z9, Z20, Z19

sumdone8:
	VPSLLD $7, Z12, Z12
	VPSLLD $7, Z13, Z13
	VPSLLD $7, Z14, Z14
	VPSLLD $7, Z15, Z15
	VPSLLD $7, Z16, Z16
	VPSLLD $7, Z17, Z17
	VPSLLD $7, Z18, Z18
	VPSLLD $7, Z19, Z19
	MOVQ   w+32(FP), R12
	XORQ   DI, DI

nblk8:
	MOVQ n+56(FP), R14
	SUBQ DI, R14
	MOVL $0xffff, AX
	CMPQ R14, $16
	JGE  nmask8
	MOVQ tail+72(FP), AX

nmask8:
	KMOVW       AX, K1
	MOVQ        seed+40(FP), R14
	VMOVDQU32.Z (R14)(DI*4), K1, Z9
	VPSUBD      Z12, Z9, Z0
	VPSUBD      Z13, Z9, Z1
	VPSUBD      Z14, Z9, Z2
	VPSUBD      Z15, Z9, Z3
	VPSUBD      Z16, Z9, Z4
	VPSUBD      Z17, Z9, Z5
	VPSUBD      Z18, Z9, Z6
	VPSUBD      Z19, Z9, Z7
	XORQ        AX, AX
	CMPQ        AX, R13
	JGE         ktail8

kloop8:
	VMOVDQU32     (R12), Z8
	VPDPBUSD.BCST (SI)(AX*1), Z8, Z0
	VPDPBUSD.BCST (BX)(AX*1), Z8, Z1
	VPDPBUSD.BCST (CX)(AX*1), Z8, Z2
	VPDPBUSD.BCST (DX)(AX*1), Z8, Z3
	VPDPBUSD.BCST (R8)(AX*1), Z8, Z4
	VPDPBUSD.BCST (R9)(AX*1), Z8, Z5
	VPDPBUSD.BCST (R10)(AX*1), Z8, Z6
	VPDPBUSD.BCST (R11)(AX*1), Z8, Z7
	ADDQ          $64, R12
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           kloop8

ktail8:
	CMPQ      ktail+80(FP), $0
	JEQ       kdone8
	VMOVDQU32 (R12), Z8
	ADDQ      $64, R12
	TAILA(SI)
	VPDPBUSD Z9, Z8, Z0
	TAILA(BX)
	VPDPBUSD Z9, Z8, Z1
	TAILA(CX)
	VPDPBUSD Z9, Z8, Z2
	TAILA(DX)
	VPDPBUSD Z9, Z8, Z3
	TAILA(R8)
	VPDPBUSD Z9, Z8, Z4
	TAILA(R9)
	VPDPBUSD Z9, Z8, Z5
	TAILA(R10)
	VPDPBUSD Z9, Z8, Z6
	TAILA(R11)
	VPDPBUSD Z9, Z8, Z7

kdone8:
	MOVQ      dst+0(FP), R14
	LEAQ      (R14)(DI*4), R14
	MOVQ      ldd+8(FP), AX
	SHLQ      $2, AX
	VMOVDQU32 Z0, K1, (R14)
	CMPQ      m+48(FP), $2
	JLT       stored8
	ADDQ      AX, R14
	VMOVDQU32 Z1, K1, (R14)
	CMPQ      m+48(FP), $3
	JLT       stored8
	ADDQ      AX, R14
	VMOVDQU32 Z2, K1, (R14)
	CMPQ      m+48(FP), $4
	JLT       stored8
	ADDQ      AX, R14
	VMOVDQU32 Z3, K1, (R14)
	CMPQ      m+48(FP), $5
	JLT       stored8
	ADDQ      AX, R14
	VMOVDQU32 Z4, K1, (R14)
	CMPQ      m+48(FP), $6
	JLT       stored8
	ADDQ      AX, R14
	VMOVDQU32 Z5, K1, (R14)
	CMPQ      m+48(FP), $7
	JLT       stored8
	ADDQ      AX, R14
	VMOVDQU32 Z6, K1, (R14)
	CMPQ      m+48(FP), $8
	JLT       stored8
	ADDQ      AX, R14
	VMOVDQU32 Z7, K1, (R14)

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
	SHLQ $3, AX
	ADDQ AX, SI
	JMP  rowblk8

done8:
	VZEROUPPER
	RET

// func gemmInt8R4VNNI(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail uint64)
TEXT ·gemmInt8R4VNNI(SB), NOSPLIT, $0-88
	MOVQ         k+64(FP), R13
	ANDQ         $-4, R13
	MOVQ         ktail+80(FP), AX
	KMOVQ        AX, K2
	MOVL         $0x01010101, AX
	VPBROADCASTD AX, Z20
	MOVQ         a+16(FP), SI

rowblk4:
	MOVQ lda+24(FP), R14
	MOVQ m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, CX, 3)
	ROWPTR(CX, DX, 4)

	// Row sums Σa of the block's rows, times 128: Z12-Z15.
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	XORQ   AX, AX
	CMPQ   AX, R13
	JGE    sumtail4

sumloop4:
	VPDPBUSD.BCST (SI)(AX*1), Z20, Z12
	VPDPBUSD.BCST (BX)(AX*1), Z20, Z13
	VPDPBUSD.BCST (CX)(AX*1), Z20, Z14
	VPDPBUSD.BCST (DX)(AX*1), Z20, Z15
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           sumloop4

sumtail4:
	CMPQ ktail+80(FP), $0
	JEQ  sumdone4
	TAILA(SI)
	VPDPBUSD Z9, Z20, Z12
	TAILA(BX)
	VPDPBUSD Z9, Z20, Z13
	TAILA(CX)
	VPDPBUSD Z9, Z20, Z14
	TAILA(DX)
	VPDPBUSD Z9, Z20, Z15

sumdone4:
	VPSLLD $7, Z12, Z12
	VPSLLD $7, Z13, Z13
	VPSLLD $7, Z14, Z14
	VPSLLD $7, Z15, Z15
	MOVQ   w+32(FP), R12
	XORQ   DI, DI

nblk4:
	MOVQ n+56(FP), R14
	SUBQ DI, R14
	MOVL $0xffff, AX
	CMPQ R14, $16
	JGE  nmask4
	MOVQ tail+72(FP), AX

nmask4:
	KMOVW       AX, K1
	MOVQ        seed+40(FP), R14
	VMOVDQU32.Z (R14)(DI*4), K1, Z9
	VPSUBD      Z12, Z9, Z0
	VPSUBD      Z13, Z9, Z1
	VPSUBD      Z14, Z9, Z2
	VPSUBD      Z15, Z9, Z3
	XORQ        AX, AX
	CMPQ        AX, R13
	JGE         ktail4

kloop4:
	VMOVDQU32     (R12), Z8
	VPDPBUSD.BCST (SI)(AX*1), Z8, Z0
	VPDPBUSD.BCST (BX)(AX*1), Z8, Z1
	VPDPBUSD.BCST (CX)(AX*1), Z8, Z2
	VPDPBUSD.BCST (DX)(AX*1), Z8, Z3
	ADDQ          $64, R12
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           kloop4

ktail4:
	CMPQ      ktail+80(FP), $0
	JEQ       kdone4
	VMOVDQU32 (R12), Z8
	ADDQ      $64, R12
	TAILA(SI)
	VPDPBUSD Z9, Z8, Z0
	TAILA(BX)
	VPDPBUSD Z9, Z8, Z1
	TAILA(CX)
	VPDPBUSD Z9, Z8, Z2
	TAILA(DX)
	VPDPBUSD Z9, Z8, Z3

kdone4:
	MOVQ      dst+0(FP), R14
	LEAQ      (R14)(DI*4), R14
	MOVQ      ldd+8(FP), AX
	SHLQ      $2, AX
	VMOVDQU32 Z0, K1, (R14)
	CMPQ      m+48(FP), $2
	JLT       stored4
	ADDQ      AX, R14
	VMOVDQU32 Z1, K1, (R14)
	CMPQ      m+48(FP), $3
	JLT       stored4
	ADDQ      AX, R14
	VMOVDQU32 Z2, K1, (R14)
	CMPQ      m+48(FP), $4
	JLT       stored4
	ADDQ      AX, R14
	VMOVDQU32 Z3, K1, (R14)

stored4:
	ADDQ $16, DI
	CMPQ DI, n+56(FP)
	JLT  nblk4

done4:
	VZEROUPPER
	RET

// func gemmInt8RqR8VNNI(dst *byte, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail uint64, qp *int32, qstride int, zp, lo, hi int32, flags uint64, wz int32)
TEXT ·gemmInt8RqR8VNNI(SB), NOSPLIT, $0-132
	MOVQ         k+64(FP), R13
	ANDQ         $-4, R13
	MOVQ         ktail+80(FP), AX
	KMOVQ        AX, K2
	MOVL         $0x01010101, AX
	VPBROADCASTD AX, Z20
	RQCONSTS(zp+104(FP), lo+108(FP), hi+112(FP), AX)
	MOVL         wz+128(FP), AX
	ADDL         $128, AX
	VPBROADCASTD AX, Z10
	MOVQ         a+16(FP), SI

rowblkq8:
	MOVQ lda+24(FP), R14
	MOVQ m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, CX, 3)
	ROWPTR(CX, DX, 4)
	ROWPTR(DX, R8, 5)
	ROWPTR(R8, R9, 6)
	ROWPTR(R9, R10, 7)
	ROWPTR(R10, R11, 8)

	// Row sums Σa of the block's rows, times 128: Z12-Z19.
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	XORQ   AX, AX
	CMPQ   AX, R13
	JGE    sumtailq8

sumloopq8:
	VPDPBUSD.BCST (SI)(AX*1), Z20, Z12
	VPDPBUSD.BCST (BX)(AX*1), Z20, Z13
	VPDPBUSD.BCST (CX)(AX*1), Z20, Z14
	VPDPBUSD.BCST (DX)(AX*1), Z20, Z15
	VPDPBUSD.BCST (R8)(AX*1), Z20, Z16
	VPDPBUSD.BCST (R9)(AX*1), Z20, Z17
	VPDPBUSD.BCST (R10)(AX*1), Z20, Z18
	VPDPBUSD.BCST (R11)(AX*1), Z20, Z19
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           sumloopq8

sumtailq8:
	CMPQ ktail+80(FP), $0
	JEQ  sumdoneq8
	TAILA(SI)
	VPDPBUSD Z9, Z20, Z12
	TAILA(BX)
	VPDPBUSD Z9, Z20, Z13
	TAILA(CX)
	VPDPBUSD Z9, Z20, Z14
	TAILA(DX)
	VPDPBUSD Z9, Z20, Z15
	TAILA(R8)
	VPDPBUSD Z9, Z20, Z16
	TAILA(R9)
	VPDPBUSD Z9, Z20, Z17
	TAILA(R10)
	VPDPBUSD Z9, Z20, Z18
	TAILA(R11)
	VPDPBUSD Z9, Z20, Z19

sumdoneq8:
	VPMULLD Z10, Z12, Z12
	VPMULLD Z10, Z13, Z13
	VPMULLD Z10, Z14, Z14
	VPMULLD Z10, Z15, Z15
	VPMULLD Z10, Z16, Z16
	VPMULLD Z10, Z17, Z17
	VPMULLD Z10, Z18, Z18
	VPMULLD Z10, Z19, Z19
	MOVQ   w+32(FP), R12
	XORQ   DI, DI

nblkq8:
	MOVQ n+56(FP), R14
	SUBQ DI, R14
	MOVL $0xffff, AX
	CMPQ R14, $16
	JGE  nmaskq8
	MOVQ tail+72(FP), AX

nmaskq8:
	KMOVW       AX, K1
	MOVQ        seed+40(FP), R14
	VMOVDQU32.Z (R14)(DI*4), K1, Z9
	VPSUBD      Z12, Z9, Z0
	VPSUBD      Z13, Z9, Z1
	VPSUBD      Z14, Z9, Z2
	VPSUBD      Z15, Z9, Z3
	VPSUBD      Z16, Z9, Z4
	VPSUBD      Z17, Z9, Z5
	VPSUBD      Z18, Z9, Z6
	VPSUBD      Z19, Z9, Z7
	XORQ        AX, AX
	CMPQ        AX, R13
	JGE         ktailq8

kloopq8:
	VMOVDQU32     (R12), Z8
	VPDPBUSD.BCST (SI)(AX*1), Z8, Z0
	VPDPBUSD.BCST (BX)(AX*1), Z8, Z1
	VPDPBUSD.BCST (CX)(AX*1), Z8, Z2
	VPDPBUSD.BCST (DX)(AX*1), Z8, Z3
	VPDPBUSD.BCST (R8)(AX*1), Z8, Z4
	VPDPBUSD.BCST (R9)(AX*1), Z8, Z5
	VPDPBUSD.BCST (R10)(AX*1), Z8, Z6
	VPDPBUSD.BCST (R11)(AX*1), Z8, Z7
	ADDQ          $64, R12
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           kloopq8

ktailq8:
	CMPQ      ktail+80(FP), $0
	JEQ       kdoneq8
	VMOVDQU32 (R12), Z8
	ADDQ      $64, R12
	TAILA(SI)
	VPDPBUSD Z9, Z8, Z0
	TAILA(BX)
	VPDPBUSD Z9, Z8, Z1
	TAILA(CX)
	VPDPBUSD Z9, Z8, Z2
	TAILA(DX)
	VPDPBUSD Z9, Z8, Z3
	TAILA(R8)
	VPDPBUSD Z9, Z8, Z4
	TAILA(R9)
	VPDPBUSD Z9, Z8, Z5
	TAILA(R10)
	VPDPBUSD Z9, Z8, Z6
	TAILA(R11)
	VPDPBUSD Z9, Z8, Z7

kdoneq8:
	// Requantise the rows in place and narrow them to bytes.
	MOVQ      qp+88(FP), AX
	LEAQ      (AX)(DI*4), AX
	VMOVDQU32 (AX), Z22
	ADDQ      qstride+96(FP), AX
	VMOVDQU32 (AX), Z23
	ADDQ      qstride+96(FP), AX
	VMOVDQU32 (AX), Z24
	ADDQ      qstride+96(FP), AX
	VMOVDQU32 (AX), Z25
	ADDQ      qstride+96(FP), AX
	VMOVDQU32 (AX), Z26
	ADDQ      qstride+96(FP), AX
	VMOVDQU32 (AX), Z27
	TESTQ     $RQF_LEFT, flags+120(FP)
	JZ        noleftq8
	RQLEFT(Z0)
	RQLEFT(Z1)
	RQLEFT(Z2)
	RQLEFT(Z3)
	RQLEFT(Z4)
	RQLEFT(Z5)
	RQLEFT(Z6)
	RQLEFT(Z7)

noleftq8:
	RQCORE(Z0, Z8, Z9)
	RQCORE(Z1, Z8, Z9)
	RQCORE(Z2, Z8, Z9)
	RQCORE(Z3, Z8, Z9)
	RQCORE(Z4, Z8, Z9)
	RQCORE(Z5, Z8, Z9)
	RQCORE(Z6, Z8, Z9)
	RQCORE(Z7, Z8, Z9)
	TESTQ     $RQF_SAT8, flags+120(FP)
	JNZ       satq8
	TESTQ     $RQF_USAT8, flags+120(FP)
	JNZ       usatq8
	RQCLAMP(Z0)
	VPMOVDB   Z0, X0
	RQCLAMP(Z1)
	VPMOVDB   Z1, X1
	RQCLAMP(Z2)
	VPMOVDB   Z2, X2
	RQCLAMP(Z3)
	VPMOVDB   Z3, X3
	RQCLAMP(Z4)
	VPMOVDB   Z4, X4
	RQCLAMP(Z5)
	VPMOVDB   Z5, X5
	RQCLAMP(Z6)
	VPMOVDB   Z6, X6
	RQCLAMP(Z7)
	VPMOVDB   Z7, X7
	JMP       narrowedq8

satq8:
	VPMOVSDB  Z0, X0
	VPMOVSDB  Z1, X1
	VPMOVSDB  Z2, X2
	VPMOVSDB  Z3, X3
	VPMOVSDB  Z4, X4
	VPMOVSDB  Z5, X5
	VPMOVSDB  Z6, X6
	VPMOVSDB  Z7, X7
	JMP       narrowedq8

usatq8:
	VPMAXSD   Z31, Z0, Z0
	VPMOVUSDB Z0, X0
	VPMAXSD   Z31, Z1, Z1
	VPMOVUSDB Z1, X1
	VPMAXSD   Z31, Z2, Z2
	VPMOVUSDB Z2, X2
	VPMAXSD   Z31, Z3, Z3
	VPMOVUSDB Z3, X3
	VPMAXSD   Z31, Z4, Z4
	VPMOVUSDB Z4, X4
	VPMAXSD   Z31, Z5, Z5
	VPMOVUSDB Z5, X5
	VPMAXSD   Z31, Z6, Z6
	VPMOVUSDB Z6, X6
	VPMAXSD   Z31, Z7, Z7
	VPMOVUSDB Z7, X7

narrowedq8:
	MOVQ      dst+0(FP), R14
	ADDQ      DI, R14
	MOVQ      ldd+8(FP), AX
	KORTESTW  K1, K1
	JCC       partialq8
	VMOVDQU   X0, (R14)
	CMPQ      m+48(FP), $2
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU   X1, (R14)
	CMPQ      m+48(FP), $3
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU   X2, (R14)
	CMPQ      m+48(FP), $4
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU   X3, (R14)
	CMPQ      m+48(FP), $5
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU   X4, (R14)
	CMPQ      m+48(FP), $6
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU   X5, (R14)
	CMPQ      m+48(FP), $7
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU   X6, (R14)
	CMPQ      m+48(FP), $8
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU   X7, (R14)
	JMP       storedq8

partialq8:
	VMOVDQU8  X0, K1, (R14)
	CMPQ      m+48(FP), $2
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU8  X1, K1, (R14)
	CMPQ      m+48(FP), $3
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU8  X2, K1, (R14)
	CMPQ      m+48(FP), $4
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU8  X3, K1, (R14)
	CMPQ      m+48(FP), $5
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU8  X4, K1, (R14)
	CMPQ      m+48(FP), $6
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU8  X5, K1, (R14)
	CMPQ      m+48(FP), $7
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU8  X6, K1, (R14)
	CMPQ      m+48(FP), $8
	JLT       storedq8
	ADDQ      AX, R14
	VMOVDQU8  X7, K1, (R14)

storedq8:
	ADDQ $16, DI
	CMPQ DI, n+56(FP)
	JLT  nblkq8

	// Next block of 8 rows.
	SUBQ $8, m+48(FP)
	JLE  doneq8
	MOVQ ldd+8(FP), AX
	SHLQ $3, AX
	ADDQ AX, dst+0(FP)
	MOVQ lda+24(FP), AX
	SHLQ $3, AX
	ADDQ AX, SI
	JMP  rowblkq8

doneq8:
	VZEROUPPER
	RET

// func gemmInt8RqR4VNNI(dst *byte, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail uint64, qp *int32, qstride int, zp, lo, hi int32, flags uint64, wz int32)
TEXT ·gemmInt8RqR4VNNI(SB), NOSPLIT, $0-132
	MOVQ         k+64(FP), R13
	ANDQ         $-4, R13
	MOVQ         ktail+80(FP), AX
	KMOVQ        AX, K2
	MOVL         $0x01010101, AX
	VPBROADCASTD AX, Z20
	RQCONSTS(zp+104(FP), lo+108(FP), hi+112(FP), AX)
	MOVL         wz+128(FP), AX
	ADDL         $128, AX
	VPBROADCASTD AX, Z10
	MOVQ         a+16(FP), SI

rowblkq4:
	MOVQ lda+24(FP), R14
	MOVQ m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, CX, 3)
	ROWPTR(CX, DX, 4)

	// Row sums Σa of the block's rows, times 128: Z12-Z15.
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	XORQ   AX, AX
	CMPQ   AX, R13
	JGE    sumtailq4

sumloopq4:
	VPDPBUSD.BCST (SI)(AX*1), Z20, Z12
	VPDPBUSD.BCST (BX)(AX*1), Z20, Z13
	VPDPBUSD.BCST (CX)(AX*1), Z20, Z14
	VPDPBUSD.BCST (DX)(AX*1), Z20, Z15
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           sumloopq4

sumtailq4:
	CMPQ ktail+80(FP), $0
	JEQ  sumdoneq4
	TAILA(SI)
	VPDPBUSD Z9, Z20, Z12
	TAILA(BX)
	VPDPBUSD Z9, Z20, Z13
	TAILA(CX)
	VPDPBUSD Z9, Z20, Z14
	TAILA(DX)
	VPDPBUSD Z9, Z20, Z15

sumdoneq4:
	VPMULLD Z10, Z12, Z12
	VPMULLD Z10, Z13, Z13
	VPMULLD Z10, Z14, Z14
	VPMULLD Z10, Z15, Z15
	MOVQ   w+32(FP), R12
	XORQ   DI, DI

nblkq4:
	MOVQ n+56(FP), R14
	SUBQ DI, R14
	MOVL $0xffff, AX
	CMPQ R14, $16
	JGE  nmaskq4
	MOVQ tail+72(FP), AX

nmaskq4:
	KMOVW       AX, K1
	MOVQ        seed+40(FP), R14
	VMOVDQU32.Z (R14)(DI*4), K1, Z9
	VPSUBD      Z12, Z9, Z0
	VPSUBD      Z13, Z9, Z1
	VPSUBD      Z14, Z9, Z2
	VPSUBD      Z15, Z9, Z3
	XORQ        AX, AX
	CMPQ        AX, R13
	JGE         ktailq4

kloopq4:
	VMOVDQU32     (R12), Z8
	VPDPBUSD.BCST (SI)(AX*1), Z8, Z0
	VPDPBUSD.BCST (BX)(AX*1), Z8, Z1
	VPDPBUSD.BCST (CX)(AX*1), Z8, Z2
	VPDPBUSD.BCST (DX)(AX*1), Z8, Z3
	ADDQ          $64, R12
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           kloopq4

ktailq4:
	CMPQ      ktail+80(FP), $0
	JEQ       kdoneq4
	VMOVDQU32 (R12), Z8
	ADDQ      $64, R12
	TAILA(SI)
	VPDPBUSD Z9, Z8, Z0
	TAILA(BX)
	VPDPBUSD Z9, Z8, Z1
	TAILA(CX)
	VPDPBUSD Z9, Z8, Z2
	TAILA(DX)
	VPDPBUSD Z9, Z8, Z3

kdoneq4:
	// Requantise the rows in place and narrow them to bytes.
	MOVQ      qp+88(FP), AX
	LEAQ      (AX)(DI*4), AX
	VMOVDQU32 (AX), Z22
	ADDQ      qstride+96(FP), AX
	VMOVDQU32 (AX), Z23
	ADDQ      qstride+96(FP), AX
	VMOVDQU32 (AX), Z24
	ADDQ      qstride+96(FP), AX
	VMOVDQU32 (AX), Z25
	ADDQ      qstride+96(FP), AX
	VMOVDQU32 (AX), Z26
	ADDQ      qstride+96(FP), AX
	VMOVDQU32 (AX), Z27
	TESTQ     $RQF_LEFT, flags+120(FP)
	JZ        noleftq4
	RQLEFT(Z0)
	RQLEFT(Z1)
	RQLEFT(Z2)
	RQLEFT(Z3)

noleftq4:
	RQCORE(Z0, Z8, Z9)
	RQCORE(Z1, Z8, Z9)
	RQCORE(Z2, Z8, Z9)
	RQCORE(Z3, Z8, Z9)
	TESTQ     $RQF_SAT8, flags+120(FP)
	JNZ       satq4
	TESTQ     $RQF_USAT8, flags+120(FP)
	JNZ       usatq4
	RQCLAMP(Z0)
	VPMOVDB   Z0, X0
	RQCLAMP(Z1)
	VPMOVDB   Z1, X1
	RQCLAMP(Z2)
	VPMOVDB   Z2, X2
	RQCLAMP(Z3)
	VPMOVDB   Z3, X3
	JMP       narrowedq4

satq4:
	VPMOVSDB  Z0, X0
	VPMOVSDB  Z1, X1
	VPMOVSDB  Z2, X2
	VPMOVSDB  Z3, X3
	JMP       narrowedq4

usatq4:
	VPMAXSD   Z31, Z0, Z0
	VPMOVUSDB Z0, X0
	VPMAXSD   Z31, Z1, Z1
	VPMOVUSDB Z1, X1
	VPMAXSD   Z31, Z2, Z2
	VPMOVUSDB Z2, X2
	VPMAXSD   Z31, Z3, Z3
	VPMOVUSDB Z3, X3

narrowedq4:
	MOVQ      dst+0(FP), R14
	ADDQ      DI, R14
	MOVQ      ldd+8(FP), AX
	KORTESTW  K1, K1
	JCC       partialq4
	VMOVDQU   X0, (R14)
	CMPQ      m+48(FP), $2
	JLT       storedq4
	ADDQ      AX, R14
	VMOVDQU   X1, (R14)
	CMPQ      m+48(FP), $3
	JLT       storedq4
	ADDQ      AX, R14
	VMOVDQU   X2, (R14)
	CMPQ      m+48(FP), $4
	JLT       storedq4
	ADDQ      AX, R14
	VMOVDQU   X3, (R14)
	JMP       storedq4

partialq4:
	VMOVDQU8  X0, K1, (R14)
	CMPQ      m+48(FP), $2
	JLT       storedq4
	ADDQ      AX, R14
	VMOVDQU8  X1, K1, (R14)
	CMPQ      m+48(FP), $3
	JLT       storedq4
	ADDQ      AX, R14
	VMOVDQU8  X2, K1, (R14)
	CMPQ      m+48(FP), $4
	JLT       storedq4
	ADDQ      AX, R14
	VMOVDQU8  X3, K1, (R14)

storedq4:
	ADDQ $16, DI
	CMPQ DI, n+56(FP)
	JLT  nblkq4

doneq4:
	VZEROUPPER
	RET

// func gemmInt8RqR8VNNIY(dst *byte, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail uint64, qp *int32, qstride int, zp, lo, hi int32, flags uint64, wz int32)
//
// gemmInt8RqR8VNNI for n ≤ 8 on EVEX YMM registers (8 lanes: twice the
// throughput of half-empty ZMM vectors on Zen 4).
TEXT ·gemmInt8RqR8VNNIY(SB), NOSPLIT, $0-132
	MOVQ         k+64(FP), R13
	ANDQ         $-4, R13
	MOVQ         ktail+80(FP), AX
	KMOVQ        AX, K2
	MOVL         $0x01010101, AX
	VPBROADCASTD AX, Y20
	RQCONSTSY(zp+104(FP), lo+108(FP), hi+112(FP), AX)
	MOVQ         tail+72(FP), AX
	KMOVW        AX, K1
	MOVQ         qp+88(FP), AX
	VMOVDQU32    (AX), Y22
	ADDQ         qstride+96(FP), AX
	VMOVDQU32    (AX), Y23
	ADDQ         qstride+96(FP), AX
	VMOVDQU32    (AX), Y24
	ADDQ         qstride+96(FP), AX
	VMOVDQU32    (AX), Y25
	ADDQ         qstride+96(FP), AX
	VMOVDQU32    (AX), Y26
	ADDQ         qstride+96(FP), AX
	VMOVDQU32    (AX), Y27
	MOVQ         seed+40(FP), AX
	VMOVDQU32.Z  (AX), K1, Y11
	MOVL         wz+128(FP), AX
	ADDL         $128, AX
	VPBROADCASTD AX, Y10
	MOVQ         a+16(FP), SI

rowblky8:
	MOVQ lda+24(FP), R14
	MOVQ m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, CX, 3)
	ROWPTR(CX, DX, 4)
	ROWPTR(DX, R8, 5)
	ROWPTR(R8, R9, 6)
	ROWPTR(R9, R10, 7)
	ROWPTR(R10, R11, 8)

	// Sums start at seed - 128·Σa (Y0-Y7); Y12-Y19 accumulate Σa.
	VPXORD Y12, Y12, Y12
	VPXORD Y13, Y13, Y13
	VPXORD Y14, Y14, Y14
	VPXORD Y15, Y15, Y15
	VPXORD Y16, Y16, Y16
	VPXORD Y17, Y17, Y17
	VPXORD Y18, Y18, Y18
	VPXORD Y19, Y19, Y19
	XORQ   AX, AX
	CMPQ   AX, R13
	JGE    sumtaily8

sumloopy8:
	VPDPBUSD.BCST (SI)(AX*1), Y20, Y12
	VPDPBUSD.BCST (BX)(AX*1), Y20, Y13
	VPDPBUSD.BCST (CX)(AX*1), Y20, Y14
	VPDPBUSD.BCST (DX)(AX*1), Y20, Y15
	VPDPBUSD.BCST (R8)(AX*1), Y20, Y16
	VPDPBUSD.BCST (R9)(AX*1), Y20, Y17
	VPDPBUSD.BCST (R10)(AX*1), Y20, Y18
	VPDPBUSD.BCST (R11)(AX*1), Y20, Y19
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           sumloopy8

sumtaily8:
	CMPQ ktail+80(FP), $0
	JEQ  sumdoney8
	TAILAY(SI)
	VPDPBUSD Y9, Y20, Y12
	TAILAY(BX)
	VPDPBUSD Y9, Y20, Y13
	TAILAY(CX)
	VPDPBUSD Y9, Y20, Y14
	TAILAY(DX)
	VPDPBUSD Y9, Y20, Y15
	TAILAY(R8)
	VPDPBUSD Y9, Y20, Y16
	TAILAY(R9)
	VPDPBUSD Y9, Y20, Y17
	TAILAY(R10)
	VPDPBUSD Y9, Y20, Y18
	TAILAY(R11)
	VPDPBUSD Y9, Y20, Y19

sumdoney8:
	VPMULLD Y10, Y12, Y12
	VPSUBD Y12, Y11, Y0
	VPMULLD Y10, Y13, Y13
	VPSUBD Y13, Y11, Y1
	VPMULLD Y10, Y14, Y14
	VPSUBD Y14, Y11, Y2
	VPMULLD Y10, Y15, Y15
	VPSUBD Y15, Y11, Y3
	VPMULLD Y10, Y16, Y16
	VPSUBD Y16, Y11, Y4
	VPMULLD Y10, Y17, Y17
	VPSUBD Y17, Y11, Y5
	VPMULLD Y10, Y18, Y18
	VPSUBD Y18, Y11, Y6
	VPMULLD Y10, Y19, Y19
	VPSUBD Y19, Y11, Y7
	MOVQ   w+32(FP), R12
	XORQ   AX, AX
	CMPQ   AX, R13
	JGE    ktaily8

kloopy8:
	VMOVDQU32     (R12), Y8
	VPDPBUSD.BCST (SI)(AX*1), Y8, Y0
	VPDPBUSD.BCST (BX)(AX*1), Y8, Y1
	VPDPBUSD.BCST (CX)(AX*1), Y8, Y2
	VPDPBUSD.BCST (DX)(AX*1), Y8, Y3
	VPDPBUSD.BCST (R8)(AX*1), Y8, Y4
	VPDPBUSD.BCST (R9)(AX*1), Y8, Y5
	VPDPBUSD.BCST (R10)(AX*1), Y8, Y6
	VPDPBUSD.BCST (R11)(AX*1), Y8, Y7
	ADDQ          $64, R12
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           kloopy8

ktaily8:
	CMPQ      ktail+80(FP), $0
	JEQ       kdoney8
	VMOVDQU32 (R12), Y8
	TAILAY(SI)
	VPDPBUSD Y9, Y8, Y0
	TAILAY(BX)
	VPDPBUSD Y9, Y8, Y1
	TAILAY(CX)
	VPDPBUSD Y9, Y8, Y2
	TAILAY(DX)
	VPDPBUSD Y9, Y8, Y3
	TAILAY(R8)
	VPDPBUSD Y9, Y8, Y4
	TAILAY(R9)
	VPDPBUSD Y9, Y8, Y5
	TAILAY(R10)
	VPDPBUSD Y9, Y8, Y6
	TAILAY(R11)
	VPDPBUSD Y9, Y8, Y7

kdoney8:
	TESTQ     $RQF_LEFT, flags+120(FP)
	JZ        nolefty8
	RQLEFTY(Y0)
	RQLEFTY(Y1)
	RQLEFTY(Y2)
	RQLEFTY(Y3)
	RQLEFTY(Y4)
	RQLEFTY(Y5)
	RQLEFTY(Y6)
	RQLEFTY(Y7)

nolefty8:
	RQCOREY(Y0, Y8, Y9)
	RQCOREY(Y1, Y8, Y9)
	RQCOREY(Y2, Y8, Y9)
	RQCOREY(Y3, Y8, Y9)
	RQCOREY(Y4, Y8, Y9)
	RQCOREY(Y5, Y8, Y9)
	RQCOREY(Y6, Y8, Y9)
	RQCOREY(Y7, Y8, Y9)
	TESTQ     $RQF_SAT8, flags+120(FP)
	JNZ       saty8
	TESTQ     $RQF_USAT8, flags+120(FP)
	JNZ       usaty8
	RQCLAMPY(Y0)
	VPMOVDB   Y0, X0
	RQCLAMPY(Y1)
	VPMOVDB   Y1, X1
	RQCLAMPY(Y2)
	VPMOVDB   Y2, X2
	RQCLAMPY(Y3)
	VPMOVDB   Y3, X3
	RQCLAMPY(Y4)
	VPMOVDB   Y4, X4
	RQCLAMPY(Y5)
	VPMOVDB   Y5, X5
	RQCLAMPY(Y6)
	VPMOVDB   Y6, X6
	RQCLAMPY(Y7)
	VPMOVDB   Y7, X7
	JMP       narrowedy8

saty8:
	VPMOVSDB  Y0, X0
	VPMOVSDB  Y1, X1
	VPMOVSDB  Y2, X2
	VPMOVSDB  Y3, X3
	VPMOVSDB  Y4, X4
	VPMOVSDB  Y5, X5
	VPMOVSDB  Y6, X6
	VPMOVSDB  Y7, X7
	JMP       narrowedy8

usaty8:
	VPMAXSD   Y31, Y0, Y0
	VPMOVUSDB Y0, X0
	VPMAXSD   Y31, Y1, Y1
	VPMOVUSDB Y1, X1
	VPMAXSD   Y31, Y2, Y2
	VPMOVUSDB Y2, X2
	VPMAXSD   Y31, Y3, Y3
	VPMOVUSDB Y3, X3
	VPMAXSD   Y31, Y4, Y4
	VPMOVUSDB Y4, X4
	VPMAXSD   Y31, Y5, Y5
	VPMOVUSDB Y5, X5
	VPMAXSD   Y31, Y6, Y6
	VPMOVUSDB Y6, X6
	VPMAXSD   Y31, Y7, Y7
	VPMOVUSDB Y7, X7

narrowedy8:
	MOVQ      dst+0(FP), R14
	MOVQ      ldd+8(FP), AX
	KORTESTB  K1, K1
	JCC       partialy8
	MOVQ      X0, (R14)
	CMPQ      m+48(FP), $2
	JLT       storedy8
	ADDQ      AX, R14
	MOVQ      X1, (R14)
	CMPQ      m+48(FP), $3
	JLT       storedy8
	ADDQ      AX, R14
	MOVQ      X2, (R14)
	CMPQ      m+48(FP), $4
	JLT       storedy8
	ADDQ      AX, R14
	MOVQ      X3, (R14)
	CMPQ      m+48(FP), $5
	JLT       storedy8
	ADDQ      AX, R14
	MOVQ      X4, (R14)
	CMPQ      m+48(FP), $6
	JLT       storedy8
	ADDQ      AX, R14
	MOVQ      X5, (R14)
	CMPQ      m+48(FP), $7
	JLT       storedy8
	ADDQ      AX, R14
	MOVQ      X6, (R14)
	CMPQ      m+48(FP), $8
	JLT       storedy8
	ADDQ      AX, R14
	MOVQ      X7, (R14)
	JMP       storedy8

partialy8:
	VMOVDQU8  X0, K1, (R14)
	CMPQ      m+48(FP), $2
	JLT       storedy8
	ADDQ      AX, R14
	VMOVDQU8  X1, K1, (R14)
	CMPQ      m+48(FP), $3
	JLT       storedy8
	ADDQ      AX, R14
	VMOVDQU8  X2, K1, (R14)
	CMPQ      m+48(FP), $4
	JLT       storedy8
	ADDQ      AX, R14
	VMOVDQU8  X3, K1, (R14)
	CMPQ      m+48(FP), $5
	JLT       storedy8
	ADDQ      AX, R14
	VMOVDQU8  X4, K1, (R14)
	CMPQ      m+48(FP), $6
	JLT       storedy8
	ADDQ      AX, R14
	VMOVDQU8  X5, K1, (R14)
	CMPQ      m+48(FP), $7
	JLT       storedy8
	ADDQ      AX, R14
	VMOVDQU8  X6, K1, (R14)
	CMPQ      m+48(FP), $8
	JLT       storedy8
	ADDQ      AX, R14
	VMOVDQU8  X7, K1, (R14)

storedy8:
	SUBQ $8, m+48(FP)
	JLE  doney8
	MOVQ ldd+8(FP), AX
	SHLQ $3, AX
	ADDQ AX, dst+0(FP)
	MOVQ lda+24(FP), AX
	SHLQ $3, AX
	ADDQ AX, SI
	JMP  rowblky8

doney8:
	VZEROUPPER
	RET

// func gemmInt8RqR4VNNIY(dst *byte, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail uint64, qp *int32, qstride int, zp, lo, hi int32, flags uint64, wz int32)
//
// gemmInt8RqR4VNNI for n ≤ 8 on EVEX YMM registers (8 lanes: twice the
// throughput of half-empty ZMM vectors on Zen 4).
TEXT ·gemmInt8RqR4VNNIY(SB), NOSPLIT, $0-132
	MOVQ         k+64(FP), R13
	ANDQ         $-4, R13
	MOVQ         ktail+80(FP), AX
	KMOVQ        AX, K2
	MOVL         $0x01010101, AX
	VPBROADCASTD AX, Y20
	RQCONSTSY(zp+104(FP), lo+108(FP), hi+112(FP), AX)
	MOVQ         tail+72(FP), AX
	KMOVW        AX, K1
	MOVQ         qp+88(FP), AX
	VMOVDQU32    (AX), Y22
	ADDQ         qstride+96(FP), AX
	VMOVDQU32    (AX), Y23
	ADDQ         qstride+96(FP), AX
	VMOVDQU32    (AX), Y24
	ADDQ         qstride+96(FP), AX
	VMOVDQU32    (AX), Y25
	ADDQ         qstride+96(FP), AX
	VMOVDQU32    (AX), Y26
	ADDQ         qstride+96(FP), AX
	VMOVDQU32    (AX), Y27
	MOVQ         seed+40(FP), AX
	VMOVDQU32.Z  (AX), K1, Y11
	MOVL         wz+128(FP), AX
	ADDL         $128, AX
	VPBROADCASTD AX, Y10
	MOVQ         a+16(FP), SI

rowblky4:
	MOVQ lda+24(FP), R14
	MOVQ m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, CX, 3)
	ROWPTR(CX, DX, 4)

	// Sums start at seed - 128·Σa (Y0-Y3); Y12-Y15 accumulate Σa.
	VPXORD Y12, Y12, Y12
	VPXORD Y13, Y13, Y13
	VPXORD Y14, Y14, Y14
	VPXORD Y15, Y15, Y15
	XORQ   AX, AX
	CMPQ   AX, R13
	JGE    sumtaily4

sumloopy4:
	VPDPBUSD.BCST (SI)(AX*1), Y20, Y12
	VPDPBUSD.BCST (BX)(AX*1), Y20, Y13
	VPDPBUSD.BCST (CX)(AX*1), Y20, Y14
	VPDPBUSD.BCST (DX)(AX*1), Y20, Y15
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           sumloopy4

sumtaily4:
	CMPQ ktail+80(FP), $0
	JEQ  sumdoney4
	TAILAY(SI)
	VPDPBUSD Y9, Y20, Y12
	TAILAY(BX)
	VPDPBUSD Y9, Y20, Y13
	TAILAY(CX)
	VPDPBUSD Y9, Y20, Y14
	TAILAY(DX)
	VPDPBUSD Y9, Y20, Y15

sumdoney4:
	VPMULLD Y10, Y12, Y12
	VPSUBD Y12, Y11, Y0
	VPMULLD Y10, Y13, Y13
	VPSUBD Y13, Y11, Y1
	VPMULLD Y10, Y14, Y14
	VPSUBD Y14, Y11, Y2
	VPMULLD Y10, Y15, Y15
	VPSUBD Y15, Y11, Y3
	MOVQ   w+32(FP), R12
	XORQ   AX, AX
	CMPQ   AX, R13
	JGE    ktaily4

kloopy4:
	VMOVDQU32     (R12), Y8
	VPDPBUSD.BCST (SI)(AX*1), Y8, Y0
	VPDPBUSD.BCST (BX)(AX*1), Y8, Y1
	VPDPBUSD.BCST (CX)(AX*1), Y8, Y2
	VPDPBUSD.BCST (DX)(AX*1), Y8, Y3
	ADDQ          $64, R12
	ADDQ          $4, AX
	CMPQ          AX, R13
	JLT           kloopy4

ktaily4:
	CMPQ      ktail+80(FP), $0
	JEQ       kdoney4
	VMOVDQU32 (R12), Y8
	TAILAY(SI)
	VPDPBUSD Y9, Y8, Y0
	TAILAY(BX)
	VPDPBUSD Y9, Y8, Y1
	TAILAY(CX)
	VPDPBUSD Y9, Y8, Y2
	TAILAY(DX)
	VPDPBUSD Y9, Y8, Y3

kdoney4:
	TESTQ     $RQF_LEFT, flags+120(FP)
	JZ        nolefty4
	RQLEFTY(Y0)
	RQLEFTY(Y1)
	RQLEFTY(Y2)
	RQLEFTY(Y3)

nolefty4:
	RQCOREY(Y0, Y8, Y9)
	RQCOREY(Y1, Y8, Y9)
	RQCOREY(Y2, Y8, Y9)
	RQCOREY(Y3, Y8, Y9)
	TESTQ     $RQF_SAT8, flags+120(FP)
	JNZ       saty4
	TESTQ     $RQF_USAT8, flags+120(FP)
	JNZ       usaty4
	RQCLAMPY(Y0)
	VPMOVDB   Y0, X0
	RQCLAMPY(Y1)
	VPMOVDB   Y1, X1
	RQCLAMPY(Y2)
	VPMOVDB   Y2, X2
	RQCLAMPY(Y3)
	VPMOVDB   Y3, X3
	JMP       narrowedy4

saty4:
	VPMOVSDB  Y0, X0
	VPMOVSDB  Y1, X1
	VPMOVSDB  Y2, X2
	VPMOVSDB  Y3, X3
	JMP       narrowedy4

usaty4:
	VPMAXSD   Y31, Y0, Y0
	VPMOVUSDB Y0, X0
	VPMAXSD   Y31, Y1, Y1
	VPMOVUSDB Y1, X1
	VPMAXSD   Y31, Y2, Y2
	VPMOVUSDB Y2, X2
	VPMAXSD   Y31, Y3, Y3
	VPMOVUSDB Y3, X3

narrowedy4:
	MOVQ      dst+0(FP), R14
	MOVQ      ldd+8(FP), AX
	KORTESTB  K1, K1
	JCC       partialy4
	MOVQ      X0, (R14)
	CMPQ      m+48(FP), $2
	JLT       storedy4
	ADDQ      AX, R14
	MOVQ      X1, (R14)
	CMPQ      m+48(FP), $3
	JLT       storedy4
	ADDQ      AX, R14
	MOVQ      X2, (R14)
	CMPQ      m+48(FP), $4
	JLT       storedy4
	ADDQ      AX, R14
	MOVQ      X3, (R14)
	JMP       storedy4

partialy4:
	VMOVDQU8  X0, K1, (R14)
	CMPQ      m+48(FP), $2
	JLT       storedy4
	ADDQ      AX, R14
	VMOVDQU8  X1, K1, (R14)
	CMPQ      m+48(FP), $3
	JLT       storedy4
	ADDQ      AX, R14
	VMOVDQU8  X2, K1, (R14)
	CMPQ      m+48(FP), $4
	JLT       storedy4
	ADDQ      AX, R14
	VMOVDQU8  X3, K1, (R14)

storedy4:
	VZEROUPPER
	RET
