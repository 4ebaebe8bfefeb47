//go:build !purego

// AVX2 MaxBlocksF32 (see vecmax.go): VMAXPS/VMAXSS with the src value as
// the first and the dst value as the second source return the second
// source when either is NaN or both are zeros, and the larger value
// otherwise: exactly `if dst < src { dst = src }`.

#include "textflag.h"

// func maxBlocksF32AVX2(dst, src []float32, n, width, dstStride, srcStride int)
//
// Per block: eight values per step, then four (XMM), then the last
// width%4 one at a time (VMAXSS), so no access goes beyond the block.
// DI dst block, SI src block, DX blocks left, CX width, R10/R11 strides in
// bytes, R9 end of the 8-value steps, AX index.
TEXT ·maxBlocksF32AVX2(SB), NOSPLIT, $0-80
	MOVQ  dst_base+0(FP), DI
	MOVQ  src_base+24(FP), SI
	MOVQ  n+48(FP), DX
	MOVQ  width+56(FP), CX
	MOVQ  dstStride+64(FP), R10
	MOVQ  srcStride+72(FP), R11
	TESTQ DX, DX
	JLE   done
	TESTQ CX, CX
	JLE   done
	SHLQ  $2, R10
	SHLQ  $2, R11
	MOVQ  CX, R9
	ANDQ  $-8, R9

block:
	XORQ AX, AX
	CMPQ AX, R9
	JGE  four

loop8:
	VMOVUPS (SI)(AX*4), Y0
	VMAXPS  (DI)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, R9
	JLT     loop8

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
