//go:build !purego

// AVX2 float32 quantisation (see quantize.go), eight elements per step,
// bit-exact with quantize_generic.go:
//
//	q = float64(x) / scale               VCVTPS2PD, VDIVPD (correctly
//	                                     rounded, as the scalar division)
//	t = trunc(q)                         VROUNDPD $3
//	t += (|q − t| ≥ 0.5) ? ±1 : 0        ties away from zero; q − t is
//	                                     exact; NaN and ±Inf compare false
//	c = int32(t)                         VCVTTPD2DQ: NaN and values
//	                                     outside int32 give MinInt32
//	out = clamp(c + zp, lo, hi)          VPADDD wraps, VPMAXSD, VPMINSD
//
// then packed with signed saturation (int8, int16) or unsigned (uint8);
// the clamp range lies within the output type, so the packs change
// nothing.

#include "textflag.h"

// Q8: Y1 = the eight clamped int32 results of the floats at SI+AX*4.
#define Q8 \
	VCVTPS2PD  (SI)(AX*4), Y0        \
	VDIVPD     Y15, Y0, Y0           \
	VROUNDPD   $3, Y0, Y2            \
	VSUBPD     Y2, Y0, Y3            \
	VANDPD     Y11, Y3, Y3           \
	VCMPPD     $0x1d, Y14, Y3, Y3    \
	VANDPD     Y12, Y0, Y4           \
	VORPD      Y13, Y4, Y4           \
	VANDPD     Y3, Y4, Y4            \
	VADDPD     Y4, Y2, Y2            \
	VCVTTPD2DQY Y2, X1               \
	VCVTPS2PD  16(SI)(AX*4), Y0      \
	VDIVPD     Y15, Y0, Y0           \
	VROUNDPD   $3, Y0, Y2            \
	VSUBPD     Y2, Y0, Y3            \
	VANDPD     Y11, Y3, Y3           \
	VCMPPD     $0x1d, Y14, Y3, Y3    \
	VANDPD     Y12, Y0, Y4           \
	VORPD      Y13, Y4, Y4           \
	VANDPD     Y3, Y4, Y4            \
	VADDPD     Y4, Y2, Y2            \
	VCVTTPD2DQY Y2, X5               \
	VINSERTI128 $1, X5, Y1, Y1       \
	VPADDD     Y8, Y1, Y1            \
	VPMAXSD    Y9, Y1, Y1            \
	VPMINSD    Y10, Y1, Y1           \
	VEXTRACTI128 $1, Y1, X5          \
	VPACKSSDW  X5, X1, X1

// func quantizeF32AVX2Asm(dst unsafe.Pointer, x *float32, n int, v *quantizeVec, kind int)
//
// DI dst, SI x, CX n (a multiple of 8), R8 the parameter block, DX kind,
// AX index; Y15 scale, Y14 0.5, Y13 1.0, Y12 sign mask, Y11 magnitude
// mask, Y8 zero point, Y9 lo, Y10 hi.
TEXT ·quantizeF32AVX2Asm(SB), NOSPLIT, $0-40
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	MOVQ    v+24(FP), R8
	MOVQ    kind+32(FP), DX
	VMOVUPD 0(R8), Y15
	VMOVUPD 32(R8), Y14
	VMOVUPD 64(R8), Y13
	VMOVUPD 96(R8), Y12
	VMOVUPD 128(R8), Y11
	VMOVDQU 160(R8), Y8
	VMOVDQU 192(R8), Y9
	VMOVDQU 224(R8), Y10
	XORQ    AX, AX
	CMPQ    DX, $1
	JEQ     loopu8
	JGT     loop16

loop8:
	CMPQ      AX, CX
	JGE       done
	Q8
	VPACKSSWB X1, X1, X1
	VMOVQ     X1, (DI)(AX*1)
	ADDQ      $8, AX
	JMP       loop8

loopu8:
	CMPQ      AX, CX
	JGE       done
	Q8
	VPACKUSWB X1, X1, X1
	VMOVQ     X1, (DI)(AX*1)
	ADDQ      $8, AX
	JMP       loopu8

loop16:
	CMPQ    AX, CX
	JGE     done
	Q8
	VMOVDQU X1, (DI)(AX*2)
	ADDQ    $8, AX
	JMP     loop16

done:
	VZEROUPPER
	RET
