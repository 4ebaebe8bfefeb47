//go:build !purego

// AVX2 MinMaxF32, ScaleRoundInt8, DequantRowsF32 and MulAccOffsetInt8
// (see quantfloats.go), the twins of quantfloats_avx512_amd64.s for x86
// without AVX-512. AVX2 has no opmasks: MinMaxF32 and ScaleRoundInt8
// (len ≥ 8, the wrappers in quantfloats_amd64.go take shorter x) redo
// the last full vector ending at len (a reduction, and a dst that cannot
// be a source); DequantRowsF32 (whose bias may be dst) loads and stores
// its last n%8 under a ·tailMask32 mask; MulAccOffsetInt8 takes whole
// vectors and leaves the last len%8 to the wrapper.

#include "textflag.h"

DATA qf2Half<>+0(SB)/4, $0x3f000000  // 0.5
DATA qf2NHalf<>+0(SB)/4, $0xbf000000 // -0.5
DATA qf2One<>+0(SB)/4, $0x3f800000   // 1.0
GLOBL qf2Half<>(SB), RODATA|NOPTR, $4
GLOBL qf2NHalf<>(SB), RODATA|NOPTR, $4
GLOBL qf2One<>(SB), RODATA|NOPTR, $4

// MM(reg, lo, hi, nan): the running minimum lo, maximum hi and NaN lanes
// nan (VCMPPS unordered, ORed) updated with the eight values in reg; Y7
// scratch.
#define MM(reg, lo, hi, nan) \
	VMINPS reg, lo, lo         \
	VMAXPS reg, hi, hi         \
	VCMPPS $3, reg, reg, Y7    \
	VORPS  Y7, nan, nan

// func minMaxF32AVX2Asm(x []float32) (lo, hi float32, nan bool)
//
// For len(x) ≥ 8: two sets of accumulators (Y0/Y1/Y2, Y3/Y4/Y5) seeded
// with x[0:8], sixteen values per step, then eight, then the eight
// ending at len, all reduced across lanes. SI x, CX len, AX index, R9
// len − 8.
TEXT ·minMaxF32AVX2Asm(SB), NOSPLIT, $0-33
	MOVQ    x_base+0(FP), SI
	MOVQ    x_len+8(FP), CX
	VMOVUPS (SI), Y0
	VMOVAPS Y0, Y1
	VCMPPS  $3, Y0, Y0, Y2
	VMOVAPS Y0, Y3
	VMOVAPS Y0, Y4
	VMOVAPS Y2, Y5
	LEAQ    -8(CX), R9
	MOVQ    $8, AX

mm16:
	LEAQ    16(AX), BX
	CMPQ    BX, CX
	JGT     mm8
	VMOVUPS (SI)(AX*4), Y6
	MM(Y6, Y0, Y1, Y2)
	VMOVUPS 32(SI)(AX*4), Y8
	MM(Y8, Y3, Y4, Y5)
	MOVQ    BX, AX
	JMP     mm16

mm8:
	CMPQ    AX, R9
	JGT     mmtail
	VMOVUPS (SI)(AX*4), Y6
	MM(Y6, Y0, Y1, Y2)
	ADDQ    $8, AX

mmtail:
	CMPQ    AX, CX
	JGE     mmreduce
	VMOVUPS -32(SI)(CX*4), Y6
	MM(Y6, Y3, Y4, Y5)

mmreduce:
	VMINPS       Y3, Y0, Y0
	VMAXPS       Y4, Y1, Y1
	VORPS        Y5, Y2, Y2
	VEXTRACTF128 $1, Y0, X6
	VMINPS       X6, X0, X0
	VPERMILPS    $0x4e, X0, X6
	VMINPS       X6, X0, X0
	VPERMILPS    $0xb1, X0, X6
	VMINPS       X6, X0, X0
	VEXTRACTF128 $1, Y1, X6
	VMAXPS       X6, X1, X1
	VPERMILPS    $0x4e, X1, X6
	VMAXPS       X6, X1, X1
	VPERMILPS    $0xb1, X1, X6
	VMAXPS       X6, X1, X1
	VMOVSS       X0, lo+24(FP)
	VMOVSS       X1, hi+28(FP)
	VMOVMSKPS    Y2, BX
	TESTL        BX, BX
	SETNE        nan+32(FP)
	VZEROUPPER
	RET

// SR: eight values of x at AX scaled, rounded and clamped into dst at
// AX: y = zp + x·inv (VMULPS, then VADDPS: two roundings), t = trunc(y)
// (VROUNDPS $3), ±1 where y − t reaches ±0.5 (half away from zero),
// VCVTTPS2DQ (INT32_MIN for NaN and |t| ≥ 2^31), the int32 clamp to
// [lo, hi], packed to bytes (no saturation left to happen). Y8 inv, Y9
// zp, Y10 0.5, Y11 -0.5, Y12 1.0, Y13 lo, Y14 hi.
#define SR \
	VMOVUPS      (SI)(AX*4), Y0      \
	VMULPS       Y8, Y0, Y0          \
	VADDPS       Y9, Y0, Y0          \
	VROUNDPS     $3, Y0, Y1          \
	VSUBPS       Y1, Y0, Y2          \
	VCMPPS       $0x1d, Y10, Y2, Y3  \
	VANDPS       Y12, Y3, Y3         \
	VADDPS       Y3, Y1, Y1          \
	VCMPPS       $0x12, Y11, Y2, Y3  \
	VANDPS       Y12, Y3, Y3         \
	VSUBPS       Y3, Y1, Y1          \
	VCVTTPS2DQ   Y1, Y1              \
	VPMAXSD      Y13, Y1, Y1         \
	VPMINSD      Y14, Y1, Y1         \
	VEXTRACTI128 $1, Y1, X2          \
	VPACKSSDW    X2, X1, X1          \
	VPACKSSWB    X1, X1, X1          \
	VMOVQ        X1, (DI)(AX*1)

// func scaleRoundInt8AVX2Asm(dst []int8, x []float32, inv, zp float32, lo, hi int32)
//
// For len(x) ≥ 8. DI dst, SI x, CX len(x), AX index, R8 len rounded
// down to 8; the last len%8 by redoing the eight ending at len.
TEXT ·scaleRoundInt8AVX2Asm(SB), NOSPLIT, $0-64
	MOVQ         dst_base+0(FP), DI
	MOVQ         x_base+24(FP), SI
	MOVQ         x_len+32(FP), CX
	VBROADCASTSS inv+48(FP), Y8
	VBROADCASTSS zp+52(FP), Y9
	VBROADCASTSS qf2Half<>(SB), Y10
	VBROADCASTSS qf2NHalf<>(SB), Y11
	VBROADCASTSS qf2One<>(SB), Y12
	MOVL         lo+56(FP), BX
	VMOVD        BX, X13
	VPBROADCASTD X13, Y13
	MOVL         hi+60(FP), BX
	VMOVD        BX, X14
	VPBROADCASTD X14, Y14
	MOVQ         CX, R8
	ANDQ         $-8, R8
	XORQ         AX, AX

srloop:
	SR
	ADDQ $8, AX
	CMPQ AX, R8
	JLT  srloop
	CMPQ AX, CX
	JGE  srdone
	LEAQ -8(CX), AX
	SR

srdone:
	VZEROUPPER
	RET

// DQU: eight sums at AX of the row at SI dequantised into Y0: VPSUBD
// corr, VCVTDQ2PS, VMULPS scale, VADDPS bias (when R11 is not nil). R8
// corr, R9 scale, R11 bias, AX channel index. DQM: the same under the
// mask Y15 (masked-off lanes neither read nor fault).
#define DQU \
	VMOVDQU   (SI)(AX*4), Y0 \
	VMOVDQU   (R8)(AX*4), Y1 \
	VPSUBD    Y1, Y0, Y0     \
	VCVTDQ2PS Y0, Y0         \
	VMOVUPS   (R9)(AX*4), Y2 \
	VMULPS    Y2, Y0, Y0     \
	TESTQ     R11, R11       \
	JZ        3(PC)          \
	VMOVUPS   (R11)(AX*4), Y3 \
	VADDPS    Y3, Y0, Y0

#define DQM \
	VPMASKMOVD (SI)(AX*4), Y15, Y0 \
	VPMASKMOVD (R8)(AX*4), Y15, Y1 \
	VPSUBD     Y1, Y0, Y0          \
	VCVTDQ2PS  Y0, Y0              \
	VMASKMOVPS (R9)(AX*4), Y15, Y2 \
	VMULPS     Y2, Y0, Y0          \
	TESTQ      R11, R11            \
	JZ         3(PC)               \
	VMASKMOVPS (R11)(AX*4), Y15, Y3 \
	VADDPS     Y3, Y0, Y0

// func dequantRowsF32AVX2Asm(dst *float32, acc *int32, m, n int, corr *int32, scale, bias *float32, mask *int32)
//
// DI dst row, SI acc row, CX rows left, DX n, R10 n rounded down to 8,
// Y15 the mask of the last n%8 (mask is &tailMask32[8-n%8]).
TEXT ·dequantRowsF32AVX2Asm(SB), NOSPLIT, $0-64
	MOVQ    dst+0(FP), DI
	MOVQ    acc+8(FP), SI
	MOVQ    m+16(FP), CX
	MOVQ    n+24(FP), DX
	MOVQ    corr+32(FP), R8
	MOVQ    scale+40(FP), R9
	MOVQ    bias+48(FP), R11
	MOVQ    mask+56(FP), BX
	VMOVDQU (BX), Y15
	MOVQ    DX, R10
	ANDQ    $-8, R10

dqrow:
	XORQ AX, AX
	CMPQ AX, R10
	JGE  dqtail

dqloop:
	DQU
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, R10
	JLT     dqloop

dqtail:
	CMPQ       AX, DX
	JGE        dqnext
	DQM
	VMASKMOVPS Y0, Y15, (DI)(AX*4)

dqnext:
	LEAQ (DI)(DX*4), DI
	LEAQ (SI)(DX*4), SI
	DECQ CX
	JNZ  dqrow
	VZEROUPPER
	RET

// func mulAccOffsetInt8AVX2Asm(acc []int32, w, x []int8, zp int32)
//
// The first len(acc) rounded down to 8 channels: x and w sign-extended
// to words, x − zp (Y8, words: |x − zp| ≤ 255), VPMULLW (|w·(x − zp)| ≤
// 32640 fits a word), the products sign-extended to dwords and added to
// acc; sixteen per step, then eight. DI acc, DX w, SI x, CX len rounded
// down to 8, R8 to 16, AX index.
TEXT ·mulAccOffsetInt8AVX2Asm(SB), NOSPLIT, $0-76
	MOVQ         acc_base+0(FP), DI
	MOVQ         acc_len+8(FP), CX
	MOVQ         w_base+24(FP), DX
	MOVQ         x_base+48(FP), SI
	MOVL         zp+72(FP), BX
	VMOVD        BX, X8
	VPBROADCASTW X8, Y8
	MOVQ         CX, R8
	ANDQ         $-16, R8
	ANDQ         $-8, CX
	XORQ         AX, AX

ma16:
	CMPQ         AX, R8
	JGE          ma8
	VPMOVSXBW    (DX)(AX*1), Y0
	VPMOVSXBW    (SI)(AX*1), Y1
	VPSUBW       Y8, Y1, Y1
	VPMULLW      Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMOVSXWD    X0, Y0
	VPMOVSXWD    X1, Y1
	VPADDD       (DI)(AX*4), Y0, Y0
	VPADDD       32(DI)(AX*4), Y1, Y1
	VMOVDQU      Y0, (DI)(AX*4)
	VMOVDQU      Y1, 32(DI)(AX*4)
	ADDQ         $16, AX
	JMP          ma16

ma8:
	CMPQ      AX, CX
	JGE       madone
	VPMOVSXBW (DX)(AX*1), X0
	VPMOVSXBW (SI)(AX*1), X1
	VPSUBW    X8, X1, X1
	VPMULLW   X1, X0, X0
	VPMOVSXWD X0, Y0
	VPADDD    (DI)(AX*4), Y0, Y0
	VMOVDQU   Y0, (DI)(AX*4)

madone:
	VZEROUPPER
	RET
