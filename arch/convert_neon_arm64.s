//go:build !purego

// ASIMD (NEON) Int8ToF32 / Uint8ToF32 (see convert.go): bytes widened to
// int16 (SXTL or UXTL), then to int32 with the offset added in the same
// step (SADDW: both kinds of byte are in int16 range), then SCVTF, which
// rounds as Go's float32(int32) does. The widening and conversion
// instructions have no Go mnemonics: WORDs checked by TestARM64Words.

#include "textflag.h"

// WIDEN16 turns the sixteen int16 values of V1, V2 plus the offset
// (V31) into float32 in V3-V6; WIDEN8 the eight of V1 into V3, V4.
#define WIDEN8 \
	WORD $0x0e6113e3 /* saddw v3.4s, v31.4s, v1.4h */ \
	WORD $0x4e6113e4 /* saddw2 v4.4s, v31.4s, v1.8h */ \
	WORD $0x4e21d863 /* scvtf v3.4s, v3.4s */ \
	WORD $0x4e21d884 /* scvtf v4.4s, v4.4s */
#define WIDEN16 \
	WIDEN8 \
	WORD $0x0e6213e5 /* saddw v5.4s, v31.4s, v2.4h */ \
	WORD $0x4e6213e6 /* saddw2 v6.4s, v31.4s, v2.8h */ \
	WORD $0x4e21d8a5 /* scvtf v5.4s, v5.4s */ \
	WORD $0x4e21d8c6 /* scvtf v6.4s, v6.4s */

// func int8ToF32NEON(dst []float32, src []byte, offset int32, unsigned bool)
//
// Sixteen bytes per step, then eight, then one at a time, so no access
// goes beyond src or dst. R0 dst, R1 src, R2 bytes left, R3 offset,
// R4 step counter.
TEXT ·int8ToF32NEON(SB), NOSPLIT, $0-53
	MOVD  dst_base+0(FP), R0
	MOVD  src_base+24(FP), R1
	MOVD  src_len+32(FP), R2
	MOVW  offset+48(FP), R3
	MOVBU unsigned+52(FP), R5
	VDUP  R3, V31.S4
	LSR   $4, R2, R4
	CBNZ  R5, uloop16_in

sloop16_in:
	CBZ R4, sc8

sloop16:
	VLD1.P 16(R1), [V0.B16]
	WORD   $0x0f08a401 // sxtl v1.8h, v0.8b
	WORD   $0x4f08a402 // sxtl2 v2.8h, v0.16b
	WIDEN16
	VST1.P [V3.S4, V4.S4, V5.S4, V6.S4], 64(R0)
	SUB    $1, R4
	CBNZ   R4, sloop16

sc8:
	TBZ    $3, R2, sc1
	VLD1.P 8(R1), [V0.B8]
	WORD   $0x0f08a401 // sxtl v1.8h, v0.8b
	WIDEN8
	VST1.P [V3.S4, V4.S4], 32(R0)

sc1:
	AND $7, R2, R4
	CBZ R4, done

sloop1:
	MOVB.P  1(R1), R5
	ADDW    R3, R5, R5
	SCVTFWS R5, F0
	FMOVS.P F0, 4(R0)
	SUB     $1, R4
	CBNZ    R4, sloop1
	RET

uloop16_in:
	CBZ R4, uc8

uloop16:
	VLD1.P 16(R1), [V0.B16]
	WORD   $0x2f08a401 // uxtl v1.8h, v0.8b
	WORD   $0x6f08a402 // uxtl2 v2.8h, v0.16b
	WIDEN16
	VST1.P [V3.S4, V4.S4, V5.S4, V6.S4], 64(R0)
	SUB    $1, R4
	CBNZ   R4, uloop16

uc8:
	TBZ    $3, R2, uc1
	VLD1.P 8(R1), [V0.B8]
	WORD   $0x2f08a401 // uxtl v1.8h, v0.8b
	WIDEN8
	VST1.P [V3.S4, V4.S4], 32(R0)

uc1:
	AND $7, R2, R4
	CBZ R4, done

uloop1:
	MOVBU.P 1(R1), R5
	ADDW    R3, R5, R5
	SCVTFWS R5, F0
	FMOVS.P F0, 4(R0)
	SUB     $1, R4
	CBNZ    R4, uloop1

done:
	RET
