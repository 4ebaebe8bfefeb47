//go:build !purego

// AVX2 GEMM micro-kernels for GemmF32 and GemmInt8 (gemm.go): a block of
// up to 4 pixel rows times the packed weights.

#include "textflag.h"

// ROWPTR sets a row pointer: the previous plus the row stride R14, or the
// previous again when the row index reaches m (DI).
#define ROWPTR(prev, next, idx) \
	LEAQ    (prev)(R14*1), next \
	CMPQ    DI, $idx            \
	CMOVQLT prev, next

// AVX2 float32 GEMM micro-kernel for GemmF32's gemmF32Func (gemm.go): up
// to 4 pixel rows times the packed weights, 16 output channels (two YMM
// vectors) per step. Each reduction step loads the 16 packed weights
// once, broadcasts one element of every row (VBROADCASTSS), multiplies
// (VMULPS) and adds (VADDPS) separately, no fused multiply-add
// (TensorFlow Lite's order on x86): no horizontal sums. The sums start at
// 0; after the reduction range the weight pointer skips wskip bytes to
// the range in the next channel block. With flags bit 0 the values in dst
// are added; with bit 1 the bias is added and the clamp applied (VMAXPS
// with lo then VMINPS with hi, x the second source, so a NaN passes). The
// last, partial channel block reads dst and the bias and stores through
// VMASKMOVPS with the masks mlo/mhi (neither reads nor writes masked-off
// lanes).
//
// Rows beyond m in the last row block alias the last real row: computed,
// neither loaded from dst nor stored.

// func gemmF32R4AVX2(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, mlo, mhi *int32, wskip int, flags uint64)
//
// SI, BX, CX, DX rows 0-3; R12 packed weights; AX reduction offset
// (bytes); R13 k·4; DI channel index j; Y0-Y7 sums (row r in Y(2r),
// Y(2r+1)); Y8/Y9 weights; Y10/Y11 broadcasts; Y12-Y15 products, then
// the tail masks (Y12/Y13), the values added and lo/hi (Y14/Y15).
// k ≥ 1, m ≥ 1, n ≥ 1.
TEXT ·gemmF32R4AVX2(SB), NOSPLIT, $0-112
	MOVQ k+64(FP), R13
	SHLQ $2, R13
	MOVQ a+16(FP), SI

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
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ   AX, AX

kloop:
	VMOVUPS      (R12), Y8
	VMOVUPS      32(R12), Y9
	VBROADCASTSS (SI)(AX*1), Y10
	VMULPS       Y8, Y10, Y12
	VMULPS       Y9, Y10, Y13
	VBROADCASTSS (BX)(AX*1), Y11
	VMULPS       Y8, Y11, Y14
	VMULPS       Y9, Y11, Y15
	VADDPS       Y12, Y0, Y0
	VADDPS       Y13, Y1, Y1
	VADDPS       Y14, Y2, Y2
	VADDPS       Y15, Y3, Y3
	VBROADCASTSS (CX)(AX*1), Y10
	VMULPS       Y8, Y10, Y12
	VMULPS       Y9, Y10, Y13
	VBROADCASTSS (DX)(AX*1), Y11
	VMULPS       Y8, Y11, Y14
	VMULPS       Y9, Y11, Y15
	VADDPS       Y12, Y4, Y4
	VADDPS       Y13, Y5, Y5
	VADDPS       Y14, Y6, Y6
	VADDPS       Y15, Y7, Y7
	ADDQ         $64, R12
	ADDQ         $4, AX
	CMPQ         AX, R13
	JLT          kloop
	ADDQ         wskip+96(FP), R12

	MOVQ    mlo+80(FP), R14
	VMOVDQU (R14), Y12
	MOVQ    mhi+88(FP), R14
	VMOVDQU (R14), Y13
	MOVQ    n+56(FP), R14
	SUBQ    DI, R14
	CMPQ    R14, $16
	JLT     masked
	VPCMPEQD Y12, Y12, Y12
	VPCMPEQD Y13, Y13, Y13

masked:
	MOVQ  ldd+8(FP), AX
	SHLQ  $2, AX
	TESTQ $1, flags+104(FP)
	JZ    noacc
	MOVQ  dst+0(FP), R14
	LEAQ  (R14)(DI*4), R14
	VMASKMOVPS (R14), Y12, Y14
	VMASKMOVPS 32(R14), Y13, Y15
	VADDPS     Y14, Y0, Y0
	VADDPS     Y15, Y1, Y1
	CMPQ       m+48(FP), $2
	JLT        noacc
	ADDQ       AX, R14
	VMASKMOVPS (R14), Y12, Y14
	VMASKMOVPS 32(R14), Y13, Y15
	VADDPS     Y14, Y2, Y2
	VADDPS     Y15, Y3, Y3
	CMPQ       m+48(FP), $3
	JLT        noacc
	ADDQ       AX, R14
	VMASKMOVPS (R14), Y12, Y14
	VMASKMOVPS 32(R14), Y13, Y15
	VADDPS     Y14, Y4, Y4
	VADDPS     Y15, Y5, Y5
	CMPQ       m+48(FP), $4
	JLT        noacc
	ADDQ       AX, R14
	VMASKMOVPS (R14), Y12, Y14
	VMASKMOVPS 32(R14), Y13, Y15
	VADDPS     Y14, Y6, Y6
	VADDPS     Y15, Y7, Y7

noacc:
	TESTQ      $2, flags+104(FP)
	JZ         final
	MOVQ       bias+40(FP), R14
	LEAQ       (R14)(DI*4), R14
	VMASKMOVPS (R14), Y12, Y14
	VMASKMOVPS 32(R14), Y13, Y15
	VADDPS     Y14, Y0, Y0
	VADDPS     Y15, Y1, Y1
	VADDPS     Y14, Y2, Y2
	VADDPS     Y15, Y3, Y3
	VADDPS     Y14, Y4, Y4
	VADDPS     Y15, Y5, Y5
	VADDPS     Y14, Y6, Y6
	VADDPS     Y15, Y7, Y7
	VBROADCASTSS lo+72(FP), Y14
	VBROADCASTSS hi+76(FP), Y15
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

final:
	MOVQ dst+0(FP), R14
	LEAQ (R14)(DI*4), R14
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

// AVX2 int8 GEMM micro-kernel for GemmInt8 (gemm.go), for CPUs without
// VNNI: up to 4 pixel rows times the packed weights, 8 output channels
// (half a packed block) per pass. Per group of four reduction indices the
// 32 weight bytes of the 8 channels are widened to int16 (VPMOVZXBW, then
// -128 undoes the packing offset), four bytes of each row are broadcast
// and sign-extended to int16, and VPMADDWD forms exact int32 sums of
// product pairs (|a·w| ≤ 128·128, so no pair can overflow), two lanes per
// channel; one VPHADDD and a VPERMQ per row fold them at the end. A last
// group of k%4 indices reads the row's last four bytes (k ≥ 4) and shifts
// the bytes before the group out, zeros in. Partial channel halves read
// the seed and write through VPMASKMOVD.
//
// Rows beyond m alias the last real row: computed, not stored.

// MADD adds the products of the widened weights Y10 (channels 0-3) and
// Y11 (4-7) with the four int16 values repeated in Y12 to a row's sums.
#define MADD(lo, hi) \
	VPMADDWD Y10, Y12, Y13 \
	VPADDD   Y13, lo, lo   \
	VPMADDWD Y11, Y12, Y13 \
	VPADDD   Y13, hi, hi

// func gemmInt8R4AVX2(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, masks *int32)
//
// SI, BX, DX, R8 rows; R12 weights of the current half block; AX
// reduction offset; R13 4·floor(k/4); R9 k-4; CX 8·(4-k%4) (the tail
// shift); DI channel index of the half; Y0-Y7 pair sums (row r in
// Y(2r), Y(2r+1)); Y14 words of 128; Y15 lane mask. masks is
// ·tailMask32. k ≥ 4.
TEXT ·gemmInt8R4AVX2(SB), NOSPLIT, $0-80
	MOVQ         k+64(FP), R13
	LEAQ         -4(R13), R9
	MOVQ         R13, CX
	ANDQ         $3, CX
	NEGQ         CX
	ADDQ         $4, CX
	SHLQ         $3, CX
	ANDQ         $-4, R13
	MOVL         $0x00800080, AX
	VMOVQ        AX, X14
	VPBROADCASTD X14, Y14
	MOVQ         a+16(FP), SI

rowblk:
	MOVQ lda+24(FP), R14
	MOVQ m+48(FP), DI
	ROWPTR(SI, BX, 2)
	ROWPTR(BX, DX, 3)
	ROWPTR(DX, R8, 4)
	XORQ DI, DI

half:
	// The weights of channels DI..DI+7: block DI/16, half (DI/8)%2.
	MOVQ k+64(FP), R12
	ADDQ $3, R12
	SHRQ $2, R12
	SHLQ $6, R12
	MOVQ DI, R11
	SHRQ $4, R11
	IMULQ R11, R12
	MOVQ DI, R11
	ANDQ $8, R11
	SHLQ $2, R11
	ADDQ R11, R12
	ADDQ w+32(FP), R12
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	XORQ  AX, AX
	CMPQ  AX, R13
	JGE   ktail

kloop:
	VPMOVZXBW (R12), Y10
	VPMOVZXBW 16(R12), Y11
	VPSUBW    Y14, Y10, Y10
	VPSUBW    Y14, Y11, Y11
	VPBROADCASTD (SI)(AX*1), X12
	VPMOVSXBW    X12, Y12
	MADD(Y0, Y1)
	VPBROADCASTD (BX)(AX*1), X12
	VPMOVSXBW    X12, Y12
	MADD(Y2, Y3)
	VPBROADCASTD (DX)(AX*1), X12
	VPMOVSXBW    X12, Y12
	MADD(Y4, Y5)
	VPBROADCASTD (R8)(AX*1), X12
	VPMOVSXBW    X12, Y12
	MADD(Y6, Y7)
	ADDQ $64, R12
	ADDQ $4, AX
	CMPQ AX, R13
	JLT  kloop

ktail:
	CMPQ      CX, $32
	JEQ       fold
	VPMOVZXBW (R12), Y10
	VPMOVZXBW 16(R12), Y11
	VPSUBW    Y14, Y10, Y10
	VPSUBW    Y14, Y11, Y11
	MOVL         (SI)(R9*1), R10
	SHRL         CX, R10
	VMOVQ        R10, X12
	VPBROADCASTD X12, Y12
	VPMOVSXBW    X12, Y12
	MADD(Y0, Y1)
	MOVL         (BX)(R9*1), R10
	SHRL         CX, R10
	VMOVQ        R10, X12
	VPBROADCASTD X12, Y12
	VPMOVSXBW    X12, Y12
	MADD(Y2, Y3)
	MOVL         (DX)(R9*1), R10
	SHRL         CX, R10
	VMOVQ        R10, X12
	VPBROADCASTD X12, Y12
	VPMOVSXBW    X12, Y12
	MADD(Y4, Y5)
	MOVL         (R8)(R9*1), R10
	SHRL         CX, R10
	VMOVQ        R10, X12
	VPBROADCASTD X12, Y12
	VPMOVSXBW    X12, Y12
	MADD(Y6, Y7)

fold:
	// Y(2r) = the 8 channel sums of row r, plus the seed.
	VPHADDD Y1, Y0, Y0
	VPERMQ  $0xd8, Y0, Y0
	VPHADDD Y3, Y2, Y2
	VPERMQ  $0xd8, Y2, Y2
	VPHADDD Y5, Y4, Y4
	VPERMQ  $0xd8, Y4, Y4
	VPHADDD Y7, Y6, Y6
	VPERMQ  $0xd8, Y6, Y6
	MOVQ    seed+40(FP), R14
	LEAQ    (R14)(DI*4), R14
	MOVQ    dst+0(FP), R10
	LEAQ    (R10)(DI*4), R10
	MOVQ    ldd+8(FP), AX
	SHLQ    $2, AX
	MOVQ    n+56(FP), R11
	SUBQ    DI, R11
	CMPQ    R11, $8
	JLT     partial
	VMOVDQU (R14), Y15
	VPADDD  Y15, Y0, Y0
	VMOVDQU Y0, (R10)
	CMPQ    m+48(FP), $2
	JLT     stored
	ADDQ    AX, R10
	VPADDD  Y15, Y2, Y2
	VMOVDQU Y2, (R10)
	CMPQ    m+48(FP), $3
	JLT     stored
	ADDQ    AX, R10
	VPADDD  Y15, Y4, Y4
	VMOVDQU Y4, (R10)
	CMPQ    m+48(FP), $4
	JLT     stored
	ADDQ    AX, R10
	VPADDD  Y15, Y6, Y6
	VMOVDQU Y6, (R10)
	JMP     stored

partial:
	NEGQ       R11
	MOVQ       masks+72(FP), R12
	VMOVDQU    32(R12)(R11*4), Y15
	VPMASKMOVD (R14), Y15, Y9
	VPADDD     Y9, Y0, Y0
	VPMASKMOVD Y0, Y15, (R10)
	CMPQ       m+48(FP), $2
	JLT        stored
	ADDQ       AX, R10
	VPADDD     Y9, Y2, Y2
	VPMASKMOVD Y2, Y15, (R10)
	CMPQ       m+48(FP), $3
	JLT        stored
	ADDQ       AX, R10
	VPADDD     Y9, Y4, Y4
	VPMASKMOVD Y4, Y15, (R10)
	CMPQ       m+48(FP), $4
	JLT        stored
	ADDQ       AX, R10
	VPADDD     Y9, Y6, Y6
	VPMASKMOVD Y6, Y15, (R10)

stored:
	ADDQ $8, DI
	CMPQ DI, n+56(FP)
	JLT  half

	SUBQ $4, m+48(FP)
	JLE  done
	MOVQ ldd+8(FP), AX
	SHLQ $4, AX
	ADDQ AX, dst+0(FP)
	MOVQ lda+24(FP), AX
	SHLQ $2, AX
	ADDQ AX, SI
	JMP  rowblk

done:
	VZEROUPPER
	RET
