//go:build !purego

// AVX2 BilinearF32 (see bilinear.go): VMULPS and VADDPS in the portable
// code's order, eight channels per vector, no FMA.

#include "textflag.h"

// BLEND(load, off): Y0 = the result for the eight channels at AX (+off
// elements), loading the sources with load (VMOVUPS, or VMASKMOVPS
// under the mask Y13 through the macro LOADM); Y10-Y12 the weights 0-2,
// Y9 weight 3, Y15 zeros, Y1 scratch.
#define BLEND(off) \
	VMULPS  off(SI)(AX*4), Y10, Y1 \
	VADDPS  Y1, Y15, Y0            \
	VMULPS  off(R8)(AX*4), Y11, Y1 \
	VADDPS  Y1, Y0, Y0             \
	VMULPS  off(R9)(AX*4), Y12, Y1 \
	VADDPS  Y1, Y0, Y0             \
	VMULPS  off(R10)(AX*4), Y9, Y1 \
	VADDPS  Y1, Y0, Y0             \
	VMOVUPS Y0, off(DI)(AX*4)

#define BLEND2(off) \
	VMULPS  off(SI)(AX*4), Y10, Y3 \
	VADDPS  Y3, Y15, Y2            \
	VMULPS  off(R8)(AX*4), Y11, Y3 \
	VADDPS  Y3, Y2, Y2             \
	VMULPS  off(R9)(AX*4), Y12, Y3 \
	VADDPS  Y3, Y2, Y2             \
	VMULPS  off(R10)(AX*4), Y9, Y3 \
	VADDPS  Y3, Y2, Y2             \
	VMOVUPS Y2, off(DI)(AX*4)

// func bilinearF32AVX2(dst, p00, p01, p10, p11 []float32, w *[4]float32)
//
// Sixteen channels per step, then eight, then the last len%8: as the
// eight channels ending at len when len >= 8, else through VMASKMOVPS (no
// access beyond the mask). DI dst, SI p00, R8 p01, R9 p10,
// R10 p11, CX len, AX index, R11 end of the 16-steps, R12 end of the
// 8-steps.
TEXT ·bilinearF32AVX2(SB), NOSPLIT, $0-128
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         p00_base+24(FP), SI
	MOVQ         p01_base+48(FP), R8
	MOVQ         p10_base+72(FP), R9
	MOVQ         p11_base+96(FP), R10
	MOVQ         w+120(FP), DX
	VBROADCASTSS 0(DX), Y10
	VBROADCASTSS 4(DX), Y11
	VBROADCASTSS 8(DX), Y12
	VBROADCASTSS 12(DX), Y9
	VXORPS       Y15, Y15, Y15
	MOVQ         CX, R11
	ANDQ         $-16, R11
	MOVQ         CX, R12
	ANDQ         $-8, R12
	XORQ         AX, AX
	CMPQ         AX, R11
	JGE          loop8

loop16:
	BLEND(0)
	BLEND2(32)
	ADDQ $16, AX
	CMPQ AX, R11
	JLT  loop16

loop8:
	CMPQ AX, R12
	JGE  tail
	BLEND(0)
	ADDQ $8, AX

tail:
	ANDQ       $7, CX
	JZ         done
	CMPQ       R12, $0
	JEQ        masked
	// At least eight channels: redo the last eight as one vector ending
	// at len (dst does not overlap the sources, so rewriting channels
	// already done stores the same bits), avoiding VMASKMOVPS, whose
	// store is slow on AMD cores.
	ADDQ       CX, AX
	SUBQ       $8, AX
	BLEND(0)
	JMP        done

masked:
	LEAQ       ·tailMask32(SB), BX
	NEGQ       CX
	VMOVDQU    32(BX)(CX*4), Y13
	VMASKMOVPS (SI)(AX*4), Y13, Y4
	VMASKMOVPS (R8)(AX*4), Y13, Y5
	VMASKMOVPS (R9)(AX*4), Y13, Y6
	VMASKMOVPS (R10)(AX*4), Y13, Y7
	VMULPS     Y4, Y10, Y1
	VADDPS     Y1, Y15, Y0
	VMULPS     Y5, Y11, Y1
	VADDPS     Y1, Y0, Y0
	VMULPS     Y6, Y12, Y1
	VADDPS     Y1, Y0, Y0
	VMULPS     Y7, Y9, Y1
	VADDPS     Y1, Y0, Y0
	VMASKMOVPS Y0, Y13, (DI)(AX*4)

done:
	VZEROUPPER
	RET
