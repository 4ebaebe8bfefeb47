//go:build !purego

// TransposeBytes8 (transposebytes.go) in 8×8 blocks with VEX-encoded
// 128-bit unpacks, bit-exact with transposeBytes8Generic. The block's
// eight source rows a0..a7 (eight bytes each; a_t[i] is output row i,
// column t) are interleaved by bytes (a0 a1, a2 a3, ...), by words and by
// dwords, leaving output rows 2j and 2j+1 in the low and high halves of
// one register, stored with VMOVQ and VMOVHPS.

#include "textflag.h"

// func transposeBytes8AVXAsm(dst *byte, ldd int, src *byte, lds int, h, w int)
TEXT ·transposeBytes8AVXAsm(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	MOVQ h+32(FP), R10
	MOVQ w+40(FP), R11
	XORQ CX, CX // c: the block's first column (source row)

cloop:
	CMPQ  CX, R11
	JGE   done
	MOVQ  CX, R12
	IMULQ R9, R12
	ADDQ  SI, R12            // R12: source row c
	LEAQ  (DI)(CX*1), R13    // R13: dst column c
	XORQ  DX, DX             // r: the block's first row

rloop:
	CMPQ       DX, R10
	JGE        cnext
	LEAQ       (R12)(DX*1), AX
	VMOVQ      (AX), X0
	VMOVQ      (AX)(R9*1), X1
	LEAQ       (AX)(R9*2), BX
	VMOVQ      (BX), X2
	VMOVQ      (BX)(R9*1), X3
	LEAQ       (BX)(R9*2), BX
	VMOVQ      (BX), X4
	VMOVQ      (BX)(R9*1), X5
	LEAQ       (BX)(R9*2), BX
	VMOVQ      (BX), X6
	VMOVQ      (BX)(R9*1), X7
	VPUNPCKLBW X1, X0, X0    // a0 a1 by bytes
	VPUNPCKLBW X3, X2, X2    // a2 a3
	VPUNPCKLBW X5, X4, X4    // a4 a5
	VPUNPCKLBW X7, X6, X6    // a6 a7
	VPUNPCKHWD X2, X0, X1    // a0..a3 of rows 4-7
	VPUNPCKLWD X2, X0, X0    // a0..a3 of rows 0-3
	VPUNPCKHWD X6, X4, X5    // a4..a7 of rows 4-7
	VPUNPCKLWD X6, X4, X4    // a4..a7 of rows 0-3
	VPUNPCKLDQ X4, X0, X2    // rows 0, 1
	VPUNPCKHDQ X4, X0, X3    // rows 2, 3
	VPUNPCKLDQ X5, X1, X6    // rows 4, 5
	VPUNPCKHDQ X5, X1, X7    // rows 6, 7
	MOVQ       DX, AX
	IMULQ      R8, AX
	ADDQ       R13, AX
	VMOVQ      X2, (AX)
	VMOVHPS    X2, (AX)(R8*1)
	LEAQ       (AX)(R8*2), BX
	VMOVQ      X3, (BX)
	VMOVHPS    X3, (BX)(R8*1)
	LEAQ       (BX)(R8*2), BX
	VMOVQ      X6, (BX)
	VMOVHPS    X6, (BX)(R8*1)
	LEAQ       (BX)(R8*2), BX
	VMOVQ      X7, (BX)
	VMOVHPS    X7, (BX)(R8*1)
	ADDQ       $8, DX
	JMP        rloop

cnext:
	ADDQ $8, CX
	JMP  cloop

done:
	RET
