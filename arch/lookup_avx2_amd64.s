//go:build !purego

// AVX2 LookupBytes (see lookup.go). VPSHUFB looks up 16-entry tables, so
// the 256 entries are 16 rows of 16 (row k = table[16k:16k+16], broadcast
// to both lanes by VBROADCASTI128). For row k the index x - 16k, plus 0x70
// with unsigned saturation, has bit 7 clear exactly when x is in the row
// (then its low nibble is x's); VPSHUFB gives 0 for the other lanes, so
// OR-ing the 16 rows' results leaves table[x] in every lane.

#include "textflag.h"

DATA lookupConsts<>+0(SB)/8, $0x7070707070707070
DATA lookupConsts<>+8(SB)/8, $0x1010101010101010
GLOBL lookupConsts<>(SB), RODATA|NOPTR, $16

// ROW(k): one table row for both 32-byte blocks: Y0/Y1 the running
// indices, Y2/Y3 the results, Y4/Y5 scratch, Y6 the row, Y14 0x70s,
// Y15 0x10s.
#define ROW(k) \
	VBROADCASTI128 k*16(DX), Y6 \
	VPADDUSB       Y14, Y0, Y4  \
	VPADDUSB       Y14, Y1, Y5  \
	VPSHUFB        Y4, Y6, Y4   \
	VPSHUFB        Y5, Y6, Y5   \
	VPOR           Y4, Y2, Y2   \
	VPOR           Y5, Y3, Y3   \
	VPSUBB         Y15, Y0, Y0  \
	VPSUBB         Y15, Y1, Y1

// func lookupBytesAVX2Asm(dst, src []byte, table *[256]byte)
//
// Sixty-four bytes per step. DI dst, SI src, DX table, CX bytes left.
TEXT ·lookupBytesAVX2Asm(SB), NOSPLIT, $0-56
	MOVQ         dst_base+0(FP), DI
	MOVQ         src_base+24(FP), SI
	MOVQ         src_len+32(FP), CX
	MOVQ         table+48(FP), DX
	VPBROADCASTB lookupConsts<>+0(SB), Y14
	VPBROADCASTB lookupConsts<>+8(SB), Y15
	TESTQ        CX, CX
	JZ           done

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VPXOR   Y2, Y2, Y2
	VPXOR   Y3, Y3, Y3
	ROW(0)
	ROW(1)
	ROW(2)
	ROW(3)
	ROW(4)
	ROW(5)
	ROW(6)
	ROW(7)
	ROW(8)
	ROW(9)
	ROW(10)
	ROW(11)
	ROW(12)
	ROW(13)
	ROW(14)
	ROW(15)
	VMOVDQU Y2, (DI)
	VMOVDQU Y3, 32(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $64, CX
	JNZ     loop

done:
	VZEROUPPER
	RET
