//go:build !purego

// AVX2 SelectAboveF32 (see selectabove.go): eight comparisons per step
// into a VMOVMSKPS bit mask; only steps with a hit leave the fast loop;
// the last len%8 values are compared one at a time.

#include "textflag.h"

// SELECT(PRED, JTAKE): the function body for the comparison th PRED x
// (0x11 LT_OQ: x > th, 0x12 LE_OQ: x >= th) and JTAKE, the jump after
// UCOMISS th, x that the scalar tail takes when x qualifies (JHI: x > th;
// JCC: x >= th; neither for NaN). DI dst, R8 len(dst), SI x, CX len(x),
// DX n, AX chunk start or tail index, R9 end of the full chunks, BX hit
// bits, R10 bit index, R11 element index, R12 scratch; Y15/X15 th.
#define SELECT(PRED, JTAKE) \
	MOVQ         dst_base+0(FP), DI      \
	MOVQ         dst_len+8(FP), R8       \
	MOVQ         x_base+24(FP), SI       \
	MOVQ         x_len+32(FP), CX        \
	VBROADCASTSS th+48(FP), Y15          \
	XORQ         DX, DX                  \
	XORQ         AX, AX                  \
	MOVQ         CX, R9                  \
	ANDQ         $-8, R9                 \
loop:                                    \
	CMPQ         AX, R9                  \
	JGE          tail                    \
	VCMPPS       $PRED, (SI)(AX*4), Y15, Y0 \
	VMOVMSKPS    Y0, BX                  \
	TESTL        BX, BX                  \
	JNZ          hits                    \
step:                                    \
	ADDQ         $8, AX                  \
	JMP          loop                    \
hits:                                    \
	BSFL         BX, R10                 \
	LEAQ         (AX)(R10*1), R11        \
	MOVL         R11, (DI)(DX*4)         \
	INCQ         DX                      \
	CMPQ         DX, R8                  \
	JEQ          full                    \
	LEAL         -1(BX), R12             \
	ANDL         R12, BX                 \
	JNZ          hits                    \
	JMP          step                    \
tail:                                    \
	CMPQ         AX, CX                  \
	JGE          done                    \
	VMOVSS       (SI)(AX*4), X0          \
	VUCOMISS     X15, X0                 \
	JTAKE        take                    \
	INCQ         AX                      \
	JMP          tail                    \
take:                                    \
	MOVQ         AX, R11                 \
	MOVL         R11, (DI)(DX*4)         \
	INCQ         DX                      \
	CMPQ         DX, R8                  \
	JEQ          full                    \
	INCQ         AX                      \
	JMP          tail                    \
done:                                    \
	MOVQ         DX, n+56(FP)            \
	MOVQ         CX, next+64(FP)         \
	VZEROUPPER                           \
	RET                                  \
full:                                    \
	INCQ         R11                     \
	MOVQ         DX, n+56(FP)            \
	MOVQ         R11, next+64(FP)        \
	VZEROUPPER                           \
	RET

// func selectGTAVX2(dst []int32, x []float32, th float32) (n, next int)
TEXT ·selectGTAVX2(SB), NOSPLIT, $0-72
	SELECT(0x11, JHI)

// func selectGEAVX2(dst []int32, x []float32, th float32) (n, next int)
TEXT ·selectGEAVX2(SB), NOSPLIT, $0-72
	SELECT(0x12, JCC)
