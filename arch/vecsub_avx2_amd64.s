//go:build !purego

// AVX2 VecSub (see vecsub.go): sixteen float32 differences per step
// with VSUBPS, a as the first source as in the scalar SUBSS Go compiles
// a[i] - b[i] to, so NaNs propagate alike.

#include "textflag.h"

// func vecSubAVX2Asm(dst, a, b *float32, n int)
TEXT ·vecSubAVX2Asm(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX

loop:
	CMPQ    AX, CX
	JGE     done
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VSUBPS  (DX)(AX*4), Y0, Y0
	VSUBPS  32(DX)(AX*4), Y1, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	ADDQ    $16, AX
	JMP     loop

done:
	VZEROUPPER
	RET
