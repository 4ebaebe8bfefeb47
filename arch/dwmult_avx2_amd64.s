//go:build !purego

// AVX2 kernel of DepthwiseMultF32 and DepthwiseMultF32Int32 (dwmult.go):
// one block of up to 8 channels (Y15 its lane mask) over a rectangle,
// eight output pixels at a time in Y0-Y7. Each group first records the
// byte offsets of its eight pixels in the input and output (walking the
// rectangle in row order, the last pixel repeated once the rectangle
// ends), then keeps one input pointer per pixel in R8-R15 and runs the
// taps: a weight vector (masked load) and, per pixel, the input lanes
// (one broadcast value, a full vector, a masked one, or the block's
// input channels permuted onto its lanes, by kind), VMULPS
// then VADDPS (no fused multiply-add: TFLite's order, as dwConvAVX2).

#include "textflag.h"

#define A_N 0
#define A_COLS 8
#define A_TH 16
#define A_TW 24
#define A_XROWSTEP 32
#define A_XCOLSTEP 40
#define A_XTAPCOL 48
#define A_XROWADJ 56
#define A_DROWSTEP 64
#define A_DCOLSTEP 72
#define A_WTAPCOL 80
#define A_WROWADJ 88
#define A_MODE 96
#define A_KIND 104
#define A_FULL 112
#define A_P 120
#define A_R 128
#define A_Q 136
#define A_XOFF 144
#define A_DOFF 208
#define A_IDX 272
#define A_XMASKV 344
#define A_INIT 376

// One pixel's tap: broadcast input, full vector, masked vector.
#define TAPB(P, ACC) \
	VBROADCASTSS (P)(AX*1), Y9 \
	VMULPS       Y9, Y8, Y9    \
	VADDPS       Y9, ACC, ACC

#define TAPF(P, ACC) \
	VMULPS (P)(AX*1), Y8, Y9 \
	VADDPS Y9, ACC, ACC

#define TAPM(P, ACC) \
	VMASKMOVPS (P)(AX*1), Y15, Y9 \
	VMULPS     Y9, Y8, Y9         \
	VADDPS     Y9, ACC, ACC

// Permuted: the input channels the block reads (mask Y12), lane l
// taking channel Y11[l] of them.
#define TAPP(P, ACC) \
	VMASKMOVPS (P)(AX*1), Y12, Y9 \
	VPERMPS    Y9, Y11, Y9        \
	VMULPS     Y9, Y8, Y9         \
	VADDPS     Y9, ACC, ACC

// The tap loops of one kind: TAP for the eight pixels, then the next
// tap column, and at a row's end the next tap row.
#define TAPLOOP(TAP, LTY, LTX) \
	MOVQ A_TH(BX), DX \
LTY:                      \
	MOVQ A_TW(BX), CX \
LTX:                      \
	VMASKMOVPS (DI), Y15, Y8 \
	TAP(R8, Y0)              \
	TAP(R9, Y1)              \
	TAP(R10, Y2)             \
	TAP(R11, Y3)             \
	TAP(R12, Y4)             \
	TAP(R13, Y5)             \
	TAP(R14, Y6)             \
	TAP(R15, Y7)             \
	ADDQ A_XTAPCOL(BX), AX   \
	ADDQ A_WTAPCOL(BX), DI   \
	DECQ CX                  \
	JNZ  LTX               \
	ADDQ A_XROWADJ(BX), AX   \
	ADDQ A_WROWADJ(BX), DI   \
	DECQ DX                  \
	JNZ  LTY

// func dwMultAVX2(dst *uint32, x, w *float32, bias *uint32, a *dwmArgs, lo, hi float32, mask *int32)
TEXT ·dwMultAVX2(SB), NOSPLIT, $0-56
	MOVQ         a+32(FP), BX
	MOVQ         mask+48(FP), AX
	VMOVDQU      (AX), Y15
	VBROADCASTSS lo+40(FP), Y14
	VBROADCASTSS hi+44(FP), Y10
	MOVQ         bias+24(FP), AX
	VMASKMOVPS   (AX), Y15, Y13
	VXORPS       Y12, Y12, Y12
	CMPQ         A_MODE(BX), $0
	JNE          keepinit
	VMOVAPS      Y13, Y12

keepinit:
	// The sums' start lives in A_INIT; Y12 and Y11 hold kind 3's input
	// mask and permutation.
	VMOVUPS Y12, A_INIT(BX)
	VMOVDQU A_XMASKV(BX), Y12
	VMOVDQU A_IDX(BX), Y11

group:
	// The group's pixel offsets: pixel p at (r, q), SI the slot.
	MOVQ A_P(BX), AX
	MOVQ A_R(BX), CX
	MOVQ A_Q(BX), DX
	XORQ SI, SI
	XORQ R10, R10

slot:
	MOVQ  CX, R8
	IMULQ A_XROWSTEP(BX), R8
	MOVQ  DX, R9
	IMULQ A_XCOLSTEP(BX), R9
	ADDQ  R9, R8
	MOVQ  R8, A_XOFF(BX)(SI*8)
	MOVQ  CX, R8
	IMULQ A_DROWSTEP(BX), R8
	MOVQ  DX, R9
	IMULQ A_DCOLSTEP(BX), R9
	ADDQ  R9, R8
	MOVQ  R8, A_DOFF(BX)(SI*8)
	// The next pixel, unless p is the rectangle's last (then the
	// remaining slots repeat it).
	LEAQ  1(AX), R8
	CMPQ  R8, A_N(BX)
	JGE   last
	MOVQ  R8, AX
	INCQ  DX
	CMPQ  DX, A_COLS(BX)
	JLT   nextslot
	XORQ  DX, DX
	INCQ  CX
	JMP   nextslot

last:
	MOVQ $1, R10

nextslot:
	INCQ SI
	CMPQ SI, $8
	JLT  slot
	// R10 set: the group holds the rectangle's last pixel; A_P = N
	// flags the last group.
	TESTQ R10, R10
	JZ    saveWalk
	MOVQ  A_N(BX), AX

saveWalk:
	MOVQ AX, A_P(BX)
	MOVQ CX, A_R(BX)
	MOVQ DX, A_Q(BX)

	MOVQ    x+8(FP), AX
	MOVQ    A_XOFF+0(BX), R8
	ADDQ    AX, R8
	MOVQ    A_XOFF+8(BX), R9
	ADDQ    AX, R9
	MOVQ    A_XOFF+16(BX), R10
	ADDQ    AX, R10
	MOVQ    A_XOFF+24(BX), R11
	ADDQ    AX, R11
	MOVQ    A_XOFF+32(BX), R12
	ADDQ    AX, R12
	MOVQ    A_XOFF+40(BX), R13
	ADDQ    AX, R13
	MOVQ    A_XOFF+48(BX), R14
	ADDQ    AX, R14
	MOVQ    A_XOFF+56(BX), R15
	ADDQ    AX, R15
	VMOVUPS A_INIT(BX), Y0
	VMOVUPS A_INIT(BX), Y1
	VMOVUPS A_INIT(BX), Y2
	VMOVUPS A_INIT(BX), Y3
	VMOVUPS A_INIT(BX), Y4
	VMOVUPS A_INIT(BX), Y5
	VMOVUPS A_INIT(BX), Y6
	VMOVUPS A_INIT(BX), Y7
	XORQ    AX, AX
	MOVQ    w+16(FP), DI
	CMPQ    A_KIND(BX), $1
	JEQ     kfull
	JGT     kmaskp
	TAPLOOP(TAPB, kbty, kbtx)
	JMP     taps

kfull:
	TAPLOOP(TAPF, kfty, kftx)
	JMP taps

kmaskp:
	CMPQ A_KIND(BX), $3
	JEQ  kperm
	TAPLOOP(TAPM, kmty, kmtx)
	JMP taps

kperm:
	TAPLOOP(TAPP, kpty, kptx)

taps:
	CMPQ   A_MODE(BX), $0
	JNE    toint
	VMAXPS Y0, Y14, Y0
	VMAXPS Y1, Y14, Y1
	VMAXPS Y2, Y14, Y2
	VMAXPS Y3, Y14, Y3
	VMAXPS Y4, Y14, Y4
	VMAXPS Y5, Y14, Y5
	VMAXPS Y6, Y14, Y6
	VMAXPS Y7, Y14, Y7
	VMINPS Y0, Y10, Y0
	VMINPS Y1, Y10, Y1
	VMINPS Y2, Y10, Y2
	VMINPS Y3, Y10, Y3
	VMINPS Y4, Y10, Y4
	VMINPS Y5, Y10, Y5
	VMINPS Y6, Y10, Y6
	VMINPS Y7, Y10, Y7
	JMP    store

toint:
	VCVTTPS2DQ Y0, Y0
	VCVTTPS2DQ Y1, Y1
	VCVTTPS2DQ Y2, Y2
	VCVTTPS2DQ Y3, Y3
	VCVTTPS2DQ Y4, Y4
	VCVTTPS2DQ Y5, Y5
	VCVTTPS2DQ Y6, Y6
	VCVTTPS2DQ Y7, Y7
	VPADDD     Y13, Y0, Y0
	VPADDD     Y13, Y1, Y1
	VPADDD     Y13, Y2, Y2
	VPADDD     Y13, Y3, Y3
	VPADDD     Y13, Y4, Y4
	VPADDD     Y13, Y5, Y5
	VPADDD     Y13, Y6, Y6
	VPADDD     Y13, Y7, Y7

store:
	MOVQ dst+0(FP), SI
	CMPQ A_FULL(BX), $0
	JEQ  storem
	MOVQ    A_DOFF+0(BX), AX
	VMOVUPS Y0, (SI)(AX*1)
	MOVQ    A_DOFF+8(BX), AX
	VMOVUPS Y1, (SI)(AX*1)
	MOVQ    A_DOFF+16(BX), AX
	VMOVUPS Y2, (SI)(AX*1)
	MOVQ    A_DOFF+24(BX), AX
	VMOVUPS Y3, (SI)(AX*1)
	MOVQ    A_DOFF+32(BX), AX
	VMOVUPS Y4, (SI)(AX*1)
	MOVQ    A_DOFF+40(BX), AX
	VMOVUPS Y5, (SI)(AX*1)
	MOVQ    A_DOFF+48(BX), AX
	VMOVUPS Y6, (SI)(AX*1)
	MOVQ    A_DOFF+56(BX), AX
	VMOVUPS Y7, (SI)(AX*1)
	JMP     stored

storem:
	MOVQ       A_DOFF+0(BX), AX
	VMASKMOVPS Y0, Y15, (SI)(AX*1)
	MOVQ       A_DOFF+8(BX), AX
	VMASKMOVPS Y1, Y15, (SI)(AX*1)
	MOVQ       A_DOFF+16(BX), AX
	VMASKMOVPS Y2, Y15, (SI)(AX*1)
	MOVQ       A_DOFF+24(BX), AX
	VMASKMOVPS Y3, Y15, (SI)(AX*1)
	MOVQ       A_DOFF+32(BX), AX
	VMASKMOVPS Y4, Y15, (SI)(AX*1)
	MOVQ       A_DOFF+40(BX), AX
	VMASKMOVPS Y5, Y15, (SI)(AX*1)
	MOVQ       A_DOFF+48(BX), AX
	VMASKMOVPS Y6, Y15, (SI)(AX*1)
	MOVQ       A_DOFF+56(BX), AX
	VMASKMOVPS Y7, Y15, (SI)(AX*1)

stored:
	MOVQ A_P(BX), AX
	CMPQ AX, A_N(BX)
	JLT  group
	VZEROUPPER
	RET
