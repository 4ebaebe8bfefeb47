//go:build !purego

// ASIMD (NEON) MaxBlocksInt8, MaxBlocksUint8 and MaxBlocksInt16 (see
// vecmaxint.go): SMAX and UMAX are max(dst, src) per lane, exactly
// `if dst < src { dst = src }` for integers. They have no Go mnemonic and
// are WORDs checked by TestARM64Words. The three routines differ only in
// the instruction, the scalar load and the element size.
// MinBlocksInt8, MinBlocksUint8 and MinBlocksInt16 are the same with SMIN
// and UMIN (`if dst > src { dst = src }`; a min is idempotent too).
//
// Per block, with W the block's width in bytes: 16 bytes per step, and
// when W is at least 16 and not a multiple of it, one more 16-byte step
// ending at W (a max is idempotent, so the overlap is harmless: dst and
// src never overlap). Blocks shorter than 16 bytes go one value at a
// time. No access goes beyond the block. R0 dst block, R1 src block, R2
// blocks left, R3 width in bytes, R4/R5 strides in bytes, R6 dst cursor,
// R7 src cursor, R8 step counter, R9/R10 scalar values.

#include "textflag.h"

// func maxBlocksInt8NEON(dst, src []int8, n, width, dstStride, srcStride int)
TEXT ·maxBlocksInt8NEON(SB), NOSPLIT, $0-80
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD n+48(FP), R2
	MOVD width+56(FP), R3
	MOVD dstStride+64(FP), R4
	MOVD srcStride+72(FP), R5
	CMP  $0, R2
	BLE  doneInt8
	CMP  $0, R3
	BLE  doneInt8

blockInt8:
	MOVD R0, R6
	MOVD R1, R7
	LSR  $4, R3, R8
	CBZ  R8, scalarInt8

loop16Int8:
	VLD1.P 16(R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x4e216400 // smax v0.16b, v0.16b, v1.16b
	VST1.P [V0.B16], 16(R6)
	SUB    $1, R8
	CBNZ   R8, loop16Int8
	ANDS   $15, R3, R8
	BEQ    nextInt8
	ADD    R3, R0, R6
	SUB    $16, R6, R6
	ADD    R3, R1, R7
	SUB    $16, R7, R7
	VLD1   (R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x4e216400 // smax v0.16b, v0.16b, v1.16b
	VST1   [V0.B16], (R6)
	B      nextInt8

scalarInt8:
	LSR $0, R3, R8

oneInt8:
	MOVB.P 1(R7), R9
	MOVB   (R6), R10
	CMP     R9, R10
	BGE     keepInt8
	MOVB    R9, (R6)

keepInt8:
	ADD  $1, R6, R6
	SUB  $1, R8
	CBNZ R8, oneInt8

nextInt8:
	ADD  R4, R0, R0
	ADD  R5, R1, R1
	SUB  $1, R2
	CBNZ R2, blockInt8

doneInt8:
	RET

// func maxBlocksUint8NEON(dst, src []uint8, n, width, dstStride, srcStride int)
TEXT ·maxBlocksUint8NEON(SB), NOSPLIT, $0-80
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD n+48(FP), R2
	MOVD width+56(FP), R3
	MOVD dstStride+64(FP), R4
	MOVD srcStride+72(FP), R5
	CMP  $0, R2
	BLE  doneUint8
	CMP  $0, R3
	BLE  doneUint8

blockUint8:
	MOVD R0, R6
	MOVD R1, R7
	LSR  $4, R3, R8
	CBZ  R8, scalarUint8

loop16Uint8:
	VLD1.P 16(R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x6e216400 // umax v0.16b, v0.16b, v1.16b
	VST1.P [V0.B16], 16(R6)
	SUB    $1, R8
	CBNZ   R8, loop16Uint8
	ANDS   $15, R3, R8
	BEQ    nextUint8
	ADD    R3, R0, R6
	SUB    $16, R6, R6
	ADD    R3, R1, R7
	SUB    $16, R7, R7
	VLD1   (R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x6e216400 // umax v0.16b, v0.16b, v1.16b
	VST1   [V0.B16], (R6)
	B      nextUint8

scalarUint8:
	LSR $0, R3, R8

oneUint8:
	MOVBU.P 1(R7), R9
	MOVBU   (R6), R10
	CMP     R9, R10
	BGE     keepUint8
	MOVB    R9, (R6)

keepUint8:
	ADD  $1, R6, R6
	SUB  $1, R8
	CBNZ R8, oneUint8

nextUint8:
	ADD  R4, R0, R0
	ADD  R5, R1, R1
	SUB  $1, R2
	CBNZ R2, blockUint8

doneUint8:
	RET

// func maxBlocksInt16NEON(dst, src []int16, n, width, dstStride, srcStride int)
TEXT ·maxBlocksInt16NEON(SB), NOSPLIT, $0-80
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD n+48(FP), R2
	MOVD width+56(FP), R3
	MOVD dstStride+64(FP), R4
	MOVD srcStride+72(FP), R5
	CMP  $0, R2
	BLE  doneInt16
	CMP  $0, R3
	BLE  doneInt16
	LSL  $1, R3, R3
	LSL  $1, R4, R4
	LSL  $1, R5, R5

blockInt16:
	MOVD R0, R6
	MOVD R1, R7
	LSR  $4, R3, R8
	CBZ  R8, scalarInt16

loop16Int16:
	VLD1.P 16(R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x4e616400 // smax v0.8h, v0.8h, v1.8h
	VST1.P [V0.B16], 16(R6)
	SUB    $1, R8
	CBNZ   R8, loop16Int16
	ANDS   $15, R3, R8
	BEQ    nextInt16
	ADD    R3, R0, R6
	SUB    $16, R6, R6
	ADD    R3, R1, R7
	SUB    $16, R7, R7
	VLD1   (R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x4e616400 // smax v0.8h, v0.8h, v1.8h
	VST1   [V0.B16], (R6)
	B      nextInt16

scalarInt16:
	LSR $1, R3, R8

oneInt16:
	MOVH.P 2(R7), R9
	MOVH   (R6), R10
	CMP     R9, R10
	BGE     keepInt16
	MOVH    R9, (R6)

keepInt16:
	ADD  $2, R6, R6
	SUB  $1, R8
	CBNZ R8, oneInt16

nextInt16:
	ADD  R4, R0, R0
	ADD  R5, R1, R1
	SUB  $1, R2
	CBNZ R2, blockInt16

doneInt16:
	RET

// func minBlocksInt8NEON(dst, src []int8, n, width, dstStride, srcStride int)
TEXT ·minBlocksInt8NEON(SB), NOSPLIT, $0-80
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD n+48(FP), R2
	MOVD width+56(FP), R3
	MOVD dstStride+64(FP), R4
	MOVD srcStride+72(FP), R5
	CMP  $0, R2
	BLE  doneMinInt8
	CMP  $0, R3
	BLE  doneMinInt8

blockMinInt8:
	MOVD R0, R6
	MOVD R1, R7
	LSR  $4, R3, R8
	CBZ  R8, scalarMinInt8

loop16MinInt8:
	VLD1.P 16(R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x4e216c00 // smin v0.16b, v0.16b, v1.16b
	VST1.P [V0.B16], 16(R6)
	SUB    $1, R8
	CBNZ   R8, loop16MinInt8
	ANDS   $15, R3, R8
	BEQ    nextMinInt8
	ADD    R3, R0, R6
	SUB    $16, R6, R6
	ADD    R3, R1, R7
	SUB    $16, R7, R7
	VLD1   (R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x4e216c00 // smin v0.16b, v0.16b, v1.16b
	VST1   [V0.B16], (R6)
	B      nextMinInt8

scalarMinInt8:
	LSR $0, R3, R8

oneMinInt8:
	MOVB.P 1(R7), R9
	MOVB   (R6), R10
	CMP     R9, R10
	BLE     keepMinInt8
	MOVB    R9, (R6)

keepMinInt8:
	ADD  $1, R6, R6
	SUB  $1, R8
	CBNZ R8, oneMinInt8

nextMinInt8:
	ADD  R4, R0, R0
	ADD  R5, R1, R1
	SUB  $1, R2
	CBNZ R2, blockMinInt8

doneMinInt8:
	RET

// func minBlocksUint8NEON(dst, src []uint8, n, width, dstStride, srcStride int)
TEXT ·minBlocksUint8NEON(SB), NOSPLIT, $0-80
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD n+48(FP), R2
	MOVD width+56(FP), R3
	MOVD dstStride+64(FP), R4
	MOVD srcStride+72(FP), R5
	CMP  $0, R2
	BLE  doneMinUint8
	CMP  $0, R3
	BLE  doneMinUint8

blockMinUint8:
	MOVD R0, R6
	MOVD R1, R7
	LSR  $4, R3, R8
	CBZ  R8, scalarMinUint8

loop16MinUint8:
	VLD1.P 16(R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x6e216c00 // umin v0.16b, v0.16b, v1.16b
	VST1.P [V0.B16], 16(R6)
	SUB    $1, R8
	CBNZ   R8, loop16MinUint8
	ANDS   $15, R3, R8
	BEQ    nextMinUint8
	ADD    R3, R0, R6
	SUB    $16, R6, R6
	ADD    R3, R1, R7
	SUB    $16, R7, R7
	VLD1   (R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x6e216c00 // umin v0.16b, v0.16b, v1.16b
	VST1   [V0.B16], (R6)
	B      nextMinUint8

scalarMinUint8:
	LSR $0, R3, R8

oneMinUint8:
	MOVBU.P 1(R7), R9
	MOVBU   (R6), R10
	CMP     R9, R10
	BLE     keepMinUint8
	MOVB    R9, (R6)

keepMinUint8:
	ADD  $1, R6, R6
	SUB  $1, R8
	CBNZ R8, oneMinUint8

nextMinUint8:
	ADD  R4, R0, R0
	ADD  R5, R1, R1
	SUB  $1, R2
	CBNZ R2, blockMinUint8

doneMinUint8:
	RET

// func minBlocksInt16NEON(dst, src []int16, n, width, dstStride, srcStride int)
TEXT ·minBlocksInt16NEON(SB), NOSPLIT, $0-80
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD n+48(FP), R2
	MOVD width+56(FP), R3
	MOVD dstStride+64(FP), R4
	MOVD srcStride+72(FP), R5
	CMP  $0, R2
	BLE  doneMinInt16
	CMP  $0, R3
	BLE  doneMinInt16
	LSL  $1, R3, R3
	LSL  $1, R4, R4
	LSL  $1, R5, R5

blockMinInt16:
	MOVD R0, R6
	MOVD R1, R7
	LSR  $4, R3, R8
	CBZ  R8, scalarMinInt16

loop16MinInt16:
	VLD1.P 16(R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x4e616c00 // smin v0.8h, v0.8h, v1.8h
	VST1.P [V0.B16], 16(R6)
	SUB    $1, R8
	CBNZ   R8, loop16MinInt16
	ANDS   $15, R3, R8
	BEQ    nextMinInt16
	ADD    R3, R0, R6
	SUB    $16, R6, R6
	ADD    R3, R1, R7
	SUB    $16, R7, R7
	VLD1   (R7), [V1.B16]
	VLD1   (R6), [V0.B16]
	WORD   $0x4e616c00 // smin v0.8h, v0.8h, v1.8h
	VST1   [V0.B16], (R6)
	B      nextMinInt16

scalarMinInt16:
	LSR $1, R3, R8

oneMinInt16:
	MOVH.P 2(R7), R9
	MOVH   (R6), R10
	CMP     R9, R10
	BLE     keepMinInt16
	MOVH    R9, (R6)

keepMinInt16:
	ADD  $2, R6, R6
	SUB  $1, R8
	CBNZ R8, oneMinInt16

nextMinInt16:
	ADD  R4, R0, R0
	ADD  R5, R1, R1
	SUB  $1, R2
	CBNZ R2, blockMinInt16

doneMinInt16:
	RET
