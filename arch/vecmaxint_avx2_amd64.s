//go:build !purego

// AVX2 MaxBlocksInt8, MaxBlocksUint8 and MaxBlocksInt16 (see
// vecmaxint.go): VPMAXSB, VPMAXUB and VPMAXSW are max(dst, src) per lane,
// exactly `if dst < src { dst = src }` for integers. The three routines
// differ only in the instruction, the scalar load and the element size.
//
// Per block, with W the block's width in bytes: 32 bytes per step, and
// the last partial step redone as a whole vector ending at W (a max is
// idempotent, so the overlap is harmless: dst and src never overlap);
// blocks of 16 to 31 bytes take two 16-byte steps, the first at 0 and
// the second ending at W, and of 8 to 15 bytes two 8-byte ones. Shorter
// blocks go one value at a time. No access goes beyond the block.
// DI dst block, SI src block, DX blocks left, CX width in bytes,
// R10/R11 strides in bytes, R9 last vector start, AX byte index, R8/R12
// scalar values.

#include "textflag.h"

// func maxBlocksInt8AVX2(dst, src []int8, n, width, dstStride, srcStride int)
TEXT ·maxBlocksInt8AVX2(SB), NOSPLIT, $0-80
	MOVQ  dst_base+0(FP), DI
	MOVQ  src_base+24(FP), SI
	MOVQ  n+48(FP), DX
	MOVQ  width+56(FP), CX
	MOVQ  dstStride+64(FP), R10
	MOVQ  srcStride+72(FP), R11
	TESTQ DX, DX
	JLE   doneInt8
	TESTQ CX, CX
	JLE   doneInt8

blockInt8:
	CMPQ CX, $32
	JLT  lt32Int8
	MOVQ CX, R9
	SUBQ $32, R9
	XORQ AX, AX

loop32Int8:
	VMOVDQU (SI)(AX*1), Y0
	VPMAXSB   (DI)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, R9
	JLE     loop32Int8
	CMPQ    AX, CX
	JGE     nextInt8
	VMOVDQU (SI)(R9*1), Y0
	VPMAXSB   (DI)(R9*1), Y0, Y0
	VMOVDQU Y0, (DI)(R9*1)
	JMP     nextInt8

lt32Int8:
	CMPQ    CX, $16
	JLT     lt16Int8
	MOVQ    CX, R9
	SUBQ    $16, R9
	VMOVDQU (SI), X0
	VPMAXSB   (DI), X0, X0
	VMOVDQU X0, (DI)
	VMOVDQU (SI)(R9*1), X0
	VPMAXSB   (DI)(R9*1), X0, X0
	VMOVDQU X0, (DI)(R9*1)
	JMP     nextInt8

lt16Int8:
	CMPQ  CX, $8
	JLT   scalarInt8
	MOVQ  CX, R9
	SUBQ  $8, R9
	VMOVQ (SI), X0
	VMOVQ (DI), X1
	VPMAXSB X1, X0, X0
	VMOVQ X0, (DI)
	VMOVQ (SI)(R9*1), X0
	VMOVQ (DI)(R9*1), X1
	VPMAXSB X1, X0, X0
	VMOVQ X0, (DI)(R9*1)
	JMP   nextInt8

scalarInt8:
	XORQ AX, AX

oneInt8:
	CMPQ    AX, CX
	JGE     nextInt8
	MOVBQSX (SI)(AX*1), R8
	MOVBQSX (DI)(AX*1), R12
	CMPQ    R12, R8
	JGE     keepInt8
	MOVB    R8, (DI)(AX*1)

keepInt8:
	ADDQ $1, AX
	JMP  oneInt8

nextInt8:
	ADDQ R10, DI
	ADDQ R11, SI
	DECQ DX
	JNZ  blockInt8

doneInt8:
	VZEROUPPER
	RET

// func maxBlocksUint8AVX2(dst, src []uint8, n, width, dstStride, srcStride int)
TEXT ·maxBlocksUint8AVX2(SB), NOSPLIT, $0-80
	MOVQ  dst_base+0(FP), DI
	MOVQ  src_base+24(FP), SI
	MOVQ  n+48(FP), DX
	MOVQ  width+56(FP), CX
	MOVQ  dstStride+64(FP), R10
	MOVQ  srcStride+72(FP), R11
	TESTQ DX, DX
	JLE   doneUint8
	TESTQ CX, CX
	JLE   doneUint8

blockUint8:
	CMPQ CX, $32
	JLT  lt32Uint8
	MOVQ CX, R9
	SUBQ $32, R9
	XORQ AX, AX

loop32Uint8:
	VMOVDQU (SI)(AX*1), Y0
	VPMAXUB   (DI)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, R9
	JLE     loop32Uint8
	CMPQ    AX, CX
	JGE     nextUint8
	VMOVDQU (SI)(R9*1), Y0
	VPMAXUB   (DI)(R9*1), Y0, Y0
	VMOVDQU Y0, (DI)(R9*1)
	JMP     nextUint8

lt32Uint8:
	CMPQ    CX, $16
	JLT     lt16Uint8
	MOVQ    CX, R9
	SUBQ    $16, R9
	VMOVDQU (SI), X0
	VPMAXUB   (DI), X0, X0
	VMOVDQU X0, (DI)
	VMOVDQU (SI)(R9*1), X0
	VPMAXUB   (DI)(R9*1), X0, X0
	VMOVDQU X0, (DI)(R9*1)
	JMP     nextUint8

lt16Uint8:
	CMPQ  CX, $8
	JLT   scalarUint8
	MOVQ  CX, R9
	SUBQ  $8, R9
	VMOVQ (SI), X0
	VMOVQ (DI), X1
	VPMAXUB X1, X0, X0
	VMOVQ X0, (DI)
	VMOVQ (SI)(R9*1), X0
	VMOVQ (DI)(R9*1), X1
	VPMAXUB X1, X0, X0
	VMOVQ X0, (DI)(R9*1)
	JMP   nextUint8

scalarUint8:
	XORQ AX, AX

oneUint8:
	CMPQ    AX, CX
	JGE     nextUint8
	MOVBQZX (SI)(AX*1), R8
	MOVBQZX (DI)(AX*1), R12
	CMPQ    R12, R8
	JGE     keepUint8
	MOVB    R8, (DI)(AX*1)

keepUint8:
	ADDQ $1, AX
	JMP  oneUint8

nextUint8:
	ADDQ R10, DI
	ADDQ R11, SI
	DECQ DX
	JNZ  blockUint8

doneUint8:
	VZEROUPPER
	RET

// func maxBlocksInt16AVX2(dst, src []int16, n, width, dstStride, srcStride int)
TEXT ·maxBlocksInt16AVX2(SB), NOSPLIT, $0-80
	MOVQ  dst_base+0(FP), DI
	MOVQ  src_base+24(FP), SI
	MOVQ  n+48(FP), DX
	MOVQ  width+56(FP), CX
	MOVQ  dstStride+64(FP), R10
	MOVQ  srcStride+72(FP), R11
	TESTQ DX, DX
	JLE   doneInt16
	TESTQ CX, CX
	JLE   doneInt16
	SHLQ  $1, CX
	SHLQ  $1, R10
	SHLQ  $1, R11

blockInt16:
	CMPQ CX, $32
	JLT  lt32Int16
	MOVQ CX, R9
	SUBQ $32, R9
	XORQ AX, AX

loop32Int16:
	VMOVDQU (SI)(AX*1), Y0
	VPMAXSW   (DI)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, R9
	JLE     loop32Int16
	CMPQ    AX, CX
	JGE     nextInt16
	VMOVDQU (SI)(R9*1), Y0
	VPMAXSW   (DI)(R9*1), Y0, Y0
	VMOVDQU Y0, (DI)(R9*1)
	JMP     nextInt16

lt32Int16:
	CMPQ    CX, $16
	JLT     lt16Int16
	MOVQ    CX, R9
	SUBQ    $16, R9
	VMOVDQU (SI), X0
	VPMAXSW   (DI), X0, X0
	VMOVDQU X0, (DI)
	VMOVDQU (SI)(R9*1), X0
	VPMAXSW   (DI)(R9*1), X0, X0
	VMOVDQU X0, (DI)(R9*1)
	JMP     nextInt16

lt16Int16:
	CMPQ  CX, $8
	JLT   scalarInt16
	MOVQ  CX, R9
	SUBQ  $8, R9
	VMOVQ (SI), X0
	VMOVQ (DI), X1
	VPMAXSW X1, X0, X0
	VMOVQ X0, (DI)
	VMOVQ (SI)(R9*1), X0
	VMOVQ (DI)(R9*1), X1
	VPMAXSW X1, X0, X0
	VMOVQ X0, (DI)(R9*1)
	JMP   nextInt16

scalarInt16:
	XORQ AX, AX

oneInt16:
	CMPQ    AX, CX
	JGE     nextInt16
	MOVWQSX (SI)(AX*1), R8
	MOVWQSX (DI)(AX*1), R12
	CMPQ    R12, R8
	JGE     keepInt16
	MOVW    R8, (DI)(AX*1)

keepInt16:
	ADDQ $2, AX
	JMP  oneInt16

nextInt16:
	ADDQ R10, DI
	ADDQ R11, SI
	DECQ DX
	JNZ  blockInt16

doneInt16:
	VZEROUPPER
	RET
