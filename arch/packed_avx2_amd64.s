//go:build !purego

// AVX2 + FMA3 packed matrix × vector kernel (see packed.go for the
// layout): a 16-row block is two YMM registers per column, so each
// broadcast x[c] feeds two FMAs per block and no horizontal sums are
// needed.

#include "textflag.h"

// ·tailMask32 (float32_amd64.go) supplies the VMASKMOVPS masks.

// func matVecMulAccPackedAVX2(dst, p []float32, rows, cols int, x []float32)
//
// Blocks are taken four at a time (64 rows, eight accumulators: enough
// independent FMAs to hide their latency) while 64 full rows remain, then
// one at a time with separate accumulators for the even and the odd
// columns; a partial last block is added to dst through VMASKMOVPS.
//
// DI dst, SI block 0, BX/CX/R13 blocks 1-3, DX x, R8 rows left, R9 cols,
// R10 block stride (bytes, 64·cols), R11 end of the columns (bytes within
// a block), R12 end of the column pairs, AX column offset within a block
// (bytes), R14 x pointer. Y0-Y7 accumulators, Y8/Y9 broadcast x, Y10/Y11
// partial dst, Y12/Y13 dst masks.
TEXT ·matVecMulAccPackedAVX2(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ p_base+24(FP), SI
	MOVQ rows+48(FP), R8
	MOVQ cols+56(FP), R9
	MOVQ x_base+64(FP), DX

	MOVQ R9, R10
	SHLQ $6, R10
	MOVQ R10, R11
	MOVQ R9, R12
	ANDQ $-2, R12
	SHLQ $6, R12

group4:
	CMPQ  R8, $64
	JLT   group1
	LEAQ  (SI)(R10*1), BX
	LEAQ  (BX)(R10*1), CX
	LEAQ  (CX)(R10*1), R13
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ  AX, AX
	MOVQ  DX, R14

loop4:
	VBROADCASTSS (R14), Y8
	VFMADD231PS  (SI)(AX*1), Y8, Y0
	VFMADD231PS  32(SI)(AX*1), Y8, Y1
	VFMADD231PS  (BX)(AX*1), Y8, Y2
	VFMADD231PS  32(BX)(AX*1), Y8, Y3
	VFMADD231PS  (CX)(AX*1), Y8, Y4
	VFMADD231PS  32(CX)(AX*1), Y8, Y5
	VFMADD231PS  (R13)(AX*1), Y8, Y6
	VFMADD231PS  32(R13)(AX*1), Y8, Y7
	ADDQ         $64, AX
	ADDQ         $4, R14
	CMPQ         AX, R11
	JLT          loop4

	VADDPS  (DI), Y0, Y0
	VADDPS  32(DI), Y1, Y1
	VADDPS  64(DI), Y2, Y2
	VADDPS  96(DI), Y3, Y3
	VADDPS  128(DI), Y4, Y4
	VADDPS  160(DI), Y5, Y5
	VADDPS  192(DI), Y6, Y6
	VADDPS  224(DI), Y7, Y7
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ    $256, DI
	LEAQ    (R13)(R10*1), SI
	SUBQ    $64, R8
	JMP     group4

group1:
	TESTQ  R8, R8
	JLE    done
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX
	MOVQ   DX, R14
	CMPQ   AX, R12
	JGE    odd1

loop1:
	VBROADCASTSS (R14), Y8
	VBROADCASTSS 4(R14), Y9
	VFMADD231PS  (SI)(AX*1), Y8, Y0
	VFMADD231PS  32(SI)(AX*1), Y8, Y1
	VFMADD231PS  64(SI)(AX*1), Y9, Y2
	VFMADD231PS  96(SI)(AX*1), Y9, Y3
	ADDQ         $128, AX
	ADDQ         $8, R14
	CMPQ         AX, R12
	JLT          loop1

odd1:
	TESTQ        $1, R9
	JZ           sum1
	VBROADCASTSS (R14), Y8
	VFMADD231PS  (SI)(AX*1), Y8, Y0
	VFMADD231PS  32(SI)(AX*1), Y8, Y1

sum1:
	VADDPS Y2, Y0, Y0
	VADDPS Y3, Y1, Y1
	CMPQ   R8, $16
	JLT    partial1
	VADDPS  (DI), Y0, Y0
	VADDPS  32(DI), Y1, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    $64, DI
	ADDQ    R10, SI
	SUBQ    $16, R8
	JMP     group1

partial1:
	// R8 < 16 rows: min(R8, 8) lanes of the low half, max(R8-8, 0) of
	// the high half; the eight dwords of ·tailMask32 at element 8-t have
	// their first t lanes set.
	LEAQ ·tailMask32(SB), BX
	MOVQ R8, CX
	CMPQ CX, $8
	JLE  lomask
	MOVQ $8, CX

lomask:
	NEGQ    CX
	VMOVDQU 32(BX)(CX*4), Y12
	MOVQ    R8, CX
	SUBQ    $8, CX
	JGE     himask
	XORQ    CX, CX

himask:
	NEGQ       CX
	VMOVDQU    32(BX)(CX*4), Y13
	VMASKMOVPS (DI), Y12, Y10
	VMASKMOVPS 32(DI), Y13, Y11
	VADDPS     Y10, Y0, Y0
	VADDPS     Y11, Y1, Y1
	VMASKMOVPS Y0, Y12, (DI)
	VMASKMOVPS Y1, Y13, 32(DI)

done:
	VZEROUPPER
	RET
