//go:build !purego

// AVX-512 per-channel requantisation (RequantizeChannelsInt8/Uint8,
// requant_channel.go), bit-exact with requantChannelsGeneric: sixteen
// lanes per step with the arithmetic of RQ16 (requant_channel_amd64.h),
// each lane with its channel's parameters, narrowed to bytes in a register
// (VPMOVDB truncates; the clamp keeps int8 and uint8 values intact) and
// stored (masked only for a tail: the masked VPMOVDB store is slow on Zen
// 4). The tile is walked in parameter periods (rows of `period` elements,
// the last one possibly shorter); the last block of each period is stored
// under a mask (tailFull for whole periods, tailLast for the last one).

#include "textflag.h"
#include "requant_channel_amd64.h"

// BLK requantises the 16 (K1-masked) accumulators at SI into X0, with the
// parameters at offset CX of the rows at R12 (stride R11).
#define BLK \
	RQPARAMS(R12, CX, R11, R13) \
	VMOVDQU32.Z (SI), K1, Z0    \
	RQ16(Z0, Z1, Z2)            \
	VPMOVDB     Z0, X0

// func requantChannelsAVX512(dst *byte, acc *int32, total, period int, p *int32, stride int, tailFull, tailLast uint64, zp, lo, hi int32)
TEXT ·requantChannelsAVX512(SB), NOSPLIT, $0-76
	MOVQ dst+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ total+16(FP), R8
	MOVQ period+24(FP), R9
	MOVQ p+32(FP), R12
	MOVQ stride+40(FP), R11
	SHLQ $2, R11
	RQCONSTS(zp+64(FP), lo+68(FP), hi+72(FP), R10)

period:
	TESTQ R8, R8
	JLE   done
	MOVQ  R9, R10
	MOVQ  tailFull+48(FP), AX
	CMPQ  R8, R9
	JGE   periodlen
	MOVQ  R8, R10
	MOVQ  tailLast+56(FP), AX

periodlen:
	SUBQ R10, R8
	XORQ CX, CX

blk:
	CMPQ    R10, $16
	JLT     tail
	KXNORW  K0, K0, K1
	BLK
	VMOVDQU X0, (DI)
	ADDQ    $64, SI
	ADDQ    $16, DI
	ADDQ    $64, CX
	SUBQ    $16, R10
	JMP     blk

tail:
	TESTQ    R10, R10
	JZ       period
	KMOVW    AX, K1
	BLK
	VMOVDQU8 X0, K1, (DI)
	LEAQ     (SI)(R10*4), SI
	ADDQ     R10, DI
	JMP      period

done:
	VZEROUPPER
	RET
