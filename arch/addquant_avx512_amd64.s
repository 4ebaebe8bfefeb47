//go:build !purego

// AVX-512 quantised addition (see addquant.go), sixteen lanes per step
// and an opmask step for the last n%16, bit-exact with
// addquant_generic.go and with the AVX2 kernels, whose parameter block
// (quantAddVec, R8) it reads: each input offset and rescaled, the second
// negated for SUB ((x XOR s) - s with s = -1: -MinInt32 wraps as in Go),
// the sum rescaled, offset by the output zero point and clamped. Each
// rescaling is MultiplyByQuantizedMultiplier as in mulquant_avx512_amd64.s
// (MBQM16), ties away from zero; the clamp range lies within the output
// type, so the narrowing stores change nothing.

#include "textflag.h"

// MBQM16: Z1 = MBQM(Z0 << left) on sixteen lanes with the stage's
// multiplier, rounding mask and threshold rows M, MASK, THR and shift
// counts LEFT, RIGHT; Z21 2^30 per qword, Z31 ones, K2 the odd lanes.
// Clobbers Z0, Z2-Z4, K3.
#define MBQM16(M, MASK, THR, LEFT, RIGHT) \
	VPSLLD    LEFT, Z0, Z0    \
	VPMULDQ   M, Z0, Z1       \
	VPSRLQ    $32, Z0, Z2     \
	VPMULDQ   M, Z2, Z2       \
	VPADDQ    Z21, Z1, Z1     \
	VPADDQ    Z21, Z2, Z2     \
	VPSRLQ    $31, Z1, Z1     \
	VPSLLQ    $1, Z2, Z2      \
	VPBLENDMD Z2, Z1, K2, Z1  \
	VPANDD    MASK, Z1, Z3    \
	VPSRAD    $31, Z1, Z4     \
	VPSUBD    Z4, THR, Z4     \
	VPCMPGTD  Z4, Z3, K3      \
	VPSRAD    RIGHT, Z1, Z1   \
	VPADDD    Z31, Z1, K3, Z1

// SUM16: Z1 = the clamped int32 sums (or differences) of the inputs Z0
// (a) and Z6 (b). Clobbers Z0, Z2-Z6, K3.
#define SUM16 \
	VPADDD    Z16, Z0, Z0                   \
	MBQM16(Z22, Z23, Z24, X25, X26)         \
	VMOVDQA32 Z1, Z5                        \
	VPADDD    Z17, Z6, Z0                   \
	MBQM16(Z27, Z28, Z29, X14, X15)         \
	VPXORD    Z8, Z1, Z1                    \
	VPSUBD    Z8, Z1, Z1                    \
	VPADDD    Z5, Z1, Z0                    \
	MBQM16(Z9, Z10, Z11, X12, X13)          \
	VPADDD    Z18, Z1, Z1                   \
	VPMAXSD   Z19, Z1, Z1                   \
	VPMINSD   Z20, Z1, Z1

// SETUP16: DI dst, SI a, DX b, CX n, R8 the parameter block, AX index 0,
// R9 n rounded down to 16; the rows broadcast (quantAddVec offsets): Z16
// off1, Z17 off2, Z18 outOff, Z19 lo, Z20 hi, Z21 round, Z22-Z24 and
// X25-X26 stage 1, Z27-Z29 and X14-X15 stage 2, Z9-Z11 and X12-X13 the
// output stage, Z8 0 (ADD) or -1 (SUB), Z31 ones, K2 the odd lanes.
#define SETUP16 \
	MOVQ         dst+0(FP), DI  \
	MOVQ         a+8(FP), SI    \
	MOVQ         b+16(FP), DX   \
	MOVQ         n+24(FP), CX   \
	MOVQ         v+32(FP), R8   \
	VPBROADCASTD 0(R8), Z16     \
	VPBROADCASTD 32(R8), Z17    \
	VPBROADCASTD 64(R8), Z22    \
	VPBROADCASTD 96(R8), Z23    \
	VPBROADCASTD 128(R8), Z24   \
	VPBROADCASTD 160(R8), Z27   \
	VPBROADCASTD 192(R8), Z28   \
	VPBROADCASTD 224(R8), Z29   \
	VPBROADCASTD 256(R8), Z9    \
	VPBROADCASTD 288(R8), Z10   \
	VPBROADCASTD 320(R8), Z11   \
	VPBROADCASTD 352(R8), Z18   \
	VPBROADCASTD 384(R8), Z19   \
	VPBROADCASTD 416(R8), Z20   \
	VPBROADCASTQ 448(R8), Z21   \
	VMOVQ        480(R8), X25   \
	VMOVQ        496(R8), X26   \
	VMOVQ        512(R8), X14   \
	VMOVQ        528(R8), X15   \
	VMOVQ        544(R8), X12   \
	VMOVQ        560(R8), X13   \
	VPBROADCASTD 576(R8), Z8    \
	VPSRAD       $1, Z8, Z8     \
	MOVL         $1, AX         \
	VPBROADCASTD AX, Z31        \
	MOVL         $0xaaaa, AX    \
	KMOVW        AX, K2         \
	MOVQ         CX, R9         \
	ANDQ         $-16, R9       \
	XORQ         AX, AX

// TAILMASK16: K1 = 2^CX - 1 (CX < 16). Clobbers BX.
#define TAILMASK16 \
	MOVL  $1, BX  \
	SHLL  CX, BX  \
	DECL  BX      \
	KMOVW BX, K1

// func addQuantInt8AVX512Asm(dst, a, b *int8, n int, v *quantAddVec)
TEXT ·addQuantInt8AVX512Asm(SB), NOSPLIT, $0-40
	SETUP16

loop:
	CMPQ      AX, R9
	JGE       tail
	VPMOVSXBD (SI)(AX*1), Z0
	VPMOVSXBD (DX)(AX*1), Z6
	SUM16
	VPMOVSDB  Z1, (DI)(AX*1)
	ADDQ      $16, AX
	JMP       loop

tail:
	SUBQ        AX, CX
	JZ          done
	TAILMASK16
	VPMOVSXBD.Z (SI)(AX*1), K1, Z0
	VPMOVSXBD.Z (DX)(AX*1), K1, Z6
	SUM16
	VPMOVSDB    Z1, K1, (DI)(AX*1)

done:
	VZEROUPPER
	RET

// func addQuantUint8AVX512Asm(dst, a, b *uint8, n int, v *quantAddVec)
TEXT ·addQuantUint8AVX512Asm(SB), NOSPLIT, $0-40
	SETUP16

loop:
	CMPQ      AX, R9
	JGE       tail
	VPMOVZXBD (SI)(AX*1), Z0
	VPMOVZXBD (DX)(AX*1), Z6
	SUM16
	VPMOVUSDB Z1, (DI)(AX*1)
	ADDQ      $16, AX
	JMP       loop

tail:
	SUBQ        AX, CX
	JZ          done
	TAILMASK16
	VPMOVZXBD.Z (SI)(AX*1), K1, Z0
	VPMOVZXBD.Z (DX)(AX*1), K1, Z6
	SUM16
	VPMOVUSDB   Z1, K1, (DI)(AX*1)

done:
	VZEROUPPER
	RET
