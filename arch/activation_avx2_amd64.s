//go:build !purego

// AVX2 + FMA3 sigmoid and tanh: the formulas of activation_generic.go on
// eight lanes, constants from ·actConsts (activation_amd64.go), the last
// len%8 elements through a VMASKMOVPS load and store.

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

// EXP(Z, N, NI, P) sets P = e^Z for Z already clamped to [EXPMIN, EXPMAX]
// (a NaN stays NaN). Z is overwritten with the reduced argument r, N and
// NI are scratch (n as float and int). R8 points at ·actConsts, Y15 = 1.
#define EXP(Z, N, NI, P) \
	VMULPS       LOG2E(R8), Z, N \
	VCVTPS2DQ    N, NI           \
	VCVTDQ2PS    NI, N           \
	VFNMADD231PS LN2HI(R8), N, Z \
	VFNMADD231PS LN2LO(R8), N, Z \
	VMOVUPS      EP0(R8), P      \
	VFMADD213PS  EP1(R8), Z, P   \
	VFMADD213PS  EP2(R8), Z, P   \
	VFMADD213PS  EP3(R8), Z, P   \
	VFMADD213PS  EP4(R8), Z, P   \
	VFMADD213PS  EP5(R8), Z, P   \
	VMULPS       Z, P, P         \
	VFMADD213PS  Z, Z, P         \
	VADDPS       Y15, P, P       \
	VPADDD       BIAS(R8), NI, NI \
	VPSLLD       $23, NI, NI     \
	VMULPS       NI, P, P

// SIGMOID(X) replaces X by 1/(1+e^-X). Scratch Y1-Y4; Y12 sign bits,
// Y13 EXPMIN, Y14 EXPMAX, Y15 one. VMINPS/VMAXPS return their first Go
// operand when either is NaN, so the argument goes first to keep NaN.
#define SIGMOID(X) \
	VXORPS Y12, X, Y1  \
	VMINPS Y1, Y14, Y1 \
	VMAXPS Y1, Y13, Y1 \
	EXP(Y1, Y2, Y3, Y4) \
	VADDPS Y15, Y4, Y4 \
	VDIVPS Y4, Y15, X

// TANH(X) replaces X by tanh(X): on a = |X|, the odd polynomial below
// SMALL and 1 - 2/(e^2a + 1) from there on, blended, then X's sign bit
// ORed back. Scratch Y1-Y7.
#define TANH(X) \
	VANDPS       ABS(R8), X, Y1  \
	VANDPS       Y12, X, Y6      \
	VMULPS       Y1, Y1, Y2      \
	VMOVUPS      TP0(R8), Y3     \
	VFMADD213PS  TP1(R8), Y2, Y3 \
	VFMADD213PS  TP2(R8), Y2, Y3 \
	VFMADD213PS  TP3(R8), Y2, Y3 \
	VFMADD213PS  TP4(R8), Y2, Y3 \
	VMULPS       Y2, Y1, Y4      \
	VFMADD213PS  Y1, Y3, Y4      \
	VADDPS       Y1, Y1, Y5      \
	VMINPS       Y5, Y14, Y5     \
	EXP(Y5, Y2, Y3, Y7)          \
	VADDPS       Y15, Y7, Y7     \
	VMOVUPS      TWO(R8), Y2     \
	VDIVPS       Y7, Y2, Y7      \
	VSUBPS       Y7, Y15, Y7     \
	VCMPPS       $1, SMALL(R8), Y1, Y2 \
	VBLENDVPS    Y2, Y4, Y7, X   \
	VORPS        Y6, X, X

// Loop over len(x) elements, eight at a time, then the masked tail. The
// caller has loaded DI dst, SI x, CX len(x). AX element index, R9 end of
// the full steps, Y11 tail mask.
#define ACTIVATION_LOOP(OP) \
	LEAQ    ·actConsts(SB), R8  \
	VMOVUPS SIGN(R8), Y12       \
	VMOVUPS EXPMIN(R8), Y13     \
	VMOVUPS EXPMAX(R8), Y14     \
	VMOVUPS ONE(R8), Y15        \
	MOVQ    CX, R9              \
	ANDQ    $-8, R9             \
	XORQ    AX, AX              \
loop:                           \
	CMPQ    AX, R9              \
	JGE     tail                \
	VMOVUPS (SI)(AX*4), Y0      \
	OP(Y0)                      \
	VMOVUPS Y0, (DI)(AX*4)      \
	ADDQ    $8, AX              \
	JMP     loop                \
tail:                           \
	MOVQ    CX, BX              \
	ANDQ    $7, BX              \
	JZ      done                \
	MOVQ    $8, R10             \
	SUBQ    BX, R10             \
	LEAQ    ·tailMask32(SB), BX \
	VMOVDQU (BX)(R10*4), Y11    \
	VMASKMOVPS (SI)(AX*4), Y11, Y0 \
	OP(Y0)                      \
	VMASKMOVPS Y0, Y11, (DI)(AX*4) \
done:                           \
	VZEROUPPER                  \
	RET

// func sigmoidAVX2(dst, x []float32)
TEXT ·sigmoidAVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ x_len+32(FP), CX
	ACTIVATION_LOOP(SIGMOID)

// func tanhAVX2(dst, x []float32)
TEXT ·tanhAVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ x_len+32(FP), CX
	ACTIVATION_LOOP(TANH)
