//go:build !purego

// AVX2 MaxBlocksInt8, MaxBlocksUint8 and MaxBlocksInt16 (see
// vecmaxint.go): VPMAXSB, VPMAXUB and VPMAXSW are max(dst, src) per lane,
// exactly `if dst < src { dst = src }` for integers. The three routines
// differ only in the instruction, the scalar load and the element size.
// MinBlocksInt8, MinBlocksUint8 and MinBlocksInt16 are the same with
// VPMINSB, VPMINUB and VPMINSW (`if dst > src { dst = src }`); a min is
// idempotent too.
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

// MAXBLOCKS is the body of the three routines, after the arguments are
// loaded (and, for int16, the width and strides turned into bytes):
// VPMAX the vector max, LOADX the sign- or zero-extending scalar load,
// STORE the scalar store, STEP the element size, JKEEP the jump taken
// when dst already holds the result (JGE for max, JLE for min, after
// comparing dst with src). Its labels are local to
// the TEXT block that expands it.
#define MAXBLOCKS(VPMAX, LOADX, STORE, STEP, JKEEP) \
	block: \
	CMPQ CX, $32; \
	JLT  lt32; \
	MOVQ CX, R9; \
	SUBQ $32, R9; \
	XORQ AX, AX; \
	loop32: \
	VMOVDQU (SI)(AX*1), Y0; \
	VPMAX   (DI)(AX*1), Y0, Y0; \
	VMOVDQU Y0, (DI)(AX*1); \
	ADDQ    $32, AX; \
	CMPQ    AX, R9; \
	JLE     loop32; \
	CMPQ    AX, CX; \
	JGE     next; \
	VMOVDQU (SI)(R9*1), Y0; \
	VPMAX   (DI)(R9*1), Y0, Y0; \
	VMOVDQU Y0, (DI)(R9*1); \
	JMP     next; \
	lt32: \
	CMPQ    CX, $16; \
	JLT     lt16; \
	MOVQ    CX, R9; \
	SUBQ    $16, R9; \
	VMOVDQU (SI), X0; \
	VPMAX   (DI), X0, X0; \
	VMOVDQU X0, (DI); \
	VMOVDQU (SI)(R9*1), X0; \
	VPMAX   (DI)(R9*1), X0, X0; \
	VMOVDQU X0, (DI)(R9*1); \
	JMP     next; \
	lt16: \
	CMPQ  CX, $8; \
	JLT   scalar; \
	MOVQ  CX, R9; \
	SUBQ  $8, R9; \
	VMOVQ (SI), X0; \
	VMOVQ (DI), X1; \
	VPMAX X1, X0, X0; \
	VMOVQ X0, (DI); \
	VMOVQ (SI)(R9*1), X0; \
	VMOVQ (DI)(R9*1), X1; \
	VPMAX X1, X0, X0; \
	VMOVQ X0, (DI)(R9*1); \
	JMP   next; \
	scalar: \
	XORQ AX, AX; \
	one: \
	CMPQ    AX, CX; \
	JGE     next; \
	LOADX (SI)(AX*1), R8; \
	LOADX (DI)(AX*1), R12; \
	CMPQ    R12, R8; \
	JKEEP   keep; \
	STORE   R8, (DI)(AX*1); \
	keep: \
	ADDQ $STEP, AX; \
	JMP  one; \
	next: \
	ADDQ R10, DI; \
	ADDQ R11, SI; \
	DECQ DX; \
	JNZ  block; \
	done: \
	VZEROUPPER; \
	RET;

// func maxBlocksInt8AVX2(dst, src []int8, n, width, dstStride, srcStride int)
TEXT ·maxBlocksInt8AVX2(SB), NOSPLIT, $0-80
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
	MAXBLOCKS(VPMAXSB, MOVBQSX, MOVB, 1, JGE)

// func maxBlocksUint8AVX2(dst, src []uint8, n, width, dstStride, srcStride int)
TEXT ·maxBlocksUint8AVX2(SB), NOSPLIT, $0-80
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
	MAXBLOCKS(VPMAXUB, MOVBQZX, MOVB, 1, JGE)

// func maxBlocksInt16AVX2(dst, src []int16, n, width, dstStride, srcStride int)
TEXT ·maxBlocksInt16AVX2(SB), NOSPLIT, $0-80
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
	SHLQ  $1, CX
	SHLQ  $1, R10
	SHLQ  $1, R11
	MAXBLOCKS(VPMAXSW, MOVWQSX, MOVW, 2, JGE)

// func minBlocksInt8AVX2(dst, src []int8, n, width, dstStride, srcStride int)
TEXT ·minBlocksInt8AVX2(SB), NOSPLIT, $0-80
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
	MAXBLOCKS(VPMINSB, MOVBQSX, MOVB, 1, JLE)

// func minBlocksUint8AVX2(dst, src []uint8, n, width, dstStride, srcStride int)
TEXT ·minBlocksUint8AVX2(SB), NOSPLIT, $0-80
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
	MAXBLOCKS(VPMINUB, MOVBQZX, MOVB, 1, JLE)

// func minBlocksInt16AVX2(dst, src []int16, n, width, dstStride, srcStride int)
TEXT ·minBlocksInt16AVX2(SB), NOSPLIT, $0-80
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
	SHLQ  $1, CX
	SHLQ  $1, R10
	SHLQ  $1, R11
	MAXBLOCKS(VPMINSW, MOVWQSX, MOVW, 2, JLE)
