//go:build !purego

// ASIMD (NEON) LookupBytes (see lookup.go). The 256-byte table sits in
// V16-V31, four 64-byte quarters: TBL looks each index up in the first
// quarter (0 for an index of 64 or more), then each TBX, after 64 more
// is subtracted from the indices, in the next quarter, leaving the lane
// unchanged when the index is out of that quarter's range (wrapped
// indices of earlier quarters are ≥ 64 too). TBL, TBX and SUB (vector)
// are WORDs checked by TestARM64Words.

#include "textflag.h"

// func lookupBytesNEONAsm(dst, src []byte, table *[256]byte)
//
// Thirty-two bytes per step (V0, V1 indices, V2, V3 results, V15 64s).
// R0 dst, R1 src, R2 table, R3 steps left.
TEXT ·lookupBytesNEONAsm(SB), NOSPLIT, $0-56
	MOVD   dst_base+0(FP), R0
	MOVD   src_base+24(FP), R1
	MOVD   src_len+32(FP), R3
	MOVD   table+48(FP), R2
	VLD1.P 64(R2), [V16.B16, V17.B16, V18.B16, V19.B16]
	VLD1.P 64(R2), [V20.B16, V21.B16, V22.B16, V23.B16]
	VLD1.P 64(R2), [V24.B16, V25.B16, V26.B16, V27.B16]
	VLD1   (R2), [V28.B16, V29.B16, V30.B16, V31.B16]
	VMOVI  $64, V15.B16
	LSR    $5, R3, R3
	CBZ    R3, done

loop:
	VLD1.P 32(R1), [V0.B16, V1.B16]
	WORD $0x4e006202 // tbl v2.16b, {v16.16b, v17.16b, v18.16b, v19.16b}, v0.16b
	WORD $0x4e016203 // tbl v3.16b, {v16.16b, v17.16b, v18.16b, v19.16b}, v1.16b
	WORD $0x6e2f8400 // sub v0.16b, v0.16b, v15.16b
	WORD $0x6e2f8421 // sub v1.16b, v1.16b, v15.16b
	WORD $0x4e007282 // tbx v2.16b, {v20.16b, v21.16b, v22.16b, v23.16b}, v0.16b
	WORD $0x4e017283 // tbx v3.16b, {v20.16b, v21.16b, v22.16b, v23.16b}, v1.16b
	WORD $0x6e2f8400 // sub v0.16b, v0.16b, v15.16b
	WORD $0x6e2f8421 // sub v1.16b, v1.16b, v15.16b
	WORD $0x4e007302 // tbx v2.16b, {v24.16b, v25.16b, v26.16b, v27.16b}, v0.16b
	WORD $0x4e017303 // tbx v3.16b, {v24.16b, v25.16b, v26.16b, v27.16b}, v1.16b
	WORD $0x6e2f8400 // sub v0.16b, v0.16b, v15.16b
	WORD $0x6e2f8421 // sub v1.16b, v1.16b, v15.16b
	WORD $0x4e007382 // tbx v2.16b, {v28.16b, v29.16b, v30.16b, v31.16b}, v0.16b
	WORD $0x4e017383 // tbx v3.16b, {v28.16b, v29.16b, v30.16b, v31.16b}, v1.16b
	VST1.P [V2.B16, V3.B16], 32(R0)
	SUB    $1, R3
	CBNZ   R3, loop

done:
	RET
