//go:build !purego

// ASIMD (NEON) VecSub (see vecsub.go): eight float32 differences per
// step with FSUB (vector), which propagates NaNs as the scalar FSUB Go
// compiles a[i] - b[i] to. FSUB (vector) is a WORD checked by
// TestARM64Words.

#include "textflag.h"

// func vecSubNEONAsm(dst, a, b *float32, n int)
TEXT ·vecSubNEONAsm(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), R0
	MOVD a+8(FP), R1
	MOVD b+16(FP), R2
	MOVD n+24(FP), R3
	LSR  $3, R3, R3

loop:
	VLD1.P 32(R1), [V0.S4, V1.S4]
	VLD1.P 32(R2), [V2.S4, V3.S4]
	WORD   $0x4ea2d400 /* fsub v0.4s, v0.4s, v2.4s */
	WORD   $0x4ea3d421 /* fsub v1.4s, v1.4s, v3.4s */
	VST1.P [V0.S4, V1.S4], 32(R0)
	SUB    $1, R3
	CBNZ   R3, loop
	RET
