//go:build !purego

// AVX-512 MinMaxF32 and ScaleRoundInt8 (see quantfloats.go), sixteen
// lanes per step and the last len%16 under an opmask (masked loads
// neither read nor fault past the slice).

#include "textflag.h"

DATA qfHalf<>+0(SB)/4, $0x3f000000  // 0.5
DATA qfNHalf<>+0(SB)/4, $0xbf000000 // -0.5
DATA qfOne<>+0(SB)/4, $0x3f800000   // 1.0
GLOBL qfHalf<>(SB), RODATA|NOPTR, $4
GLOBL qfNHalf<>(SB), RODATA|NOPTR, $4
GLOBL qfOne<>(SB), RODATA|NOPTR, $4

// func minMaxF32AVX512(x []float32) (lo, hi float32, nan bool)
//
// For len(x) ≥ 1: Z0/Z1 the running minimum/maximum (seeded with x[0];
// the masked tail leaves the lanes it does not load), K3 the lanes that
// saw a NaN (VCMPPS unordered), then both reduced across lanes. SI x,
// CX len, AX index, R8 len rounded down to 16.
TEXT ·minMaxF32AVX512(SB), NOSPLIT, $0-33
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS (SI), Z0
	VMOVAPS      Z0, Z1
	KXORW        K3, K3, K3
	MOVQ         CX, R8
	ANDQ         $-16, R8
	XORQ         AX, AX
	CMPQ         AX, R8
	JGE          tail

loop:
	VMOVUPS (SI)(AX*4), Z2
	VMINPS  Z2, Z0, Z0
	VMAXPS  Z2, Z1, Z1
	VCMPPS  $3, Z2, Z2, K2
	KORW    K2, K3, K3
	ADDQ    $16, AX
	CMPQ    AX, R8
	JLT     loop

tail:
	SUBQ      AX, CX
	JZ        reduce
	MOVL      $1, BX
	SHLL      CX, BX
	DECL      BX
	KMOVW     BX, K1
	VMOVUPS.Z (SI)(AX*4), K1, Z2
	VMINPS    Z2, Z0, K1, Z0
	VMAXPS    Z2, Z1, K1, Z1
	VCMPPS    $3, Z2, Z2, K1, K2
	KORW      K2, K3, K3

reduce:
	VEXTRACTF64X4 $1, Z0, Y2
	VMINPS        Y2, Y0, Y0
	VEXTRACTF128  $1, Y0, X2
	VMINPS        X2, X0, X0
	VPERMILPS     $0x4e, X0, X2
	VMINPS        X2, X0, X0
	VPERMILPS     $0xb1, X0, X2
	VMINPS        X2, X0, X0
	VEXTRACTF64X4 $1, Z1, Y2
	VMAXPS        Y2, Y1, Y1
	VEXTRACTF128  $1, Y1, X2
	VMAXPS        X2, X1, X1
	VPERMILPS     $0x4e, X1, X2
	VMAXPS        X2, X1, X1
	VPERMILPS     $0xb1, X1, X2
	VMAXPS        X2, X1, X1
	VMOVSS        X0, lo+24(FP)
	VMOVSS        X1, hi+28(FP)
	KMOVW         K3, BX
	TESTL         BX, BX
	SETNE         nan+32(FP)
	VZEROUPPER
	RET

// STEP(mask): sixteen values of x at AX scaled, rounded and clamped
// into dst at AX: y = zp + x·inv (VMULPS, then VADDPS: two roundings),
// t = trunc(y) (VRNDSCALEPS), ±1 where y − t reaches ±0.5 (half away
// from zero), VCVTTPS2DQ (INT32_MIN for NaN and |t| ≥ 2^31), the int32
// clamp to [lo, hi], VPMOVSDB. Z8 inv, Z9 zp, Z10 0.5, Z11 -0.5, Z12
// 1.0, Z13 lo, Z14 hi.
#define STEP(mask) \
	VMOVUPS.Z    (SI)(AX*4), mask, Z0 \
	VMULPS       Z8, Z0, Z0           \
	VADDPS       Z9, Z0, Z0           \
	VRNDSCALEPS  $0x0b, Z0, Z1        \
	VSUBPS       Z1, Z0, Z2           \
	VCMPPS       $0x1d, Z10, Z2, K2   \
	VADDPS       Z12, Z1, K2, Z1      \
	VCMPPS       $0x12, Z11, Z2, K2   \
	VSUBPS       Z12, Z1, K2, Z1      \
	VCVTTPS2DQ   Z1, Z3               \
	VPMAXSD      Z13, Z3, Z3          \
	VPMINSD      Z14, Z3, Z3          \
	VPMOVSDB     Z3, mask, (DI)(AX*1)

// func scaleRoundInt8AVX512(dst []int8, x []float32, inv, zp float32, lo, hi int32)
//
// DI dst, SI x, CX len(x), AX index, R8 len rounded down to 16; K4 all
// lanes, K1 the tail's.
TEXT ·scaleRoundInt8AVX512(SB), NOSPLIT, $0-64
	MOVQ         dst_base+0(FP), DI
	MOVQ         x_base+24(FP), SI
	MOVQ         x_len+32(FP), CX
	VBROADCASTSS inv+48(FP), Z8
	VBROADCASTSS zp+52(FP), Z9
	VBROADCASTSS qfHalf<>(SB), Z10
	VBROADCASTSS qfNHalf<>(SB), Z11
	VBROADCASTSS qfOne<>(SB), Z12
	MOVL         lo+56(FP), BX
	VPBROADCASTD BX, Z13
	MOVL         hi+60(FP), BX
	VPBROADCASTD BX, Z14
	KXNORW       K4, K4, K4
	MOVQ         CX, R8
	ANDQ         $-16, R8
	XORQ         AX, AX
	CMPQ         AX, R8
	JGE          stail

sloop:
	STEP(K4)
	ADDQ $16, AX
	CMPQ AX, R8
	JLT  sloop

stail:
	SUBQ  AX, CX
	JZ    sdone
	MOVL  $1, BX
	SHLL  CX, BX
	DECL  BX
	KMOVW BX, K1
	STEP(K1)

sdone:
	VZEROUPPER
	RET

// DQ(mask): sixteen sums at AX of the row at SI, dequantised into the
// row at DI: VPSUBD corr, VCVTDQ2PS, VMULPS scale, VADDPS bias (when R11
// is not nil). R8 corr, R9 scale, R11 bias, AX channel index.
#define DQ(mask) \
	VMOVDQU32.Z (SI)(AX*4), mask, Z0  \
	VMOVDQU32.Z (R8)(AX*4), mask, Z1  \
	VPSUBD      Z1, Z0, Z0            \
	VCVTDQ2PS   Z0, Z0                \
	VMOVUPS.Z   (R9)(AX*4), mask, Z2  \
	VMULPS      Z2, Z0, Z0            \
	TESTQ       R11, R11              \
	JZ          3(PC)                 \
	VMOVUPS.Z   (R11)(AX*4), mask, Z3 \
	VADDPS      Z3, Z0, Z0            \
	VMOVUPS     Z0, mask, (DI)(AX*4)

// func dequantRowsF32AVX512Asm(dst *float32, acc *int32, m, n int, corr *int32, scale, bias *float32)
//
// DI dst row, SI acc row, CX rows left, DX n, R10 n rounded down to 16,
// K4 all lanes, K1 the last n%16.
TEXT ·dequantRowsF32AVX512Asm(SB), NOSPLIT, $0-56
	MOVQ   dst+0(FP), DI
	MOVQ   acc+8(FP), SI
	MOVQ   m+16(FP), CX
	MOVQ   n+24(FP), DX
	MOVQ   corr+32(FP), R8
	MOVQ   scale+40(FP), R9
	MOVQ   bias+48(FP), R11
	KXNORW K4, K4, K4
	MOVQ   DX, R10
	ANDQ   $15, R10
	MOVL   $1, BX
	MOVQ   CX, R12
	MOVQ   R10, CX
	SHLL   CX, BX
	MOVQ   R12, CX
	DECL   BX
	KMOVW  BX, K1
	MOVQ   DX, R10
	ANDQ   $-16, R10

row:
	XORQ AX, AX
	CMPQ AX, R10
	JGE  dqtail

dqloop:
	DQ(K4)
	ADDQ $16, AX
	CMPQ AX, R10
	JLT  dqloop

dqtail:
	CMPQ AX, DX
	JGE  dqnext
	DQ(K1)

dqnext:
	LEAQ (DI)(DX*4), DI
	LEAQ (SI)(DX*4), SI
	DECQ CX
	JNZ  row
	VZEROUPPER
	RET

// MA(mask16, mask32): sixteen channels at AX: x and w sign-extended to
// words, x − zp (Z8, words: |x − zp| ≤ 255), VPMULLW (|w·(x − zp)| ≤
// 32640 fits a word), the products sign-extended to dwords and added
// to acc. mask16 selects the bytes/words, mask32 the dwords.
#define MA(mask) \
	VPMOVSXBW.Z (DX)(AX*1), mask, Y0 \
	VPMOVSXBW.Z (SI)(AX*1), mask, Y1 \
	VPSUBW      Y8, Y1, Y1           \
	VPMULLW     Y1, Y0, Y0           \
	VPMOVSXWD   Y0, Z0               \
	VPADDD.Z    (DI)(AX*4), Z0, mask, Z0 \
	VMOVDQU32   Z0, mask, (DI)(AX*4)

// func mulAccOffsetInt8AVX512(acc []int32, w, x []int8, zp int32)
//
// DI acc, DX w, SI x, CX len(acc), AX index, R8 len rounded down to 16;
// Y8 zp in every word; K4 all lanes, K1 the tail's.
TEXT ·mulAccOffsetInt8AVX512(SB), NOSPLIT, $0-76
	MOVQ         acc_base+0(FP), DI
	MOVQ         acc_len+8(FP), CX
	MOVQ         w_base+24(FP), DX
	MOVQ         x_base+48(FP), SI
	MOVL         zp+72(FP), BX
	VPBROADCASTW BX, Y8
	KXNORW       K4, K4, K4
	MOVQ         CX, R8
	ANDQ         $-16, R8
	XORQ         AX, AX
	CMPQ         AX, R8
	JGE          matail

maloop:
	MA(K4)
	ADDQ $16, AX
	CMPQ AX, R8
	JLT  maloop

matail:
	SUBQ  AX, CX
	JZ    madone
	MOVL  $1, BX
	SHLL  CX, BX
	DECL  BX
	KMOVW BX, K1
	MA(K1)

madone:
	VZEROUPPER
	RET
