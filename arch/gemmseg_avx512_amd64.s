//go:build !purego

// The AVX-512 kernel of the indirect float GEMM (gemmseg.go): the
// reduction vector of each pixel row is not one stored row but runs of a
// source tensor (a convolution's input, the patch of one output pixel read
// in place instead of copied out by im2col). Each row is given by its byte
// offset into the source, the runs by their byte ranges relative to that
// offset; the weights step on through the runs as through one reduction
// range. Otherwise it is gemmF32R8AVX512 (gemm_avx512_amd64.s): 8 rows of
// 16 channels per step, separate VMULPS and VADDPS summing from 0 in
// order of the index (TensorFlow Lite's order on x86), or with flags bit
// 2 (gemmFused) one VFMADD231PS per row; flags bit 0 adds the values in
// dst, bit 1 adds the bias and clamps.

#include "textflag.h"

// func gemmF32SegR8AVX512(dst *float32, ldd int, x *float32, rows *int, w *float32, bias *float32, m, n int, segs *int, lo, hi float32, tail uint64, wskip int, flags uint64)
//
// rows holds ⌈m/8⌉·8 row offsets (float32 elements into x; the wrapper
// repeats the last row's to fill the last block), segs pairs of byte offsets [start,
// end) with start < end, ended by a negative start. SI, BX, CX, DX,
// R8-R11 rows 0-7; R12 packed weights; AX offset within the run; R13 its
// end; R14 the run list; DI channel index j; Z0-Z7 sums; Z8 weights (then
// the bias); Z9-Z16 products; Z30/Z31 lo/hi; K1 channel mask. Locals: the
// row table of the current block, its dst and the rows left. m ≥ 1,
// n ≥ 1, at least one run.
TEXT ·gemmF32SegR8AVX512(SB), NOSPLIT, $24-104
	VBROADCASTSS lo+72(FP), Z30
	VBROADCASTSS hi+76(FP), Z31
	MOVQ         rows+24(FP), R14
	MOVQ         R14, rp-8(SP)
	MOVQ         dst+0(FP), R14
	MOVQ         R14, dp-16(SP)
	MOVQ         m+48(FP), R14
	MOVQ         R14, ml-24(SP)

rowblk:
	MOVQ rp-8(SP), R14
	MOVQ x+16(FP), R13
	MOVQ 0(R14), SI
	LEAQ (R13)(SI*4), SI
	MOVQ 8(R14), BX
	LEAQ (R13)(BX*4), BX
	MOVQ 16(R14), CX
	LEAQ (R13)(CX*4), CX
	MOVQ 24(R14), DX
	LEAQ (R13)(DX*4), DX
	MOVQ 32(R14), R8
	LEAQ (R13)(R8*4), R8
	MOVQ 40(R14), R9
	LEAQ (R13)(R9*4), R9
	MOVQ 48(R14), R10
	LEAQ (R13)(R10*4), R10
	MOVQ 56(R14), R11
	LEAQ (R13)(R11*4), R11
	MOVQ w+32(FP), R12
	XORQ DI, DI

nblk:
	MOVQ n+56(FP), R14
	SUBQ DI, R14
	MOVL $0xffff, AX
	CMPQ R14, $16
	JGE  mask
	MOVQ tail+80(FP), AX

mask:
	KMOVW  AX, K1
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	MOVQ   segs+64(FP), R14

segloop:
	MOVQ  (R14), AX
	TESTQ AX, AX
	JS    segsdone
	MOVQ  8(R14), R13
	ADDQ  $16, R14
	TESTQ $4, flags+96(FP)
	JNZ   kloopf

kloop:
	VMOVUPS     (R12), Z8
	VMULPS.BCST (SI)(AX*1), Z8, Z9
	VMULPS.BCST (BX)(AX*1), Z8, Z10
	VMULPS.BCST (CX)(AX*1), Z8, Z11
	VMULPS.BCST (DX)(AX*1), Z8, Z12
	VMULPS.BCST (R8)(AX*1), Z8, Z13
	VMULPS.BCST (R9)(AX*1), Z8, Z14
	VMULPS.BCST (R10)(AX*1), Z8, Z15
	VMULPS.BCST (R11)(AX*1), Z8, Z16
	VADDPS      Z9, Z0, Z0
	VADDPS      Z10, Z1, Z1
	VADDPS      Z11, Z2, Z2
	VADDPS      Z12, Z3, Z3
	VADDPS      Z13, Z4, Z4
	VADDPS      Z14, Z5, Z5
	VADDPS      Z15, Z6, Z6
	VADDPS      Z16, Z7, Z7
	ADDQ        $64, R12
	ADDQ        $4, AX
	CMPQ        AX, R13
	JLT         kloop
	JMP         segloop

	// flags bit 2 (gemmFused): one fused multiply-add per row.
kloopf:
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
	JLT              kloopf
	JMP              segloop

segsdone:
	ADDQ wskip+88(FP), R12

	MOVQ  ldd+8(FP), AX
	SHLQ  $2, AX
	MOVQ  ml-24(SP), R13
	TESTQ $1, flags+96(FP)
	JZ    noacc
	MOVQ  dp-16(SP), R14
	LEAQ  (R14)(DI*4), R14
	VADDPS (R14), Z0, K1, Z0
	CMPQ   R13, $2
	JLT    noacc
	ADDQ   AX, R14
	VADDPS (R14), Z1, K1, Z1
	CMPQ   R13, $3
	JLT    noacc
	ADDQ   AX, R14
	VADDPS (R14), Z2, K1, Z2
	CMPQ   R13, $4
	JLT    noacc
	ADDQ   AX, R14
	VADDPS (R14), Z3, K1, Z3
	CMPQ   R13, $5
	JLT    noacc
	ADDQ   AX, R14
	VADDPS (R14), Z4, K1, Z4
	CMPQ   R13, $6
	JLT    noacc
	ADDQ   AX, R14
	VADDPS (R14), Z5, K1, Z5
	CMPQ   R13, $7
	JLT    noacc
	ADDQ   AX, R14
	VADDPS (R14), Z6, K1, Z6
	CMPQ   R13, $8
	JLT    noacc
	ADDQ   AX, R14
	VADDPS (R14), Z7, K1, Z7

noacc:
	TESTQ     $2, flags+96(FP)
	JZ        final
	MOVQ      bias+40(FP), R14
	VMOVUPS.Z (R14)(DI*4), K1, Z8
	VADDPS    Z8, Z0, Z0
	VADDPS    Z8, Z1, Z1
	VADDPS    Z8, Z2, Z2
	VADDPS    Z8, Z3, Z3
	VADDPS    Z8, Z4, Z4
	VADDPS    Z8, Z5, Z5
	VADDPS    Z8, Z6, Z6
	VADDPS    Z8, Z7, Z7
	VMAXPS    Z0, Z30, Z0
	VMAXPS    Z1, Z30, Z1
	VMAXPS    Z2, Z30, Z2
	VMAXPS    Z3, Z30, Z3
	VMAXPS    Z4, Z30, Z4
	VMAXPS    Z5, Z30, Z5
	VMAXPS    Z6, Z30, Z6
	VMAXPS    Z7, Z30, Z7
	VMINPS    Z0, Z31, Z0
	VMINPS    Z1, Z31, Z1
	VMINPS    Z2, Z31, Z2
	VMINPS    Z3, Z31, Z3
	VMINPS    Z4, Z31, Z4
	VMINPS    Z5, Z31, Z5
	VMINPS    Z6, Z31, Z6
	VMINPS    Z7, Z31, Z7

final:
	MOVQ    dp-16(SP), R14
	LEAQ    (R14)(DI*4), R14
	VMOVUPS Z0, K1, (R14)
	CMPQ    R13, $2
	JLT     stored
	ADDQ    AX, R14
	VMOVUPS Z1, K1, (R14)
	CMPQ    R13, $3
	JLT     stored
	ADDQ    AX, R14
	VMOVUPS Z2, K1, (R14)
	CMPQ    R13, $4
	JLT     stored
	ADDQ    AX, R14
	VMOVUPS Z3, K1, (R14)
	CMPQ    R13, $5
	JLT     stored
	ADDQ    AX, R14
	VMOVUPS Z4, K1, (R14)
	CMPQ    R13, $6
	JLT     stored
	ADDQ    AX, R14
	VMOVUPS Z5, K1, (R14)
	CMPQ    R13, $7
	JLT     stored
	ADDQ    AX, R14
	VMOVUPS Z6, K1, (R14)
	CMPQ    R13, $8
	JLT     stored
	ADDQ    AX, R14
	VMOVUPS Z7, K1, (R14)

stored:
	ADDQ $16, DI
	CMPQ DI, n+56(FP)
	JLT  nblk

	// Next block of 8 rows.
	SUBQ $8, ml-24(SP)
	JLE  done
	MOVQ ldd+8(FP), AX
	SHLQ $5, AX
	ADDQ AX, dp-16(SP)
	ADDQ $64, rp-8(SP)
	JMP  rowblk

done:
	VZEROUPPER
	RET
