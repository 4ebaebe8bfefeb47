//go:build !purego

// ASIMD (NEON) VecScalarF32 (see vecscalar.go): one vector FADD, FMUL or
// FSUB per four values against y broadcast into V31, which rounds each
// lane once as Go's float32 arithmetic does (FPCR under Go has neither
// flush-to-zero nor default-NaN set, so subnormals and NaN operands give
// the scalar instructions' bits). Sixteen values per step, then four,
// then one at a time through S registers (a scalar load clears the other
// lanes, whose results are not stored), so no access goes beyond a or
// dst. The vector FP instructions are WORDs checked by TestARM64Words.

#include "textflag.h"

// func vecScalarF32NEON(dst, a []float32, y float32, op int)
//
// R0 dst cursor, R1 a cursor, R2 length, R5 step counter.
TEXT ·vecScalarF32NEON(SB), NOSPLIT, $0-64
	MOVD  dst_base+0(FP), R0
	MOVD  dst_len+8(FP), R2
	MOVD  a_base+24(FP), R1
	MOVWU y+48(FP), R3
	MOVD  op+56(FP), R4
	VDUP  R3, V31.S4
	CMP   $1, R4
	BEQ   mul
	CMP   $2, R4
	BEQ   sub
	CMP   $3, R4
	BEQ   rsub

add:
	LSR  $4, R2, R5
	CBZ  R5, add4

add16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4e3fd400 // fadd v0.4s, v0.4s, v31.4s
	WORD $0x4e3fd421 // fadd v1.4s, v1.4s, v31.4s
	WORD $0x4e3fd442 // fadd v2.4s, v2.4s, v31.4s
	WORD $0x4e3fd463 // fadd v3.4s, v3.4s, v31.4s
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB    $1, R5
	CBNZ   R5, add16

add4:
	UBFX $2, R2, $2, R5
	CBZ  R5, add1

add4loop:
	VLD1.P 16(R1), [V0.S4]
	WORD $0x4e3fd400 // fadd v0.4s, v0.4s, v31.4s
	VST1.P [V0.S4], 16(R0)
	SUB    $1, R5
	CBNZ   R5, add4loop

add1:
	AND $3, R2, R5
	CBZ R5, done

add1loop:
	FMOVS.P 4(R1), F0
	WORD $0x4e3fd400 // fadd v0.4s, v0.4s, v31.4s
	FMOVS.P F0, 4(R0)
	SUB     $1, R5
	CBNZ    R5, add1loop
	RET

mul:
	LSR  $4, R2, R5
	CBZ  R5, mul4

mul16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x6e3fdc00 // fmul v0.4s, v0.4s, v31.4s
	WORD $0x6e3fdc21 // fmul v1.4s, v1.4s, v31.4s
	WORD $0x6e3fdc42 // fmul v2.4s, v2.4s, v31.4s
	WORD $0x6e3fdc63 // fmul v3.4s, v3.4s, v31.4s
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB    $1, R5
	CBNZ   R5, mul16

mul4:
	UBFX $2, R2, $2, R5
	CBZ  R5, mul1

mul4loop:
	VLD1.P 16(R1), [V0.S4]
	WORD $0x6e3fdc00 // fmul v0.4s, v0.4s, v31.4s
	VST1.P [V0.S4], 16(R0)
	SUB    $1, R5
	CBNZ   R5, mul4loop

mul1:
	AND $3, R2, R5
	CBZ R5, done

mul1loop:
	FMOVS.P 4(R1), F0
	WORD $0x6e3fdc00 // fmul v0.4s, v0.4s, v31.4s
	FMOVS.P F0, 4(R0)
	SUB     $1, R5
	CBNZ    R5, mul1loop
	RET

sub:
	LSR  $4, R2, R5
	CBZ  R5, sub4

sub16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4ebfd400 // fsub v0.4s, v0.4s, v31.4s
	WORD $0x4ebfd421 // fsub v1.4s, v1.4s, v31.4s
	WORD $0x4ebfd442 // fsub v2.4s, v2.4s, v31.4s
	WORD $0x4ebfd463 // fsub v3.4s, v3.4s, v31.4s
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB    $1, R5
	CBNZ   R5, sub16

sub4:
	UBFX $2, R2, $2, R5
	CBZ  R5, sub1

sub4loop:
	VLD1.P 16(R1), [V0.S4]
	WORD $0x4ebfd400 // fsub v0.4s, v0.4s, v31.4s
	VST1.P [V0.S4], 16(R0)
	SUB    $1, R5
	CBNZ   R5, sub4loop

sub1:
	AND $3, R2, R5
	CBZ R5, done

sub1loop:
	FMOVS.P 4(R1), F0
	WORD $0x4ebfd400 // fsub v0.4s, v0.4s, v31.4s
	FMOVS.P F0, 4(R0)
	SUB     $1, R5
	CBNZ    R5, sub1loop
	RET

rsub:
	LSR  $4, R2, R5
	CBZ  R5, rsub4

rsub16:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	WORD $0x4ea0d7e0 // fsub v0.4s, v31.4s, v0.4s
	WORD $0x4ea1d7e1 // fsub v1.4s, v31.4s, v1.4s
	WORD $0x4ea2d7e2 // fsub v2.4s, v31.4s, v2.4s
	WORD $0x4ea3d7e3 // fsub v3.4s, v31.4s, v3.4s
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB    $1, R5
	CBNZ   R5, rsub16

rsub4:
	UBFX $2, R2, $2, R5
	CBZ  R5, rsub1

rsub4loop:
	VLD1.P 16(R1), [V0.S4]
	WORD $0x4ea0d7e0 // fsub v0.4s, v31.4s, v0.4s
	VST1.P [V0.S4], 16(R0)
	SUB    $1, R5
	CBNZ   R5, rsub4loop

rsub1:
	AND $3, R2, R5
	CBZ R5, done

rsub1loop:
	FMOVS.P 4(R1), F0
	WORD $0x4ea0d7e0 // fsub v0.4s, v31.4s, v0.4s
	FMOVS.P F0, 4(R0)
	SUB     $1, R5
	CBNZ    R5, rsub1loop
	RET

done:
	RET
