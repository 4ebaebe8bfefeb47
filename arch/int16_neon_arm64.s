//go:build !purego

// ASIMD (NEON) DotRowsInt16 (see int16.go). SMLAL/SMLAL2 multiply int16
// lanes exactly into int32 lanes and add modulo 2^32, as the portable
// sum does; ADDV folds the lanes (also modulo 2^32). They have no Go
// mnemonics: WORDs checked by TestARM64Words.

#include "textflag.h"

// func dotRowsInt16NEON(dst []int32, a, b []int16, rows, cols int)
//
// One row at a time (the rows are contiguous, so the cursors simply run
// on): eight columns per step into V16 (low halves) and V17 (high
// halves), then four into V16, then the last cols%4 one at a time in R7;
// no load reaches past the end of a row. R0 dst, R1 a, R2 b, R3 rows
// left, R4 cols, R5 step counter.
TEXT ·dotRowsInt16NEON(SB), NOSPLIT, $0-88
	MOVD dst_base+0(FP), R0
	MOVD a_base+24(FP), R1
	MOVD b_base+48(FP), R2
	MOVD rows+72(FP), R3
	MOVD cols+80(FP), R4

row:
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	MOVW ZR, R7
	LSR  $3, R4, R5
	CBZ  R5, c4

loop8:
	VLD1.P 16(R1), [V0.H8]
	VLD1.P 16(R2), [V1.H8]
	WORD   $0x0e618010 // smlal v16.4s, v0.4h, v1.4h
	WORD   $0x4e618011 // smlal2 v17.4s, v0.8h, v1.8h
	SUB    $1, R5
	CBNZ   R5, loop8

c4:
	TBZ    $2, R4, c1
	VLD1.P 8(R1), [V0.H4]
	VLD1.P 8(R2), [V1.H4]
	WORD   $0x0e618010 // smlal v16.4s, v0.4h, v1.4h

c1:
	AND $3, R4, R5
	CBZ R5, reduce

loop1:
	MOVH.P 2(R1), R8
	MOVH.P 2(R2), R9
	MADDW  R8, R7, R9, R7
	SUB    $1, R5
	CBNZ   R5, loop1

reduce:
	VADD   V17.S4, V16.S4, V16.S4
	WORD   $0x4eb1ba10 // addv s16, v16.4s
	FMOVS  F16, R8
	ADDW   R8, R7, R7
	MOVW.P R7, 4(R0)
	SUB    $1, R3
	CBNZ   R3, row
	RET
