//go:build !purego

// AVX2 per-channel requantisation (RequantizeChannelsInt8/Uint8): the
// arithmetic of requant_channel_avx512_amd64.s on eight lanes, the
// rounding carry subtracted as the -1 of a compare, and the clamped
// values packed to bytes through VPAND 0xff / VPACKUSDW / VPACKUSWB
// (the low byte of each value, right for int8 and uint8 outputs alike).
// The last block of a period (fewer than 8 elements) loads its
// accumulators with VPMASKMOVD and stores its bytes one by one.

#include "textflag.h"

// RQ8 requantises the eight dwords in Y0 into the eight bytes at the
// bottom of X1, with the parameters at offset CX of the rows AX, BX, DX,
// R12, R13, R14 (as RQ16) and the tie mask (row 6, uniform) in Y9.
#define RQ8 \
	VPSLLVD      (DX)(CX*1), Y0, Y0  \
	VPMULDQ      (AX)(CX*1), Y0, Y1  \
	VPSRLQ       $32, Y0, Y2         \
	VPMULDQ      (BX)(CX*1), Y2, Y2  \
	VPADDQ       Y10, Y1, Y1         \
	VPADDQ       Y10, Y2, Y2         \
	VPSRLQ       $31, Y1, Y1         \
	VPSLLQ       $1, Y2, Y2          \
	VPBLENDD     $0xaa, Y2, Y1, Y1   \
	VPAND        (R13)(CX*1), Y1, Y3 \
	VPSRAD       $31, Y1, Y4         \
	VPAND        Y9, Y4, Y4          \
	VMOVDQU      (R14)(CX*1), Y5     \
	VPSUBD       Y4, Y5, Y4          \
	VPCMPGTD     Y4, Y3, Y3          \
	VPSRAVD      (R12)(CX*1), Y1, Y1 \
	VPSUBD       Y3, Y1, Y1          \
	VPADDD       Y11, Y1, Y1         \
	VPMAXSD      Y12, Y1, Y1         \
	VPMINSD      Y13, Y1, Y1         \
	VPAND        Y14, Y1, Y1         \
	VEXTRACTI128 $1, Y1, X2          \
	VPACKUSDW    X2, X1, X1          \
	VPACKUSWB    X1, X1, X1

// func requantChannelsAVX2(dst *byte, acc *int32, total, period int, p *int32, stride int, maskFull, maskLast *int32, zp, lo, hi int32)
//
// maskFull and maskLast are the VPMASKMOVD lane masks of the last block
// of a whole period and of the last, shorter period.
TEXT ·requantChannelsAVX2(SB), NOSPLIT, $0-76
	MOVQ         dst+0(FP), DI
	MOVQ         acc+8(FP), SI
	MOVQ         total+16(FP), R8
	MOVQ         period+24(FP), R9
	MOVQ         p+32(FP), AX
	MOVQ         stride+40(FP), R11
	SHLQ         $2, R11
	LEAQ         (AX)(R11*1), BX
	LEAQ         (BX)(R11*1), DX
	LEAQ         (DX)(R11*1), R12
	LEAQ         (R12)(R11*1), R13
	LEAQ         (R13)(R11*1), R14
	VPBROADCASTD (R14)(R11*1), Y9
	MOVQ         $0x40000000, R10
	VMOVQ        R10, X10
	VPBROADCASTQ X10, Y10
	MOVL         zp+64(FP), R10
	VMOVQ        R10, X11
	VPBROADCASTD X11, Y11
	MOVL         lo+68(FP), R10
	VMOVQ        R10, X12
	VPBROADCASTD X12, Y12
	MOVL         hi+72(FP), R10
	VMOVQ        R10, X13
	VPBROADCASTD X13, Y13
	MOVL         $0xff, R10
	VMOVQ        R10, X14
	VPBROADCASTD X14, Y14

period:
	TESTQ R8, R8
	JLE   done
	MOVQ  R9, R10
	MOVQ  maskFull+48(FP), R11
	CMPQ  R8, R9
	JGE   periodlen
	MOVQ  R8, R10
	MOVQ  maskLast+56(FP), R11

periodlen:
	SUBQ R10, R8
	XORQ CX, CX

blk:
	CMPQ    R10, $8
	JLT     tail
	VMOVDQU (SI), Y0
	RQ8
	VMOVQ   X1, (DI)
	ADDQ    $32, SI
	ADDQ    $8, DI
	ADDQ    $32, CX
	SUBQ    $8, R10
	JMP     blk

tail:
	TESTQ      R10, R10
	JZ         period
	VMOVDQU    (R11), Y15
	VPMASKMOVD (SI), Y15, Y0
	RQ8
	VMOVQ      X1, R11
	LEAQ       (SI)(R10*4), SI

tailbytes:
	MOVB R11, (DI)
	SHRQ $8, R11
	INCQ DI
	DECQ R10
	JNZ  tailbytes
	JMP  period

done:
	VZEROUPPER
	RET
