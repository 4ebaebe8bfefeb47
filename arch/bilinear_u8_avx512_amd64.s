//go:build !purego

// AVX-512 BilinearU8 (see bilinear.go): the AVX2 kernel's operations on
// sixteen channels per vector, the dwords narrowed to their low bytes by
// VPMOVDB (truncating, as the portable uint8 conversion). Lengths from
// sixteen on; the wrapper gives shorter ones to the AVX2 kernel (masked
// steps cost more than its 8- and 4-channel ones), so every access is
// within the slices.

#include "textflag.h"

DATA u8bilinearHalf512<>+0(SB)/4, $0x3f000000 // 0.5
GLOBL u8bilinearHalf512<>(SB), RODATA|NOPTR, $4

// BLEND16(off, acc, t): the sixteen channels at AX+off, stored; Z10-Z12,
// Z9 the weights, Z14 0.5, t scratch.
#define BLEND16(off, acc, t) \
	VPMOVZXBD  off(SI)(AX*1), acc  \
	VCVTDQ2PS  acc, acc            \
	VMULPS     Z10, acc, acc       \
	VPMOVZXBD  off(R8)(AX*1), t    \
	VCVTDQ2PS  t, t                \
	VMULPS     Z11, t, t           \
	VADDPS     t, acc, acc         \
	VPMOVZXBD  off(R9)(AX*1), t    \
	VCVTDQ2PS  t, t                \
	VMULPS     Z12, t, t           \
	VADDPS     t, acc, acc         \
	VPMOVZXBD  off(R10)(AX*1), t   \
	VCVTDQ2PS  t, t                \
	VMULPS     Z9, t, t            \
	VADDPS     t, acc, acc         \
	VADDPS     Z14, acc, acc       \
	VCVTTPS2DQ acc, acc            \
	VPMOVDB    acc, off(DI)(AX*1)

// func bilinearU8AVX512Asm(dst, p00, p01, p10, p11 []byte, w *[4]float32)
//
// For len >= 16: thirty-two channels per step (two independent chains),
// then sixteen, then the sixteen ending at len. DI dst, SI p00, R8 p01, R9 p10,
// R10 p11, CX len, AX index, R11 end of the 32-steps.
TEXT ·bilinearU8AVX512Asm(SB), NOSPLIT, $0-128
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         p00_base+24(FP), SI
	MOVQ         p01_base+48(FP), R8
	MOVQ         p10_base+72(FP), R9
	MOVQ         p11_base+96(FP), R10
	MOVQ         w+120(FP), DX
	VBROADCASTSS 0(DX), Z10
	VBROADCASTSS 4(DX), Z11
	VBROADCASTSS 8(DX), Z12
	VBROADCASTSS 12(DX), Z9
	VBROADCASTSS u8bilinearHalf512<>(SB), Z14
	XORQ         AX, AX
	MOVQ         CX, R11
	ANDQ         $-32, R11
	JZ           step16

loop32:
	BLEND16(0, Z0, Z1)
	BLEND16(16, Z2, Z3)
	ADDQ $32, AX
	CMPQ AX, R11
	JLT  loop32

step16:
	TESTQ $16, CX
	JZ    tail
	BLEND16(0, Z0, Z1)
	ADDQ  $16, AX

tail:
	// The last len%16 as the sixteen channels ending at len (dst does
	// not overlap the sources, so channels done twice get the same
	// bytes).
	ANDQ        $15, CX
	JZ          done
	ADDQ        CX, AX
	SUBQ        $16, AX
	BLEND16(0, Z0, Z1)

done:
	VZEROUPPER
	RET

DATA u8bilinearOne512<>+0(SB)/4, $0x3f800000 // 1.0
GLOBL u8bilinearOne512<>(SB), RODATA|NOPTR, $4

// func bilinearRowU8AVX512Asm(dst, row0, row1 *byte, off *int32, fx *float32, n, d int, fy float32)
//
// BilinearRowU8 for d >= 16: per column, the four weights as VSUBSS and
// VMULSS in the portable order, broadcast, then the channels as in
// bilinearU8AVX512 (thirty-two per step, then sixteen, then the sixteen
// ending at d). BX row0, DX row1, R12 the offset pairs, R13 fx, R14 the
// column, CX d, R11 d rounded down to 32; X15 1.0, X6 fy, X7 1 − fy.
TEXT ·bilinearRowU8AVX512Asm(SB), NOSPLIT, $0-60
	VBROADCASTSS u8bilinearHalf512<>(SB), Z14
	VMOVSS       u8bilinearOne512<>(SB), X15
	MOVQ         dst+0(FP), DI
	MOVQ         row0+8(FP), BX
	MOVQ         row1+16(FP), DX
	MOVQ         off+24(FP), R12
	MOVQ         fx+32(FP), R13
	MOVQ         d+48(FP), CX
	VMOVSS       fy+56(FP), X6
	VSUBSS       X6, X15, X7
	MOVQ         CX, R11
	ANDQ         $-32, R11
	XORQ         R14, R14

column:
	MOVLQSX      (R12)(R14*8), SI
	MOVLQSX      4(R12)(R14*8), R8
	LEAQ         (DX)(SI*1), R9
	LEAQ         (DX)(R8*1), R10
	ADDQ         BX, SI
	ADDQ         BX, R8
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
	JZ           rstep16

rloop32:
	BLEND16(0, Z0, Z1)
	BLEND16(16, Z2, Z3)
	ADDQ $32, AX
	CMPQ AX, R11
	JLT  rloop32

rstep16:
	TESTQ $16, CX
	JZ    rtail16
	BLEND16(0, Z0, Z1)
	ADDQ  $16, AX

rtail16:
	TESTQ $15, CX
	JZ    rnext
	LEAQ  -16(CX), AX
	BLEND16(0, Z0, Z1)

rnext:
	ADDQ CX, DI
	INCQ R14
	CMPQ R14, n+40(FP)
	JLT  column
	VZEROUPPER
	RET
