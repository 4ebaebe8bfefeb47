//go:build !purego

// AVX-512 kernel of DepthwiseMultF32 and DepthwiseMultF32Int32
// (dwmult.go): dwmult_avx2_amd64.s with blocks of up to 16 channels in
// ZMM registers (K1 the block's lane mask, masked loads zeroing and
// masked stores touching no other lane), eight output pixels at a time
// in Z0-Z7. Each group first records the
// byte offsets of its eight pixels in the input and output (walking the
// rectangle in row order, the last pixel repeated once the rectangle
// ends), then keeps one input pointer per pixel in R8-R15 and runs the
// taps: a weight vector (masked load) and, per pixel, the input lanes
// (one broadcast value, a full vector, a masked one, or the block's
// input channels permuted onto its lanes, by kind), VMULPS
// then VADDPS (no fused multiply-add: TFLite's order, as dwConvAVX512).

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
#define A_XMASK 336

// One pixel's tap: broadcast input, full vector, masked vector.
#define TAPB(P, ACC) \
	VBROADCASTSS (P)(AX*1), Z9 \
	VMULPS       Z9, Z8, Z9    \
	VADDPS       Z9, ACC, ACC

#define TAPF(P, ACC) \
	VMULPS (P)(AX*1), Z8, Z9 \
	VADDPS Z9, ACC, ACC

#define TAPM(P, ACC) \
	VMOVUPS.Z (P)(AX*1), K1, Z9 \
	VMULPS    Z9, Z8, Z9        \
	VADDPS    Z9, ACC, ACC

// Permuted: the input channels the block reads (mask K2), lane l
// taking channel Z16[l] of them.
#define TAPP(P, ACC) \
	VMOVUPS.Z (P)(AX*1), K2, Z9 \
	VPERMPS   Z9, Z16, Z9       \
	VMULPS    Z9, Z8, Z9        \
	VADDPS    Z9, ACC, ACC

// The tap loops of one kind: TAP for the eight pixels, then the next
// tap column, and at a row's end the next tap row.
#define TAPLOOP(TAP, LTY, LTX) \
	MOVQ A_TH(BX), DX \
LTY:                      \
	MOVQ A_TW(BX), CX \
LTX:                      \
	VMOVUPS.Z (DI), K1, Z8   \
	TAP(R8, Z0)              \
	TAP(R9, Z1)              \
	TAP(R10, Z2)             \
	TAP(R11, Z3)             \
	TAP(R12, Z4)             \
	TAP(R13, Z5)             \
	TAP(R14, Z6)             \
	TAP(R15, Z7)             \
	ADDQ A_XTAPCOL(BX), AX   \
	ADDQ A_WTAPCOL(BX), DI   \
	DECQ CX                  \
	JNZ  LTX               \
	ADDQ A_XROWADJ(BX), AX   \
	ADDQ A_WROWADJ(BX), DI   \
	DECQ DX                  \
	JNZ  LTY

// func dwMultAVX512(dst *uint32, x, w *float32, bias *uint32, a *dwmArgs, lo, hi float32, mask uint16)
TEXT ·dwMultAVX512(SB), NOSPLIT, $0-50
	MOVQ         a+32(FP), BX
	MOVWLZX      mask+48(FP), AX
	KMOVW        AX, K1
	MOVQ         A_XMASK(BX), AX
	KMOVW        AX, K2
	VMOVDQU32    A_IDX(BX), Z16
	VBROADCASTSS lo+40(FP), Z14
	VBROADCASTSS hi+44(FP), Z10
	MOVQ         bias+24(FP), AX
	VMOVUPS.Z    (AX), K1, Z13
	VXORPS       Z12, Z12, Z12
	CMPQ         A_MODE(BX), $0
	JNE          group
	VMOVAPS      Z13, Z12

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
	VMOVAPS Z12, Z0
	VMOVAPS Z12, Z1
	VMOVAPS Z12, Z2
	VMOVAPS Z12, Z3
	VMOVAPS Z12, Z4
	VMOVAPS Z12, Z5
	VMOVAPS Z12, Z6
	VMOVAPS Z12, Z7
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
	VMAXPS Z0, Z14, Z0
	VMAXPS Z1, Z14, Z1
	VMAXPS Z2, Z14, Z2
	VMAXPS Z3, Z14, Z3
	VMAXPS Z4, Z14, Z4
	VMAXPS Z5, Z14, Z5
	VMAXPS Z6, Z14, Z6
	VMAXPS Z7, Z14, Z7
	VMINPS Z0, Z10, Z0
	VMINPS Z1, Z10, Z1
	VMINPS Z2, Z10, Z2
	VMINPS Z3, Z10, Z3
	VMINPS Z4, Z10, Z4
	VMINPS Z5, Z10, Z5
	VMINPS Z6, Z10, Z6
	VMINPS Z7, Z10, Z7
	JMP    store

toint:
	VCVTTPS2DQ Z0, Z0
	VCVTTPS2DQ Z1, Z1
	VCVTTPS2DQ Z2, Z2
	VCVTTPS2DQ Z3, Z3
	VCVTTPS2DQ Z4, Z4
	VCVTTPS2DQ Z5, Z5
	VCVTTPS2DQ Z6, Z6
	VCVTTPS2DQ Z7, Z7
	VPADDD     Z13, Z0, Z0
	VPADDD     Z13, Z1, Z1
	VPADDD     Z13, Z2, Z2
	VPADDD     Z13, Z3, Z3
	VPADDD     Z13, Z4, Z4
	VPADDD     Z13, Z5, Z5
	VPADDD     Z13, Z6, Z6
	VPADDD     Z13, Z7, Z7

store:
	MOVQ dst+0(FP), SI
	CMPQ A_FULL(BX), $0
	JEQ  storem
	MOVQ    A_DOFF+0(BX), AX
	VMOVUPS Z0, (SI)(AX*1)
	MOVQ    A_DOFF+8(BX), AX
	VMOVUPS Z1, (SI)(AX*1)
	MOVQ    A_DOFF+16(BX), AX
	VMOVUPS Z2, (SI)(AX*1)
	MOVQ    A_DOFF+24(BX), AX
	VMOVUPS Z3, (SI)(AX*1)
	MOVQ    A_DOFF+32(BX), AX
	VMOVUPS Z4, (SI)(AX*1)
	MOVQ    A_DOFF+40(BX), AX
	VMOVUPS Z5, (SI)(AX*1)
	MOVQ    A_DOFF+48(BX), AX
	VMOVUPS Z6, (SI)(AX*1)
	MOVQ    A_DOFF+56(BX), AX
	VMOVUPS Z7, (SI)(AX*1)
	JMP     stored

storem:
	MOVQ       A_DOFF+0(BX), AX
	VMOVUPS    Z0, K1, (SI)(AX*1)
	MOVQ       A_DOFF+8(BX), AX
	VMOVUPS    Z1, K1, (SI)(AX*1)
	MOVQ       A_DOFF+16(BX), AX
	VMOVUPS    Z2, K1, (SI)(AX*1)
	MOVQ       A_DOFF+24(BX), AX
	VMOVUPS    Z3, K1, (SI)(AX*1)
	MOVQ       A_DOFF+32(BX), AX
	VMOVUPS    Z4, K1, (SI)(AX*1)
	MOVQ       A_DOFF+40(BX), AX
	VMOVUPS    Z5, K1, (SI)(AX*1)
	MOVQ       A_DOFF+48(BX), AX
	VMOVUPS    Z6, K1, (SI)(AX*1)
	MOVQ       A_DOFF+56(BX), AX
	VMOVUPS    Z7, K1, (SI)(AX*1)

stored:
	MOVQ A_P(BX), AX
	CMPQ AX, A_N(BX)
	JLT  group
	VZEROUPPER
	RET
