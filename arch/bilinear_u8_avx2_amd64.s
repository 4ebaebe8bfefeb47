//go:build !purego

// AVX2 BilinearU8 (see bilinear.go): the bytes zero-extended to dwords
// (VPMOVZXBD) and converted (VCVTDQ2PS, exact), then VMULPS and VADDPS in
// the portable code's order, + 0.5, VCVTTPS2DQ (CVTTSS2SI's truncation
// lane by lane), the low byte of each dword (VPAND 0xff, after which the
// saturating packs are exact). No FMA. Every load and store is of exactly
// the bytes of the channels it computes (VPMOVZXBD from m64 or m32, or
// one byte through a general register), so nothing beyond the slices is
// touched.

#include "textflag.h"

DATA u8bilinearHalf<>+0(SB)/4, $0x3f000000 // 0.5
DATA u8bilinearMask<>+0(SB)/4, $0x000000ff
GLOBL u8bilinearHalf<>(SB), RODATA|NOPTR, $4
GLOBL u8bilinearMask<>(SB), RODATA|NOPTR, $4

// BLEND8(off, acc, t): acc = the eight dwords (0-255 when in range) of
// the channels at AX+off; Y10-Y12, Y9 the weights, Y14 0.5, Y13 the
// byte mask, t scratch.
#define BLEND8(off, acc, t) \
	VPMOVZXBD  off(SI)(AX*1), acc \
	VCVTDQ2PS  acc, acc           \
	VMULPS     Y10, acc, acc      \
	VPMOVZXBD  off(R8)(AX*1), t   \
	VCVTDQ2PS  t, t               \
	VMULPS     Y11, t, t          \
	VADDPS     t, acc, acc        \
	VPMOVZXBD  off(R9)(AX*1), t   \
	VCVTDQ2PS  t, t               \
	VMULPS     Y12, t, t          \
	VADDPS     t, acc, acc        \
	VPMOVZXBD  off(R10)(AX*1), t  \
	VCVTDQ2PS  t, t               \
	VMULPS     Y9, t, t           \
	VADDPS     t, acc, acc        \
	VADDPS     Y14, acc, acc      \
	VCVTTPS2DQ acc, acc           \
	VPAND      Y13, acc, acc

// STORE8: the eight dwords of Y0 as bytes at AX (X1 scratch).
#define STORE8 \
	VEXTRACTI128 $1, Y0, X1     \
	VPACKUSDW    X1, X0, X0     \
	VPACKUSWB    X0, X0, X0     \
	VMOVQ        X0, (DI)(AX*1)

// BLEND4(off): X0 = the four dwords of the channels at AX+off (m32
// loads), X1 scratch.
#define BLEND4(off) \
	VPMOVZXBD  off(SI)(AX*1), X0 \
	VCVTDQ2PS  X0, X0            \
	VMULPS     X10, X0, X0       \
	VPMOVZXBD  off(R8)(AX*1), X1 \
	VCVTDQ2PS  X1, X1            \
	VMULPS     X11, X1, X1       \
	VADDPS     X1, X0, X0        \
	VPMOVZXBD  off(R9)(AX*1), X1 \
	VCVTDQ2PS  X1, X1            \
	VMULPS     X12, X1, X1       \
	VADDPS     X1, X0, X0        \
	VPMOVZXBD  off(R10)(AX*1), X1 \
	VCVTDQ2PS  X1, X1            \
	VMULPS     X9, X1, X1        \
	VADDPS     X1, X0, X0        \
	VADDPS     X14, X0, X0       \
	VCVTTPS2DQ X0, X0            \
	VPAND      X13, X0, X0       \
	VPACKUSDW  X0, X0, X0        \
	VPACKUSWB  X0, X0, X0

// func bilinearU8AVX2(dst, p00, p01, p10, p11 []byte, w *[4]float32)
//
// With len >= 8: sixteen channels per step, then eight, then the last
// len%8 as the eight channels ending at len (dst does not overlap the
// sources, so channels done twice get the same bytes). With 4 <= len < 8:
// the four channels at 0 and the four ending at len. Below 4: one channel
// at a time. DI dst, SI p00, R8 p01, R9 p10, R10 p11, CX len, AX index,
// R11 end of the 16-steps.
TEXT ·bilinearU8AVX2(SB), NOSPLIT, $0-128
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         p00_base+24(FP), SI
	MOVQ         p01_base+48(FP), R8
	MOVQ         p10_base+72(FP), R9
	MOVQ         p11_base+96(FP), R10
	MOVQ         w+120(FP), DX
	VBROADCASTSS 0(DX), Y10
	VBROADCASTSS 4(DX), Y11
	VBROADCASTSS 8(DX), Y12
	VBROADCASTSS 12(DX), Y9
	VBROADCASTSS u8bilinearHalf<>(SB), Y14
	VBROADCASTSS u8bilinearMask<>(SB), Y13
	XORQ         AX, AX
	CMPQ         CX, $8
	JLT          small
	MOVQ         CX, R11
	ANDQ         $-16, R11
	JZ           step8

loop16:
	BLEND8(0, Y0, Y1)
	BLEND8(8, Y2, Y3)
	// Y0 = a0-3 b0-3 | a4-7 b4-7 as words, reordered to a0-7 | b0-7,
	// then packed to the sixteen bytes a0-7 b0-7.
	VPACKUSDW    Y2, Y0, Y0
	VPERMQ       $0xd8, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPACKUSWB    X1, X0, X0
	VMOVDQU      X0, (DI)(AX*1)
	ADDQ         $16, AX
	CMPQ         AX, R11
	JLT          loop16

step8:
	TESTQ $8, CX
	JZ    tail8
	BLEND8(0, Y0, Y1)
	STORE8
	ADDQ  $8, AX

tail8:
	TESTQ $7, CX
	JZ    done
	LEAQ  -8(CX), AX
	BLEND8(0, Y0, Y1)
	STORE8
	JMP   done

small:
	CMPQ  CX, $4
	JLT   one
	BLEND4(0)
	VMOVD X0, (DI)
	LEAQ  -4(CX), AX
	BLEND4(0)
	VMOVD X0, (DI)(AX*1)
	JMP   done

one:
	TESTQ CX, CX
	JZ    done

loop1:
	MOVBLZX    (SI)(AX*1), BX
	VMOVD      BX, X0
	VCVTDQ2PS  X0, X0
	VMULPS     X10, X0, X0
	MOVBLZX    (R8)(AX*1), BX
	VMOVD      BX, X1
	VCVTDQ2PS  X1, X1
	VMULPS     X11, X1, X1
	VADDPS     X1, X0, X0
	MOVBLZX    (R9)(AX*1), BX
	VMOVD      BX, X1
	VCVTDQ2PS  X1, X1
	VMULPS     X12, X1, X1
	VADDPS     X1, X0, X0
	MOVBLZX    (R10)(AX*1), BX
	VMOVD      BX, X1
	VCVTDQ2PS  X1, X1
	VMULPS     X9, X1, X1
	VADDPS     X1, X0, X0
	VADDPS     X14, X0, X0
	VCVTTPS2DQ X0, X0
	VMOVD      X0, BX
	MOVB       BX, (DI)(AX*1)
	INCQ       AX
	CMPQ       AX, CX
	JLT        loop1

done:
	VZEROUPPER
	RET

DATA u8bilinearOne<>+0(SB)/4, $0x3f800000 // 1.0
GLOBL u8bilinearOne<>(SB), RODATA|NOPTR, $4

// func bilinearRowU8AVX2Asm(dst, row0, row1 *byte, off *int32, fx *float32, n, d int, fy float32)
//
// BilinearRowU8 for d >= 8: per column, the four weights as VSUBSS and
// VMULSS in the portable order, broadcast, then the channels as in
// bilinearU8AVX2 (sixteen per step, then eight, then the eight ending at
// d). BX row0, DX row1, R12 the offset pairs, R13 fx, R14 the column,
// CX d, R11 d rounded down to 16; X15 1.0, X6 fy, X7 1 − fy.
TEXT ·bilinearRowU8AVX2Asm(SB), NOSPLIT, $0-60
	VBROADCASTSS u8bilinearHalf<>(SB), Y14
	VBROADCASTSS u8bilinearMask<>(SB), Y13
	VMOVSS       u8bilinearOne<>(SB), X15
	MOVQ         dst+0(FP), DI
	MOVQ         row0+8(FP), BX
	MOVQ         row1+16(FP), DX
	MOVQ         off+24(FP), R12
	MOVQ         fx+32(FP), R13
	MOVQ         d+48(FP), CX
	VMOVSS       fy+56(FP), X6
	VSUBSS       X6, X15, X7
	MOVQ         CX, R11
	ANDQ         $-16, R11
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
	VBROADCASTSS X8, Y10
	VMULSS       X4, X7, X8
	VBROADCASTSS X8, Y11
	VMULSS       X5, X6, X8
	VBROADCASTSS X8, Y12
	VMULSS       X4, X6, X8
	VBROADCASTSS X8, Y9
	XORQ         AX, AX
	TESTQ        R11, R11
	JZ           rstep8

rloop16:
	BLEND8(0, Y0, Y1)
	BLEND8(8, Y2, Y3)
	VPACKUSDW    Y2, Y0, Y0
	VPERMQ       $0xd8, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPACKUSWB    X1, X0, X0
	VMOVDQU      X0, (DI)(AX*1)
	ADDQ         $16, AX
	CMPQ         AX, R11
	JLT          rloop16

rstep8:
	TESTQ $8, CX
	JZ    rtail8
	BLEND8(0, Y0, Y1)
	STORE8
	ADDQ  $8, AX

rtail8:
	TESTQ $7, CX
	JZ    rnext
	LEAQ  -8(CX), AX
	BLEND8(0, Y0, Y1)
	STORE8

rnext:
	ADDQ CX, DI
	INCQ R14
	CMPQ R14, n+40(FP)
	JLT  column
	VZEROUPPER
	RET
