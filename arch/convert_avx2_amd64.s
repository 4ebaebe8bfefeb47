//go:build !purego

// AVX2 Int8ToF32 / Uint8ToF32 (convert.go): 8 bytes per step sign- or
// zero-extended to dwords, the offset added in int32, converted and
// stored. The Go wrapper converts the last n%8 in Go.

#include "textflag.h"

// func int8ToF32AVX2Asm(dst *float32, src *byte, n int, offset int32, unsigned bool)
//
// n is a multiple of 8.
TEXT ·int8ToF32AVX2Asm(SB), NOSPLIT, $0-29
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVL         offset+24(FP), AX
	VMOVQ        AX, X15
	VPBROADCASTD X15, Y15
	MOVBLZX      unsigned+28(FP), AX
	TESTL        AX, AX
	JNZ          u8

s8:
	TESTQ     CX, CX
	JZ        done
	VPMOVSXBD (SI), Y0
	VPADDD    Y15, Y0, Y0
	VCVTDQ2PS Y0, Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $8, SI
	ADDQ      $32, DI
	SUBQ      $8, CX
	JMP       s8

u8:
	TESTQ     CX, CX
	JZ        done
	VPMOVZXBD (SI), Y0
	VPADDD    Y15, Y0, Y0
	VCVTDQ2PS Y0, Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $8, SI
	ADDQ      $32, DI
	SUBQ      $8, CX
	JMP       u8

done:
	VZEROUPPER
	RET
