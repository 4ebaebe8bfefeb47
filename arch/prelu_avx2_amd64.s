//go:build !purego

// AVX2 PReluF32 and LeakyReluF32 (see prelu.go): the product x·alpha
// (VMULPS), a lane mask from an ordered comparison of x with zero
// (VCMPPS: GE_OQ for PReLU, GT_OQ for leaky ReLU, false for NaN), and
// VBLENDVPS taking x where the mask is set and the product elsewhere,
// which is the portable code's choice lane by lane.

#include "textflag.h"

#define CMP_GE_OQ $0x1d
#define CMP_GT_OQ $0x1e

// PRELU_8(off): Y0..: dst[off..off+8] from x and alpha at AX, through
// Yx, Yp (product) and Ym (mask); Y15 holds zeros.
#define PRELU_8(off, yx, yp, ym) \
	VMOVUPS   off(SI)(AX*4), yx \
	VMULPS    off(DX)(AX*4), yx, yp \
	VCMPPS    CMP_GE_OQ, Y15, yx, ym \
	VBLENDVPS ym, yx, yp, yp \
	VMOVUPS   yp, off(DI)(AX*4)

// func preluF32AVX2(dst, x, alpha []float32)
//
// Thirty-two values per step, then eight, then the last len%8 through
// VMASKMOVPS (no access beyond the mask). DI dst, SI x, DX alpha, CX len,
// AX index, R8 end of the 32-value steps, R9 end of the 8-value steps;
// Y15 zero, Y13 tail mask.
TEXT ·preluF32AVX2(SB), NOSPLIT, $0-72
	MOVQ   dst_base+0(FP), DI
	MOVQ   x_base+24(FP), SI
	MOVQ   x_len+32(FP), CX
	MOVQ   alpha_base+48(FP), DX
	VXORPS Y15, Y15, Y15
	MOVQ   CX, R8
	ANDQ   $-32, R8
	MOVQ   CX, R9
	ANDQ   $-8, R9
	XORQ   AX, AX
	CMPQ   AX, R8
	JGE    ploop8

ploop32:
	PRELU_8(0, Y0, Y1, Y2)
	PRELU_8(32, Y3, Y4, Y5)
	PRELU_8(64, Y6, Y7, Y8)
	PRELU_8(96, Y9, Y10, Y11)
	ADDQ $32, AX
	CMPQ AX, R8
	JLT  ploop32

ploop8:
	CMPQ AX, R9
	JGE  ptail
	PRELU_8(0, Y0, Y1, Y2)
	ADDQ $8, AX
	JMP  ploop8

ptail:
	ANDQ       $7, CX
	JZ         pdone
	LEAQ       ·tailMask32(SB), BX
	NEGQ       CX
	VMOVDQU    32(BX)(CX*4), Y13
	VMASKMOVPS (SI)(AX*4), Y13, Y0
	VMASKMOVPS (DX)(AX*4), Y13, Y3
	VMULPS     Y3, Y0, Y1
	VCMPPS     CMP_GE_OQ, Y15, Y0, Y2
	VBLENDVPS  Y2, Y0, Y1, Y1
	VMASKMOVPS Y1, Y13, (DI)(AX*4)

pdone:
	VZEROUPPER
	RET

// LEAKY_8(off): as PRELU_8 with the broadcast alpha in Y14 and the
// strict comparison.
#define LEAKY_8(off, yx, yp, ym) \
	VMOVUPS   off(SI)(AX*4), yx \
	VMULPS    Y14, yx, yp \
	VCMPPS    CMP_GT_OQ, Y15, yx, ym \
	VBLENDVPS ym, yx, yp, yp \
	VMOVUPS   yp, off(DI)(AX*4)

// func leakyReluF32AVX2(dst, x []float32, alpha float32)
//
// The loop structure and registers of preluF32AVX2, with Y14 alpha.
TEXT ·leakyReluF32AVX2(SB), NOSPLIT, $0-52
	MOVQ         dst_base+0(FP), DI
	MOVQ         x_base+24(FP), SI
	MOVQ         x_len+32(FP), CX
	VBROADCASTSS alpha+48(FP), Y14
	VXORPS       Y15, Y15, Y15
	MOVQ         CX, R8
	ANDQ         $-32, R8
	MOVQ         CX, R9
	ANDQ         $-8, R9
	XORQ         AX, AX
	CMPQ         AX, R8
	JGE          lloop8

lloop32:
	LEAKY_8(0, Y0, Y1, Y2)
	LEAKY_8(32, Y3, Y4, Y5)
	LEAKY_8(64, Y6, Y7, Y8)
	LEAKY_8(96, Y9, Y10, Y11)
	ADDQ $32, AX
	CMPQ AX, R8
	JLT  lloop32

lloop8:
	CMPQ AX, R9
	JGE  ltail
	LEAKY_8(0, Y0, Y1, Y2)
	ADDQ $8, AX
	JMP  lloop8

ltail:
	ANDQ       $7, CX
	JZ         ldone
	LEAQ       ·tailMask32(SB), BX
	NEGQ       CX
	VMOVDQU    32(BX)(CX*4), Y13
	VMASKMOVPS (SI)(AX*4), Y13, Y0
	VMULPS     Y14, Y0, Y1
	VCMPPS     CMP_GT_OQ, Y15, Y0, Y2
	VBLENDVPS  Y2, Y0, Y1, Y1
	VMASKMOVPS Y1, Y13, (DI)(AX*4)

ldone:
	VZEROUPPER
	RET
