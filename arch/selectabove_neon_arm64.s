//go:build !purego

// ASIMD (NEON) SelectAboveF32 (see selectabove.go): sixteen comparisons
// per step (FCMGT or FCMGE against th, false for NaN) folded into one
// lane by ORR and UMAXV; only a step with a hit is scanned again one
// value at a time, as are the last len%16 values. The vector compares and
// UMAXV are WORDs checked by TestARM64Words.

#include "textflag.h"

// ANY_GT and ANY_GE leave in R8 a non-zero value when one of V0-V3
// compares above (x > th, x >= th) th in V31.
#define ANY_GT \
	WORD $0x6ebfe404 /* fcmgt v4.4s, v0.4s, v31.4s */ \
	WORD $0x6ebfe425 /* fcmgt v5.4s, v1.4s, v31.4s */ \
	WORD $0x6ebfe446 /* fcmgt v6.4s, v2.4s, v31.4s */ \
	WORD $0x6ebfe467 /* fcmgt v7.4s, v3.4s, v31.4s */ \
	ANY_FOLD
#define ANY_GE \
	WORD $0x6e3fe404 /* fcmge v4.4s, v0.4s, v31.4s */ \
	WORD $0x6e3fe425 /* fcmge v5.4s, v1.4s, v31.4s */ \
	WORD $0x6e3fe446 /* fcmge v6.4s, v2.4s, v31.4s */ \
	WORD $0x6e3fe467 /* fcmge v7.4s, v3.4s, v31.4s */ \
	ANY_FOLD
#define ANY_FOLD \
	VORR  V5.B16, V4.B16, V4.B16 \
	VORR  V7.B16, V6.B16, V6.B16 \
	VORR  V6.B16, V4.B16, V4.B16 \
	WORD  $0x6eb0a884 /* umaxv s4, v4.4s */ \
	FMOVS F4, R8

// SELECT(ANY, BSKIP): the function body for the vector test ANY and
// BSKIP, the branch after FCMPS th, x that skips a value that does not
// qualify (BLE for x > th, BLT for x >= th; both taken for NaN). R0 dst
// cursor, R1 len(dst), R2 x cursor of the steps, R3 len(x), R4 index i,
// R7 x cursor of the scan, R9 where the scan ends, R10 n, R11 end of the
// full steps; V31 (and F31) th.
#define SELECT(ANY, BSKIP) \
	MOVD  dst_base+0(FP), R0 \
	MOVD  dst_len+8(FP), R1 \
	MOVD  x_base+24(FP), R2 \
	MOVD  x_len+32(FP), R3 \
	MOVWU th+48(FP), R5 \
	VDUP  R5, V31.S4 \
	MOVD  ZR, R10 \
	MOVD  ZR, R4 \
	AND   $-16, R3, R11 \
loop: \
	CMP    R11, R4 \
	BGE    tail \
	MOVD   R2, R7 \
	VLD1.P 64(R2), [V0.S4, V1.S4, V2.S4, V3.S4] \
	ANY \
	ADD    $16, R4, R9 \
	CBNZ   R8, scan \
	MOVD   R9, R4 \
	B      loop \
tail: \
	CMP  R3, R4 \
	BGE  done \
	MOVD R2, R7 \
	MOVD R3, R9 \
scan: \
	FMOVS.P 4(R7), F0 \
	FCMPS   F31, F0 \
	BSKIP   skip \
	MOVW.P  R4, 4(R0) \
	ADD     $1, R10 \
	CMP     R1, R10 \
	BEQ     full \
skip: \
	ADD  $1, R4 \
	CMP  R9, R4 \
	BLT  scan \
	B    loop \
done: \
	MOVD R10, n+56(FP) \
	MOVD R3, next+64(FP) \
	RET \
full: \
	ADD  $1, R4 \
	MOVD R10, n+56(FP) \
	MOVD R4, next+64(FP) \
	RET

// func selectGTNEON(dst []int32, x []float32, th float32) (n, next int)
TEXT ·selectGTNEON(SB), NOSPLIT, $0-72
	SELECT(ANY_GT, BLE)

// func selectGENEON(dst []int32, x []float32, th float32) (n, next int)
TEXT ·selectGENEON(SB), NOSPLIT, $0-72
	SELECT(ANY_GE, BLT)
