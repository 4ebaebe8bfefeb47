//go:build !purego

// AVX-512 SelectAboveF32 (see selectabove.go): sixteen comparisons per
// step into an opmask; only steps with a hit leave the fast loop, and
// their set bits are written out lowest first.

#include "textflag.h"

// SELECT(PRED): the whole function body for the comparison th PRED x
// (_LT_OQ = 0x11 for x > th, _LE_OQ = 0x12 for x >= th; both false for
// NaN). DI dst, R8 len(dst), SI x, CX len(x), DX n, AX chunk start, R9
// end of the full chunks, BX hit bits, R10 bit index, R11 element index,
// R12 scratch; Z15 th, K1 hits, K2 tail mask.
#define SELECT(PRED) \
	MOVQ         dst_base+0(FP), DI      \
	MOVQ         dst_len+8(FP), R8       \
	MOVQ         x_base+24(FP), SI       \
	MOVQ         x_len+32(FP), CX        \
	VBROADCASTSS th+48(FP), Z15          \
	XORQ         DX, DX                  \
	XORQ         AX, AX                  \
	MOVQ         CX, R9                  \
	ANDQ         $-16, R9                \
loop:                                    \
	CMPQ         AX, R9                  \
	JGE          tail                    \
	VCMPPS       $PRED, (SI)(AX*4), Z15, K1 \
	KMOVW        K1, BX                  \
	TESTL        BX, BX                  \
	JNZ          hits                    \
step:                                    \
	ADDQ         $16, AX                 \
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
	MOVQ         CX, R12                 \
	SUBQ         AX, R12                 \
	JZ           done                    \
	MOVQ         CX, R9                  \
	MOVQ         R12, CX                 \
	MOVL         $1, BX                  \
	SHLL         CX, BX                  \
	DECL         BX                      \
	MOVQ         R9, CX                  \
	KMOVW        BX, K2                  \
	VMOVUPS.Z    (SI)(AX*4), K2, Z0      \
	VCMPPS       $PRED, Z0, Z15, K1      \
	KANDW        K2, K1, K1              \
	KMOVW        K1, BX                  \
	TESTL        BX, BX                  \
	JZ           done                    \
thits:                                   \
	BSFL         BX, R10                 \
	LEAQ         (AX)(R10*1), R11        \
	MOVL         R11, (DI)(DX*4)         \
	INCQ         DX                      \
	CMPQ         DX, R8                  \
	JEQ          full                    \
	LEAL         -1(BX), R12             \
	ANDL         R12, BX                 \
	JNZ          thits                   \
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

// func selectGTAVX512(dst []int32, x []float32, th float32) (n, next int)
TEXT ·selectGTAVX512(SB), NOSPLIT, $0-72
	SELECT(0x11)

// func selectGEAVX512(dst []int32, x []float32, th float32) (n, next int)
TEXT ·selectGEAVX512(SB), NOSPLIT, $0-72
	SELECT(0x12)
