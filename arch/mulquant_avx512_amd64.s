//go:build !purego

// AVX-512 quantised multiplication (see mulquant.go), sixteen lanes per
// step and an opmask step for the last n%16, bit-exact with
// mulquant_generic.go: the offset inputs multiplied with VPMULLD (the low
// 32 bits: Go's wrapping int32 product), TFLite's
// MultiplyByQuantizedMultiplier on the product, the output zero point and
// the clamp. The parameters come from the quantMulVec block (R8) that the
// AVX2 kernels read (mulquant_amd64.go); the clamp range lies within the
// output type, so the narrowing stores (VPMOVSDB, VPMOVUSDB) change
// nothing.
//
// MultiplyByQuantizedMultiplier, as in mbqm_avx2_amd64.h:
//
//	x = p << left                         VPSLLD (wraps)
//	h = (x·mult + 2^30) >> 31             VPMULDQ on the even lanes and on
//	                                      the odd lanes moved down; an even
//	                                      product shifted right by 31 and an
//	                                      odd one shifted left by 1 leave
//	                                      bits 31..62 in the lane's dword
//	r = (h >> right) + (h&mask > thr - (h<0 ? -1 : 0))
//	                                      the rounding divide, ties away
//	                                      from zero

#include "textflag.h"

// SETUP16: DI dst, SI a, DX b, CX n, R8 the parameter block, AX index 0,
// R9 n rounded down to 16; Z20 off1, Z21 off2, Z22 mult, Z23 mask, Z24
// thr, Z25 outOff, Z26 lo, Z27 hi, Z28 2^30 per qword, X29 left, X30
// right, Z31 ones, K2 the odd lanes.
#define SETUP16 \
	MOVQ         dst+0(FP), DI  \
	MOVQ         a+8(FP), SI    \
	MOVQ         b+16(FP), DX   \
	MOVQ         n+24(FP), CX   \
	MOVQ         v+32(FP), R8   \
	VPBROADCASTD 0(R8), Z20     \
	VPBROADCASTD 32(R8), Z21    \
	VPBROADCASTD 64(R8), Z22    \
	VPBROADCASTD 96(R8), Z23    \
	VPBROADCASTD 128(R8), Z24   \
	VPBROADCASTD 160(R8), Z25   \
	VPBROADCASTD 192(R8), Z26   \
	VPBROADCASTD 224(R8), Z27   \
	VPBROADCASTQ 256(R8), Z28   \
	VMOVQ        288(R8), X29   \
	VMOVQ        304(R8), X30   \
	MOVL         $1, AX         \
	VPBROADCASTD AX, Z31        \
	MOVL         $0xaaaa, AX    \
	KMOVW        AX, K2         \
	MOVQ         CX, R9         \
	ANDQ         $-16, R9       \
	XORQ         AX, AX

// PRODUCT16: Z1 = the clamped int32 products of the inputs Z0 (a) and Z5
// (b); the rounding carry is a merge-masked add of ones (K3). Clobbers
// Z0, Z2-Z5, K3.
#define PRODUCT16 \
	VPADDD    Z20, Z0, Z0     \
	VPADDD    Z21, Z5, Z5     \
	VPMULLD   Z5, Z0, Z0      \
	VPSLLD    X29, Z0, Z0     \
	VPMULDQ   Z22, Z0, Z1     \
	VPSRLQ    $32, Z0, Z2     \
	VPMULDQ   Z22, Z2, Z2     \
	VPADDQ    Z28, Z1, Z1     \
	VPADDQ    Z28, Z2, Z2     \
	VPSRLQ    $31, Z1, Z1     \
	VPSLLQ    $1, Z2, Z2      \
	VPBLENDMD Z2, Z1, K2, Z1  \
	VPANDD    Z23, Z1, Z3     \
	VPSRAD    $31, Z1, Z4     \
	VPSUBD    Z4, Z24, Z4     \
	VPCMPGTD  Z4, Z3, K3      \
	VPSRAD    X30, Z1, Z1     \
	VPADDD    Z31, Z1, K3, Z1 \
	VPADDD    Z25, Z1, Z1     \
	VPMAXSD   Z26, Z1, Z1     \
	VPMINSD   Z27, Z1, Z1

// TAILMASK16: K1 = 2^CX - 1 (CX < 16). Clobbers BX.
#define TAILMASK16 \
	MOVL  $1, BX  \
	SHLL  CX, BX  \
	DECL  BX      \
	KMOVW BX, K1

// func mulQuantInt8AVX512Asm(dst, a, b *int8, n int, v *quantMulVec)
TEXT ·mulQuantInt8AVX512Asm(SB), NOSPLIT, $0-40
	SETUP16

loop:
	CMPQ      AX, R9
	JGE       tail
	VPMOVSXBD (SI)(AX*1), Z0
	VPMOVSXBD (DX)(AX*1), Z5
	PRODUCT16
	VPMOVSDB  Z1, X1
	VMOVDQU   X1, (DI)(AX*1)
	ADDQ      $16, AX
	JMP       loop

tail:
	SUBQ        AX, CX
	JZ          done
	TAILMASK16
	VPMOVSXBD.Z (SI)(AX*1), K1, Z0
	VPMOVSXBD.Z (DX)(AX*1), K1, Z5
	PRODUCT16
	VPMOVSDB    Z1, K1, (DI)(AX*1)

done:
	VZEROUPPER
	RET

// func mulQuantUint8AVX512Asm(dst, a, b *uint8, n int, v *quantMulVec)
TEXT ·mulQuantUint8AVX512Asm(SB), NOSPLIT, $0-40
	SETUP16

loop:
	CMPQ      AX, R9
	JGE       tail
	VPMOVZXBD (SI)(AX*1), Z0
	VPMOVZXBD (DX)(AX*1), Z5
	PRODUCT16
	VPMOVUSDB Z1, X1
	VMOVDQU   X1, (DI)(AX*1)
	ADDQ      $16, AX
	JMP       loop

tail:
	SUBQ        AX, CX
	JZ          done
	TAILMASK16
	VPMOVZXBD.Z (SI)(AX*1), K1, Z0
	VPMOVZXBD.Z (DX)(AX*1), K1, Z5
	PRODUCT16
	VPMOVUSDB   Z1, K1, (DI)(AX*1)

done:
	VZEROUPPER
	RET
