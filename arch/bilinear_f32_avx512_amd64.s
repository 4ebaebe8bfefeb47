//go:build !purego

// AVX-512 BilinearRowF32 (see bilinear.go): per column the four weights
// as VSUBSS and VMULSS in the portable order, broadcast, then the
// channels as bilinearF32Generic computes them (VMULPS, then VADDPS onto
// zero and the running sum, no FMA), sixteen per vector and the last
// depth%16 under a mask, so no access goes beyond a pixel.

#include "textflag.h"

DATA f32bilinearOne512<>+0(SB)/4, $0x3f800000 // 1.0
GLOBL f32bilinearOne512<>(SB), RODATA|NOPTR, $4

// BLENDF16(off, acc, t): the sixteen channels off bytes past AX,
// stored; Z10-Z12, Z9 the weights, Z13 zeros, t scratch.
#define BLENDF16(off, acc, t) \
	VMULPS  off(SI)(AX*4), Z10, t \
	VADDPS  t, Z13, acc           \
	VMULPS  off(R8)(AX*4), Z11, t \
	VADDPS  t, acc, acc           \
	VMULPS  off(R9)(AX*4), Z12, t \
	VADDPS  t, acc, acc           \
	VMULPS  off(R10)(AX*4), Z9, t \
	VADDPS  t, acc, acc           \
	VMOVUPS acc, off(DI)(AX*4)

// func bilinearRowF32AVX512Asm(dst, row0, row1 *float32, off *int32, fx *float32, n, d int, fy float32)
//
// For n >= 1 columns of d >= 1 channels: thirty-two channels per step
// (two independent chains), then sixteen, then the last d%16 under the
// mask K1 (loaded into Z20-Z23). BX row0, DX row1, R12 the offset pairs, R13 fx, R14 the
// column, CX d, R11 d rounded down to 32, SI/R8 row0 at the left/right
// pixel, R9/R10 row1 at them; X15 1.0, X6 fy, X7 1 − fy.
TEXT ·bilinearRowF32AVX512Asm(SB), NOSPLIT, $0-60
	VMOVSS  f32bilinearOne512<>(SB), X15
	MOVQ    dst+0(FP), DI
	MOVQ    row0+8(FP), BX
	MOVQ    row1+16(FP), DX
	MOVQ    off+24(FP), R12
	MOVQ    fx+32(FP), R13
	MOVQ    d+48(FP), CX
	VMOVSS  fy+56(FP), X6
	VSUBSS  X6, X15, X7
	VPXORD  Z13, Z13, Z13
	MOVQ    CX, R10
	ANDQ    $15, CX
	MOVL    $1, SI
	SHLL    CX, SI
	DECL    SI
	KMOVW   SI, K1
	MOVQ    R10, CX
	MOVQ    CX, R11
	ANDQ    $-32, R11
	XORQ    R14, R14

column:
	MOVLQSX      (R12)(R14*8), SI
	MOVLQSX      4(R12)(R14*8), R8
	LEAQ         (DX)(SI*4), R9
	LEAQ         (DX)(R8*4), R10
	LEAQ         (BX)(SI*4), SI
	LEAQ         (BX)(R8*4), R8
	VMOVSS       (R13)(R14*4), X4
	VSUBSS       X4, X15, X5
	VMULSS       X5, X7, X8
	VBROADCASTSS X8, Z10
	VMULSS       X4, X7, X8
	VBROADCASTSS X8, Z11
	VMULSS       X5, X6, X8
	VBROADCASTSS X8, Z12
	VMULSS       X4, X6, X8
	VBROADCASTSS X8, Z9
	XORQ         AX, AX
	TESTQ        R11, R11
	JZ           step16

loop32:
	BLENDF16(0, Z0, Z1)
	BLENDF16(64, Z2, Z3)
	ADDQ $32, AX
	CMPQ AX, R11
	JLT  loop32

step16:
	TESTQ $16, CX
	JZ    tail
	BLENDF16(0, Z0, Z1)
	ADDQ  $16, AX

tail:
	TESTQ     $15, CX
	JZ        next
	VMOVUPS.Z (SI)(AX*4), K1, Z20
	VMOVUPS.Z (R8)(AX*4), K1, Z21
	VMOVUPS.Z (R9)(AX*4), K1, Z22
	VMOVUPS.Z (R10)(AX*4), K1, Z23
	VMULPS    Z20, Z10, Z1
	VADDPS    Z1, Z13, Z0
	VMULPS    Z21, Z11, Z1
	VADDPS    Z1, Z0, Z0
	VMULPS    Z22, Z12, Z1
	VADDPS    Z1, Z0, Z0
	VMULPS    Z23, Z9, Z1
	VADDPS    Z1, Z0, Z0
	VMOVUPS   Z0, K1, (DI)(AX*4)

next:
	LEAQ (DI)(CX*4), DI
	INCQ R14
	CMPQ R14, n+40(FP)
	JLT  column
	VZEROUPPER
	RET
