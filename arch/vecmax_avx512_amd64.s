//go:build !purego

// AVX-512 MaxBlocksF32 (see vecmax.go and the AVX2 file for the operand
// order that gives `if dst < src { dst = src }`).

#include "textflag.h"

// func maxBlocksF32AVX512(dst, src []float32, n, width, dstStride, srcStride int)
//
// Per block: sixteen values per step (ZMM), then eight (YMM), four (XMM)
// and the last width%4 one at a time, as in the AVX2 kernel. An opmasked
// tail was tried first: on this Zen 4 blocks of four ran 4.5 times slower
// than with the AVX2 kernel (most likely the masked 64-byte store
// blocking the next block's load within the same 64 bytes). Widths under
// 16 (and 0) jump to the AVX2 kernel, which has the same frame and one
// branch fewer per block: 32 blocks of four took ~30 ns there against
// ~48 ns here. DI dst block, SI src block, DX blocks left, CX width,
// R10/R11 strides in bytes, R9 end of the 16-value steps, AX index.
TEXT ·maxBlocksF32AVX512(SB), NOSPLIT, $0-80
	MOVQ  dst_base+0(FP), DI
	MOVQ  src_base+24(FP), SI
	MOVQ  n+48(FP), DX
	MOVQ  width+56(FP), CX
	CMPQ  CX, $16
	JLT   narrow
	MOVQ  dstStride+64(FP), R10
	MOVQ  srcStride+72(FP), R11
	TESTQ DX, DX
	JLE   done
	TESTQ CX, CX
	JLE   done
	SHLQ  $2, R10
	SHLQ  $2, R11
	MOVQ  CX, R9
	ANDQ  $-16, R9

block:
	XORQ AX, AX
	CMPQ AX, R9
	JGE  eight

loop16:
	VMOVUPS (SI)(AX*4), Z0
	VMAXPS  (DI)(AX*4), Z0, Z0
	VMOVUPS Z0, (DI)(AX*4)
	ADDQ    $16, AX
	CMPQ    AX, R9
	JLT     loop16

eight:
	TESTQ   $8, CX
	JZ      four
	VMOVUPS (SI)(AX*4), Y0
	VMAXPS  (DI)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX

four:
	TESTQ   $4, CX
	JZ      one
	VMOVUPS (SI)(AX*4), X0
	VMAXPS  (DI)(AX*4), X0, X0
	VMOVUPS X0, (DI)(AX*4)
	ADDQ    $4, AX

one:
	CMPQ   AX, CX
	JGE    next
	VMOVSS (SI)(AX*4), X0
	VMAXSS (DI)(AX*4), X0, X0
	VMOVSS X0, (DI)(AX*4)
	INCQ   AX
	JMP    one

next:
	ADDQ R10, DI
	ADDQ R11, SI
	DECQ DX
	JNZ  block

done:
	VZEROUPPER
	RET

narrow:
	JMP ·maxBlocksF32AVX2(SB)
