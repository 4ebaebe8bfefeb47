//go:build !purego

// AVX-512 sigmoid and tanh: activation_avx2_amd64.s on sixteen lanes with
// every constant held in a register and an opmask (K1) tail.

#include "textflag.h"

// Byte offsets in ·actConsts (64 bytes per constant).
#define ONE 0
#define EXPMAX 64
#define EXPMIN 128
#define LOG2E 192
#define LN2HI 256
#define LN2LO 320
#define EP0 384
#define EP1 448
#define EP2 512
#define EP3 576
#define EP4 640
#define EP5 704
#define BIAS 768
#define SIGN 832
#define ABS 896
#define SMALL 960
#define TP0 1024
#define TP1 1088
#define TP2 1152
#define TP3 1216
#define TP4 1280
#define TWO 1344

// Constant registers (LOAD_CONSTS, plus LOAD_TANH_CONSTS for tanh): Z31 one, Z30 EXPMAX, Z29 EXPMIN, Z28 log2e,
// Z27 ln2hi, Z26 ln2lo, Z20-Z25 exp P0-P5, Z19 bias 127, Z18 sign bits,
// Z17 abs mask, Z16 SMALL, Z11-Z15 tanh P0-P4, Z10 two.
#define LOAD_CONSTS \
	LEAQ    ·actConsts(SB), R8 \
	VMOVUPS ONE(R8), Z31       \
	VMOVUPS EXPMAX(R8), Z30    \
	VMOVUPS EXPMIN(R8), Z29    \
	VMOVUPS LOG2E(R8), Z28     \
	VMOVUPS LN2HI(R8), Z27     \
	VMOVUPS LN2LO(R8), Z26     \
	VMOVUPS EP0(R8), Z20       \
	VMOVUPS EP1(R8), Z21       \
	VMOVUPS EP2(R8), Z22       \
	VMOVUPS EP3(R8), Z23       \
	VMOVUPS EP4(R8), Z24       \
	VMOVUPS EP5(R8), Z25       \
	VMOVUPS BIAS(R8), Z19      \
	VMOVUPS SIGN(R8), Z18

// LOAD_TANH_CONSTS adds what only tanh needs.
#define LOAD_TANH_CONSTS \
	VMOVUPS ABS(R8), Z17       \
	VMOVUPS SMALL(R8), Z16     \
	VMOVUPS TP0(R8), Z11       \
	VMOVUPS TP1(R8), Z12       \
	VMOVUPS TP2(R8), Z13       \
	VMOVUPS TP3(R8), Z14       \
	VMOVUPS TP4(R8), Z15       \
	VMOVUPS TWO(R8), Z10

// EXP(Z, N, NI, P): P = e^Z for a clamped Z (see the AVX2 file).
#define EXP(Z, N, NI, P) \
	VMULPS       Z28, Z, N   \
	VCVTPS2DQ    N, NI       \
	VCVTDQ2PS    NI, N       \
	VFNMADD231PS Z27, N, Z   \
	VFNMADD231PS Z26, N, Z   \
	VMOVAPS      Z20, P      \
	VFMADD213PS  Z21, Z, P   \
	VFMADD213PS  Z22, Z, P   \
	VFMADD213PS  Z23, Z, P   \
	VFMADD213PS  Z24, Z, P   \
	VFMADD213PS  Z25, Z, P   \
	VMULPS       Z, P, P     \
	VFMADD213PS  Z, Z, P     \
	VADDPS       Z31, P, P   \
	VPADDD       Z19, NI, NI \
	VPSLLD       $23, NI, NI \
	VMULPS       NI, P, P

#define SIGMOID(X) \
	VPXORD Z18, X, Z1   \
	VMINPS Z1, Z30, Z1  \
	VMAXPS Z1, Z29, Z1  \
	EXP(Z1, Z2, Z3, Z4) \
	VADDPS Z31, Z4, Z4  \
	VDIVPS Z4, Z31, X

#define TANH(X) \
	VPANDD      Z17, X, Z1  \
	VPANDD      Z18, X, Z6  \
	VMULPS      Z1, Z1, Z2  \
	VMOVAPS     Z11, Z3     \
	VFMADD213PS Z12, Z2, Z3 \
	VFMADD213PS Z13, Z2, Z3 \
	VFMADD213PS Z14, Z2, Z3 \
	VFMADD213PS Z15, Z2, Z3 \
	VMULPS      Z2, Z1, Z4  \
	VFMADD213PS Z1, Z3, Z4  \
	VADDPS      Z1, Z1, Z5  \
	VMINPS      Z5, Z30, Z5 \
	EXP(Z5, Z2, Z3, Z7)     \
	VADDPS      Z31, Z7, Z7 \
	VDIVPS      Z7, Z10, Z7 \
	VSUBPS      Z7, Z31, Z7 \
	VCMPPS      $1, Z16, Z1, K2 \
	VBLENDMPS   Z4, Z7, K2, X   \
	VPORD       Z6, X, X

// Loop over len(x) elements, sixteen at a time, then the masked tail. The
// caller has loaded DI dst, SI x, CX len(x). AX element index, R9 end of
// the full steps.
#define ACTIVATION_LOOP(OP) \
	MOVQ    CX, R9           \
	ANDQ    $-16, R9         \
	XORQ    AX, AX           \
loop:                        \
	CMPQ    AX, R9           \
	JGE     tail             \
	VMOVUPS (SI)(AX*4), Z0   \
	OP(Z0)                   \
	VMOVUPS Z0, (DI)(AX*4)   \
	ADDQ    $16, AX          \
	JMP     loop             \
tail:                        \
	ANDQ    $15, CX          \
	JZ      done             \
	MOVL    $1, BX           \
	SHLL    CX, BX           \
	DECL    BX               \
	KMOVW   BX, K1           \
	VMOVUPS.Z (SI)(AX*4), K1, Z0 \
	OP(Z0)                   \
	VMOVUPS Z0, K1, (DI)(AX*4) \
done:                        \
	VZEROUPPER               \
	RET

// func sigmoidAVX512(dst, x []float32)
TEXT ·sigmoidAVX512(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ x_len+32(FP), CX
	LOAD_CONSTS
	ACTIVATION_LOOP(SIGMOID)

// func tanhAVX512(dst, x []float32)
TEXT ·tanhAVX512(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ x_len+32(FP), CX
	LOAD_CONSTS
	LOAD_TANH_CONSTS
	ACTIVATION_LOOP(TANH)
