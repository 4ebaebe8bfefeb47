//go:build !purego && arm.7

// 32-bit ARM NEON Int8ToF32 / Uint8ToF32 (see convert.go), GOARM=7
// builds: bytes widened to int16 (VMOVL.S8 or .U8), then to int32 with
// the offset added in the same step (VADDW.S16: both kinds of byte are in
// int16 range), then VCVT.F32.S32 (round to nearest, as Go's
// float32(int32)). Every NEON instruction is a WORD, checked by
// TestARMWords against an external assembler.

#include "textflag.h"

// func int8ToF32NEONAsm(dst *float32, src *byte, n int, offset int32, unsigned bool)
//
// n a positive multiple of 8. R0 dst, R1 src, R2 steps left, R3 offset
// (Q15), R4 unsigned.
TEXT ·int8ToF32NEONAsm(SB), NOSPLIT, $0-17
	MOVW dst+0(FP), R0
	MOVW src+4(FP), R1
	MOVW n+8(FP), R2
	MOVW offset+12(FP), R3
	MOVBU unsigned+16(FP), R4
	WORD $0xeeae3b90 // vdup.32 q15, r3
	MOVW R2>>3, R2
	CMP $0, R4
	BNE uloop

sloop:
	WORD $0xf421070d // vld1.8 {d0}, [r1]!
	WORD $0xf2882a10 // vmovl.s8 q1, d0
	WORD $0xf29e4182 // vaddw.s16 q2, q15, d2
	WORD $0xf29e6183 // vaddw.s16 q3, q15, d3
	WORD $0xf3bb4644 // vcvt.f32.s32 q2, q2
	WORD $0xf3bb6646 // vcvt.f32.s32 q3, q3
	WORD $0xf400428d // vst1.32 {d4, d5, d6, d7}, [r0]!
	SUB.S $1, R2
	BNE sloop
	RET

uloop:
	WORD $0xf421070d // vld1.8 {d0}, [r1]!
	WORD $0xf3882a10 // vmovl.u8 q1, d0
	WORD $0xf29e4182 // vaddw.s16 q2, q15, d2
	WORD $0xf29e6183 // vaddw.s16 q3, q15, d3
	WORD $0xf3bb4644 // vcvt.f32.s32 q2, q2
	WORD $0xf3bb6646 // vcvt.f32.s32 q3, q3
	WORD $0xf400428d // vst1.32 {d4, d5, d6, d7}, [r0]!
	SUB.S $1, R2
	BNE uloop
	RET
