//go:build !purego

// AVX2 FFTRadix4F64 (see fft.go): the portable code's VMULPD, VADDPD and
// VSUBPD lane by lane, four bins per vector, no FMA.

#include "textflag.h"

// func fftRadix4F64AVX2(re, im []float64, h int, tw []float64)
//
// h is a multiple of 4 and len(re) a positive multiple of 4h. SI and DI
// walk re and im at bin k of the block's first quarter, R8, R9 and R10
// are the byte offsets of the other quarters (8h, 16h, 24h), BX walks the
// twiddles (24 values per group of four bins), DX is their start, CX
// counts the groups left in the block and R11 is the end of re.
TEXT ·fftRadix4F64AVX2(SB), NOSPLIT, $0-80
	MOVQ re_base+0(FP), SI
	MOVQ re_len+8(FP), R11
	MOVQ im_base+24(FP), DI
	MOVQ h+48(FP), R8
	MOVQ tw_base+56(FP), DX
	LEAQ (SI)(R11*8), R11
	SHLQ $3, R8
	LEAQ (R8)(R8*1), R9
	LEAQ (R9)(R8*1), R10

block:
	MOVQ DX, BX
	MOVQ R8, CX
	SHRQ $5, CX

group:
	// u1 = W2·x1 in (Y6, Y7).
	VMOVUPD (SI)(R8*1), Y2
	VMOVUPD (DI)(R8*1), Y3
	VMOVUPD 64(BX), Y4
	VMOVUPD 96(BX), Y5
	VMULPD  Y2, Y4, Y6
	VMULPD  Y3, Y5, Y7
	VSUBPD  Y7, Y6, Y6
	VMULPD  Y3, Y4, Y7
	VMULPD  Y2, Y5, Y8
	VADDPD  Y8, Y7, Y7

	// u2 = W1·x2 in (Y8, Y9).
	VMOVUPD (SI)(R9*1), Y2
	VMOVUPD (DI)(R9*1), Y3
	VMOVUPD 0(BX), Y4
	VMOVUPD 32(BX), Y5
	VMULPD  Y2, Y4, Y8
	VMULPD  Y3, Y5, Y9
	VSUBPD  Y9, Y8, Y8
	VMULPD  Y3, Y4, Y9
	VMULPD  Y2, Y5, Y10
	VADDPD  Y10, Y9, Y9

	// u3 = W3·x3 in (Y10, Y11).
	VMOVUPD (SI)(R10*1), Y2
	VMOVUPD (DI)(R10*1), Y3
	VMOVUPD 128(BX), Y4
	VMOVUPD 160(BX), Y5
	VMULPD  Y2, Y4, Y10
	VMULPD  Y3, Y5, Y11
	VSUBPD  Y11, Y10, Y10
	VMULPD  Y3, Y4, Y11
	VMULPD  Y2, Y5, Y12
	VADDPD  Y12, Y11, Y11

	// a = u0+u1 (Y2, Y3), b = u0−u1 (Y4, Y5), c = u2+u3 (Y0, Y1),
	// d = u2−u3 (Y6, Y7).
	VMOVUPD (SI), Y0
	VMOVUPD (DI), Y1
	VADDPD  Y6, Y0, Y2
	VADDPD  Y7, Y1, Y3
	VSUBPD  Y6, Y0, Y4
	VSUBPD  Y7, Y1, Y5
	VADDPD  Y10, Y8, Y0
	VADDPD  Y11, Y9, Y1
	VSUBPD  Y10, Y8, Y6
	VSUBPD  Y11, Y9, Y7

	// x0 = a+c, x2 = a−c, x1 = b − i·d, x3 = b + i·d.
	VADDPD  Y0, Y2, Y8
	VADDPD  Y1, Y3, Y9
	VMOVUPD Y8, (SI)
	VMOVUPD Y9, (DI)
	VSUBPD  Y0, Y2, Y8
	VSUBPD  Y1, Y3, Y9
	VMOVUPD Y8, (SI)(R9*1)
	VMOVUPD Y9, (DI)(R9*1)
	VADDPD  Y7, Y4, Y8
	VSUBPD  Y6, Y5, Y9
	VMOVUPD Y8, (SI)(R8*1)
	VMOVUPD Y9, (DI)(R8*1)
	VSUBPD  Y7, Y4, Y8
	VADDPD  Y6, Y5, Y9
	VMOVUPD Y8, (SI)(R10*1)
	VMOVUPD Y9, (DI)(R10*1)

	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $192, BX
	DECQ CX
	JNZ  group

	// SI and DI are at the block's second quarter: on to the next block.
	ADDQ R10, SI
	ADDQ R10, DI
	CMPQ SI, R11
	JB   block

	VZEROUPPER
	RET
