//go:build !purego

// ARMv8.6 int8 matrix-multiply (FEAT_I8MM) GEMM micro-kernel for
// convolutions: four pixel rows × one block of sixteen output channels
// per pass, with USMMLA (each instruction multiplies a 2×8 block of
// unsigned bytes by an 8×2 block of signed ones: 32 products, twice
// SDOT's). USMMLA is a WORD, checked by TestARM64Words. Registers R18 and
// R26-R30 are not touched.

#include "textflag.h"

// STEP8_46 adds, for the four rows, the products of eight reduction
// indices (two groups of PackGemmInt8's layout, at R9 and R21): V4 and
// V6 hold rows 0,1 and rows 2,3 as USMMLA's signed 2×8 operand (eight
// bytes of each row); STEP8_57 is the same with V5 and V7. The weights of a group are sixteen channels × four bytes;
// ZIP1/ZIP2 of the two groups' .S4 vectors give two channels × eight
// bytes each, USMMLA's unsigned operand, so the packed bytes (w+128) are
// used as they are: the sums gain 128·Σa per row, which V13/V14 (USMMLA
// of the 0x80 bytes in V12 by the same rows) collect for the epilogue to
// subtract. Sum register V(16+8p+c) holds channels 2c, 2c+1 × rows 2p,
// 2p+1 as [c0·r0, c0·r1, c1·r0, c1·r1]. R22 is 96: the second load of
// each group moves R9 and R21 on by two groups.

#define STEP8_46 \
	VLD1.P 32(R9), [V0.B16, V1.B16]; \
	VLD1.P 32(R21), [V2.B16, V3.B16]; \
	VZIP1 V2.S4, V0.S4, V8.S4; \
	VZIP2 V2.S4, V0.S4, V9.S4; \
	VZIP1 V3.S4, V1.S4, V10.S4; \
	VZIP2 V3.S4, V1.S4, V11.S4; \
	WORD $0x4e84ad10 /* usmmla v16.4s, v8.16b, v4.16b */; \
	WORD $0x4e84ad31 /* usmmla v17.4s, v9.16b, v4.16b */; \
	WORD $0x4e84ad52 /* usmmla v18.4s, v10.16b, v4.16b */; \
	WORD $0x4e84ad73 /* usmmla v19.4s, v11.16b, v4.16b */; \
	WORD $0x4e86ad18 /* usmmla v24.4s, v8.16b, v6.16b */; \
	WORD $0x4e86ad39 /* usmmla v25.4s, v9.16b, v6.16b */; \
	WORD $0x4e86ad5a /* usmmla v26.4s, v10.16b, v6.16b */; \
	WORD $0x4e86ad7b /* usmmla v27.4s, v11.16b, v6.16b */; \
	VLD1.P (R9)(R22), [V0.B16, V1.B16]; \
	VLD1.P (R21)(R22), [V2.B16, V3.B16]; \
	VZIP1 V2.S4, V0.S4, V8.S4; \
	VZIP2 V2.S4, V0.S4, V9.S4; \
	VZIP1 V3.S4, V1.S4, V10.S4; \
	VZIP2 V3.S4, V1.S4, V11.S4; \
	WORD $0x4e84ad14 /* usmmla v20.4s, v8.16b, v4.16b */; \
	WORD $0x4e84ad35 /* usmmla v21.4s, v9.16b, v4.16b */; \
	WORD $0x4e84ad56 /* usmmla v22.4s, v10.16b, v4.16b */; \
	WORD $0x4e84ad77 /* usmmla v23.4s, v11.16b, v4.16b */; \
	WORD $0x4e86ad1c /* usmmla v28.4s, v8.16b, v6.16b */; \
	WORD $0x4e86ad3d /* usmmla v29.4s, v9.16b, v6.16b */; \
	WORD $0x4e86ad5e /* usmmla v30.4s, v10.16b, v6.16b */; \
	WORD $0x4e86ad7f /* usmmla v31.4s, v11.16b, v6.16b */; \
	WORD $0x4e84ad8d /* usmmla v13.4s, v12.16b, v4.16b */; \
	WORD $0x4e86ad8e /* usmmla v14.4s, v12.16b, v6.16b */

#define STEP8_57 \
	VLD1.P 32(R9), [V0.B16, V1.B16]; \
	VLD1.P 32(R21), [V2.B16, V3.B16]; \
	VZIP1 V2.S4, V0.S4, V8.S4; \
	VZIP2 V2.S4, V0.S4, V9.S4; \
	VZIP1 V3.S4, V1.S4, V10.S4; \
	VZIP2 V3.S4, V1.S4, V11.S4; \
	WORD $0x4e85ad10 /* usmmla v16.4s, v8.16b, v5.16b */; \
	WORD $0x4e85ad31 /* usmmla v17.4s, v9.16b, v5.16b */; \
	WORD $0x4e85ad52 /* usmmla v18.4s, v10.16b, v5.16b */; \
	WORD $0x4e85ad73 /* usmmla v19.4s, v11.16b, v5.16b */; \
	WORD $0x4e87ad18 /* usmmla v24.4s, v8.16b, v7.16b */; \
	WORD $0x4e87ad39 /* usmmla v25.4s, v9.16b, v7.16b */; \
	WORD $0x4e87ad5a /* usmmla v26.4s, v10.16b, v7.16b */; \
	WORD $0x4e87ad7b /* usmmla v27.4s, v11.16b, v7.16b */; \
	VLD1.P (R9)(R22), [V0.B16, V1.B16]; \
	VLD1.P (R21)(R22), [V2.B16, V3.B16]; \
	VZIP1 V2.S4, V0.S4, V8.S4; \
	VZIP2 V2.S4, V0.S4, V9.S4; \
	VZIP1 V3.S4, V1.S4, V10.S4; \
	VZIP2 V3.S4, V1.S4, V11.S4; \
	WORD $0x4e85ad14 /* usmmla v20.4s, v8.16b, v5.16b */; \
	WORD $0x4e85ad35 /* usmmla v21.4s, v9.16b, v5.16b */; \
	WORD $0x4e85ad56 /* usmmla v22.4s, v10.16b, v5.16b */; \
	WORD $0x4e85ad77 /* usmmla v23.4s, v11.16b, v5.16b */; \
	WORD $0x4e87ad1c /* usmmla v28.4s, v8.16b, v7.16b */; \
	WORD $0x4e87ad3d /* usmmla v29.4s, v9.16b, v7.16b */; \
	WORD $0x4e87ad5e /* usmmla v30.4s, v10.16b, v7.16b */; \
	WORD $0x4e87ad7f /* usmmla v31.4s, v11.16b, v7.16b */; \
	WORD $0x4e85ad8d /* usmmla v13.4s, v12.16b, v5.16b */; \
	WORD $0x4e87ad8e /* usmmla v14.4s, v12.16b, v7.16b */

// func gemmInt8BlockMMLA(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)
//
// gemmInt8BlockSDOT's contract (gemm_neondotprod_arm64.s) for m a
// multiple of four (the caller sends other rows to SDOT). Per four rows:
// the sums start at the seeds (in STEP8's pair layout: ZIP of the seed
// vector with itself), then sixteen reduction indices per loop (a
// 16-byte load of each row, ZIP1/ZIP2 .D2 into the two row-pair
// operands), then eight (FMOVD loads), then the last k%8 bytes of each
// row gathered in a general register (bytes past k are zero, so the
// weights there do not count; with one group left, R21 points at the
// same group as R9, so nothing past the packed weights is read). The
// epilogue subtracts 128·Σa and UZP1/UZP2 turn the pairs into rows.
//
// R0 dst, R1 ldd in bytes, R2 a, R3 lda, R4 w, R5 seed, R6 rows left,
// R7 k, R8 counter, R9/R21 weight cursors, R22 96, R10-R13 row cursors,
// R14 dst cursor, R15 k%8, R24 k%4, R19-R20/R23 tail bytes; V0-V3 loads,
// V4-V7 row-pair operands, V8-V11 channel-pair operands, V12 0x80 bytes
// (the rows' stores reuse V0-V15),
// V13-V14 128·Σa, V16-V31 sums.
TEXT ·gemmInt8BlockMMLA(SB), NOSPLIT, $0-64
	MOVD dst+0(FP), R0
	MOVD ldd+8(FP), R1
	MOVD a+16(FP), R2
	MOVD lda+24(FP), R3
	MOVD w+32(FP), R4
	MOVD seed+40(FP), R5
	MOVD m+48(FP), R6
	MOVD k+56(FP), R7
	LSL $2, R1
	AND $7, R7, R15
	AND $3, R7, R24
	MOVD $96, R22
	CBZ R6, mdone

mrows4:
	VMOVI $0x80, V12.B16
	MOVD R2, R10
	ADD R3, R10, R11
	ADD R3, R11, R12
	ADD R3, R12, R13
	VLD1 (R5), [V0.S4, V1.S4, V2.S4, V3.S4]
	VZIP1 V0.S4, V0.S4, V16.S4
	VZIP2 V0.S4, V0.S4, V17.S4
	VZIP1 V1.S4, V1.S4, V18.S4
	VZIP2 V1.S4, V1.S4, V19.S4
	VZIP1 V2.S4, V2.S4, V20.S4
	VZIP2 V2.S4, V2.S4, V21.S4
	VZIP1 V3.S4, V3.S4, V22.S4
	VZIP2 V3.S4, V3.S4, V23.S4
	VMOV V16.B16, V24.B16
	VMOV V17.B16, V25.B16
	VMOV V18.B16, V26.B16
	VMOV V19.B16, V27.B16
	VMOV V20.B16, V28.B16
	VMOV V21.B16, V29.B16
	VMOV V22.B16, V30.B16
	VMOV V23.B16, V31.B16
	VEOR V13.B16, V13.B16, V13.B16
	VEOR V14.B16, V14.B16, V14.B16
	MOVD R4, R9
	ADD $64, R4, R21
	LSR $4, R7, R8
	CBZ R8, mk8

mloop16:
	VLD1.P 16(R10), [V0.B16]
	VLD1.P 16(R11), [V1.B16]
	VLD1.P 16(R12), [V2.B16]
	VLD1.P 16(R13), [V3.B16]
	VZIP1 V1.D2, V0.D2, V4.D2
	VZIP2 V1.D2, V0.D2, V5.D2
	VZIP1 V3.D2, V2.D2, V6.D2
	VZIP2 V3.D2, V2.D2, V7.D2
	STEP8_46
	STEP8_57
	SUB $1, R8
	CBNZ R8, mloop16

mk8:
	TBZ $3, R7, mtail
	FMOVD.P 8(R10), F0
	FMOVD.P 8(R11), F1
	FMOVD.P 8(R12), F2
	FMOVD.P 8(R13), F3
	VZIP1 V1.D2, V0.D2, V4.D2
	VZIP1 V3.D2, V2.D2, V6.D2
	STEP8_46

mtail:
	CBZ R15, mepilogue
	MOVD ZR, R19
	MOVD ZR, R20
	TBZ $2, R15, mtail0b
	MOVWU.P 4(R10), R19
	MOVD $32, R20
mtail0b:
	CBZ R24, mtail0v
	MOVBU (R10), R23
	LSL R20, R23, R23
	ORR R23, R19, R19
	CMP $2, R24
	BLT mtail0v
	MOVBU 1(R10), R23
	ADD $8, R20
	LSL R20, R23, R23
	ORR R23, R19, R19
	CMP $3, R24
	BLT mtail0v
	MOVBU 2(R10), R23
	ADD $8, R20
	LSL R20, R23, R23
	ORR R23, R19, R19
mtail0v:
	VMOV R19, V4.D[0]
	MOVD ZR, R19
	MOVD ZR, R20
	TBZ $2, R15, mtail1b
	MOVWU.P 4(R11), R19
	MOVD $32, R20
mtail1b:
	CBZ R24, mtail1v
	MOVBU (R11), R23
	LSL R20, R23, R23
	ORR R23, R19, R19
	CMP $2, R24
	BLT mtail1v
	MOVBU 1(R11), R23
	ADD $8, R20
	LSL R20, R23, R23
	ORR R23, R19, R19
	CMP $3, R24
	BLT mtail1v
	MOVBU 2(R11), R23
	ADD $8, R20
	LSL R20, R23, R23
	ORR R23, R19, R19
mtail1v:
	VMOV R19, V4.D[1]
	MOVD ZR, R19
	MOVD ZR, R20
	TBZ $2, R15, mtail2b
	MOVWU.P 4(R12), R19
	MOVD $32, R20
mtail2b:
	CBZ R24, mtail2v
	MOVBU (R12), R23
	LSL R20, R23, R23
	ORR R23, R19, R19
	CMP $2, R24
	BLT mtail2v
	MOVBU 1(R12), R23
	ADD $8, R20
	LSL R20, R23, R23
	ORR R23, R19, R19
	CMP $3, R24
	BLT mtail2v
	MOVBU 2(R12), R23
	ADD $8, R20
	LSL R20, R23, R23
	ORR R23, R19, R19
mtail2v:
	VMOV R19, V6.D[0]
	MOVD ZR, R19
	MOVD ZR, R20
	TBZ $2, R15, mtail3b
	MOVWU.P 4(R13), R19
	MOVD $32, R20
mtail3b:
	CBZ R24, mtail3v
	MOVBU (R13), R23
	LSL R20, R23, R23
	ORR R23, R19, R19
	CMP $2, R24
	BLT mtail3v
	MOVBU 1(R13), R23
	ADD $8, R20
	LSL R20, R23, R23
	ORR R23, R19, R19
	CMP $3, R24
	BLT mtail3v
	MOVBU 2(R13), R23
	ADD $8, R20
	LSL R20, R23, R23
	ORR R23, R19, R19
mtail3v:
	VMOV R19, V6.D[1]
	CMP $4, R15
	BGT mtail2
	MOVD R9, R21
mtail2:
	STEP8_46

mepilogue:
	VSUB V13.S4, V16.S4, V16.S4
	VSUB V13.S4, V17.S4, V17.S4
	VSUB V13.S4, V18.S4, V18.S4
	VSUB V13.S4, V19.S4, V19.S4
	VSUB V13.S4, V20.S4, V20.S4
	VSUB V13.S4, V21.S4, V21.S4
	VSUB V13.S4, V22.S4, V22.S4
	VSUB V13.S4, V23.S4, V23.S4
	VSUB V14.S4, V24.S4, V24.S4
	VSUB V14.S4, V25.S4, V25.S4
	VSUB V14.S4, V26.S4, V26.S4
	VSUB V14.S4, V27.S4, V27.S4
	VSUB V14.S4, V28.S4, V28.S4
	VSUB V14.S4, V29.S4, V29.S4
	VSUB V14.S4, V30.S4, V30.S4
	VSUB V14.S4, V31.S4, V31.S4
	VUZP1 V17.S4, V16.S4, V0.S4
	VUZP2 V17.S4, V16.S4, V4.S4
	VUZP1 V25.S4, V24.S4, V8.S4
	VUZP2 V25.S4, V24.S4, V12.S4
	VUZP1 V19.S4, V18.S4, V1.S4
	VUZP2 V19.S4, V18.S4, V5.S4
	VUZP1 V27.S4, V26.S4, V9.S4
	VUZP2 V27.S4, V26.S4, V13.S4
	VUZP1 V21.S4, V20.S4, V2.S4
	VUZP2 V21.S4, V20.S4, V6.S4
	VUZP1 V29.S4, V28.S4, V10.S4
	VUZP2 V29.S4, V28.S4, V14.S4
	VUZP1 V23.S4, V22.S4, V3.S4
	VUZP2 V23.S4, V22.S4, V7.S4
	VUZP1 V31.S4, V30.S4, V11.S4
	VUZP2 V31.S4, V30.S4, V15.S4
	MOVD R0, R14
	VST1 [V0.S4, V1.S4, V2.S4, V3.S4], (R14)
	ADD R1, R14
	VST1 [V4.S4, V5.S4, V6.S4, V7.S4], (R14)
	ADD R1, R14
	VST1 [V8.S4, V9.S4, V10.S4, V11.S4], (R14)
	ADD R1, R14
	VST1 [V12.S4, V13.S4, V14.S4, V15.S4], (R14)
	ADD R1<<2, R0
	ADD R3<<2, R2
	SUB $4, R6
	CBNZ R6, mrows4

mdone:
	RET
