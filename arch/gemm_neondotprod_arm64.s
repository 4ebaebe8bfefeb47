//go:build !purego

// ARMv8.2 dot-product (FEAT_DotProd) int8 GEMM micro-kernel for
// convolutions: the int8 block kernel of gemm_neon_arm64.s with SDOT by
// element (four products per int32 lane per instruction). SDOT is a WORD,
// checked by TestARM64Words. Registers R18 and R26-R30 are not touched.

#include "textflag.h"

// func gemmInt8BlockSDOT(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)
//
// gemmInt8BlockNEON (gemm_neon_arm64.s) with SDOT: each row's sixteen
// sums sit in four int32 registers, and one SDOT by element adds, for
// four channels, the products of a group's four weights with four bytes
// of a (4·(-128)² = 65536 fits exactly). Four rows at a time: sixteen
// bytes of each row per load (four groups, V4-V7), each group's 64 weight
// bytes loaded once and EORed with 0x80 (undoing the packing's offset);
// then single groups (FMOVS), then the last k%4 bytes gathered in a
// general register; leftover rows one at a time. The sums start at the
// seed.
//
// R0 dst, R1 ldd in bytes, R2 a, R3 lda, R4 w, R5 seed, R6 rows left,
// R7 k, R8 counter, R9 weight cursor, R10-R13 row cursors, R15 k%4,
// R14 dst cursor, R19-R20 tail bytes; V0-V3 weights,
// V4-V7 a, V8-V11 seed, V14 0x80 bytes, V16-V31 sums.
TEXT ·gemmInt8BlockSDOT(SB), NOSPLIT, $0-64
	MOVD dst+0(FP), R0
	MOVD ldd+8(FP), R1
	MOVD a+16(FP), R2
	MOVD lda+24(FP), R3
	MOVD w+32(FP), R4
	MOVD seed+40(FP), R5
	MOVD m+48(FP), R6
	MOVD k+56(FP), R7
	LSL $2, R1
	AND $3, R7, R15
	VMOVI $0x80, V14.B16
	VLD1 (R5), [V8.S4, V9.S4, V10.S4, V11.S4]

drows4:
	CMP $4, R6
	BLT drows1
	MOVD R2, R10
	ADD R3, R10, R11
	ADD R3, R11, R12
	ADD R3, R12, R13
	VMOV V8.B16, V16.B16
	VMOV V9.B16, V17.B16
	VMOV V10.B16, V18.B16
	VMOV V11.B16, V19.B16
	VMOV V8.B16, V20.B16
	VMOV V9.B16, V21.B16
	VMOV V10.B16, V22.B16
	VMOV V11.B16, V23.B16
	VMOV V8.B16, V24.B16
	VMOV V9.B16, V25.B16
	VMOV V10.B16, V26.B16
	VMOV V11.B16, V27.B16
	VMOV V8.B16, V28.B16
	VMOV V9.B16, V29.B16
	VMOV V10.B16, V30.B16
	VMOV V11.B16, V31.B16
	MOVD R4, R9
	LSR $4, R7, R8
	CBZ R8, dgroups4

dloop4:
	VLD1.P 16(R10), [V4.B16]
	VLD1.P 16(R11), [V5.B16]
	VLD1.P 16(R12), [V6.B16]
	VLD1.P 16(R13), [V7.B16]
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4f84e010 // sdot v16.4s, v0.16b, v4.4b[0]
	WORD $0x4f84e031 // sdot v17.4s, v1.16b, v4.4b[0]
	WORD $0x4f84e052 // sdot v18.4s, v2.16b, v4.4b[0]
	WORD $0x4f84e073 // sdot v19.4s, v3.16b, v4.4b[0]
	WORD $0x4f85e014 // sdot v20.4s, v0.16b, v5.4b[0]
	WORD $0x4f85e035 // sdot v21.4s, v1.16b, v5.4b[0]
	WORD $0x4f85e056 // sdot v22.4s, v2.16b, v5.4b[0]
	WORD $0x4f85e077 // sdot v23.4s, v3.16b, v5.4b[0]
	WORD $0x4f86e018 // sdot v24.4s, v0.16b, v6.4b[0]
	WORD $0x4f86e039 // sdot v25.4s, v1.16b, v6.4b[0]
	WORD $0x4f86e05a // sdot v26.4s, v2.16b, v6.4b[0]
	WORD $0x4f86e07b // sdot v27.4s, v3.16b, v6.4b[0]
	WORD $0x4f87e01c // sdot v28.4s, v0.16b, v7.4b[0]
	WORD $0x4f87e03d // sdot v29.4s, v1.16b, v7.4b[0]
	WORD $0x4f87e05e // sdot v30.4s, v2.16b, v7.4b[0]
	WORD $0x4f87e07f // sdot v31.4s, v3.16b, v7.4b[0]
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4fa4e010 // sdot v16.4s, v0.16b, v4.4b[1]
	WORD $0x4fa4e031 // sdot v17.4s, v1.16b, v4.4b[1]
	WORD $0x4fa4e052 // sdot v18.4s, v2.16b, v4.4b[1]
	WORD $0x4fa4e073 // sdot v19.4s, v3.16b, v4.4b[1]
	WORD $0x4fa5e014 // sdot v20.4s, v0.16b, v5.4b[1]
	WORD $0x4fa5e035 // sdot v21.4s, v1.16b, v5.4b[1]
	WORD $0x4fa5e056 // sdot v22.4s, v2.16b, v5.4b[1]
	WORD $0x4fa5e077 // sdot v23.4s, v3.16b, v5.4b[1]
	WORD $0x4fa6e018 // sdot v24.4s, v0.16b, v6.4b[1]
	WORD $0x4fa6e039 // sdot v25.4s, v1.16b, v6.4b[1]
	WORD $0x4fa6e05a // sdot v26.4s, v2.16b, v6.4b[1]
	WORD $0x4fa6e07b // sdot v27.4s, v3.16b, v6.4b[1]
	WORD $0x4fa7e01c // sdot v28.4s, v0.16b, v7.4b[1]
	WORD $0x4fa7e03d // sdot v29.4s, v1.16b, v7.4b[1]
	WORD $0x4fa7e05e // sdot v30.4s, v2.16b, v7.4b[1]
	WORD $0x4fa7e07f // sdot v31.4s, v3.16b, v7.4b[1]
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4f84e810 // sdot v16.4s, v0.16b, v4.4b[2]
	WORD $0x4f84e831 // sdot v17.4s, v1.16b, v4.4b[2]
	WORD $0x4f84e852 // sdot v18.4s, v2.16b, v4.4b[2]
	WORD $0x4f84e873 // sdot v19.4s, v3.16b, v4.4b[2]
	WORD $0x4f85e814 // sdot v20.4s, v0.16b, v5.4b[2]
	WORD $0x4f85e835 // sdot v21.4s, v1.16b, v5.4b[2]
	WORD $0x4f85e856 // sdot v22.4s, v2.16b, v5.4b[2]
	WORD $0x4f85e877 // sdot v23.4s, v3.16b, v5.4b[2]
	WORD $0x4f86e818 // sdot v24.4s, v0.16b, v6.4b[2]
	WORD $0x4f86e839 // sdot v25.4s, v1.16b, v6.4b[2]
	WORD $0x4f86e85a // sdot v26.4s, v2.16b, v6.4b[2]
	WORD $0x4f86e87b // sdot v27.4s, v3.16b, v6.4b[2]
	WORD $0x4f87e81c // sdot v28.4s, v0.16b, v7.4b[2]
	WORD $0x4f87e83d // sdot v29.4s, v1.16b, v7.4b[2]
	WORD $0x4f87e85e // sdot v30.4s, v2.16b, v7.4b[2]
	WORD $0x4f87e87f // sdot v31.4s, v3.16b, v7.4b[2]
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4fa4e810 // sdot v16.4s, v0.16b, v4.4b[3]
	WORD $0x4fa4e831 // sdot v17.4s, v1.16b, v4.4b[3]
	WORD $0x4fa4e852 // sdot v18.4s, v2.16b, v4.4b[3]
	WORD $0x4fa4e873 // sdot v19.4s, v3.16b, v4.4b[3]
	WORD $0x4fa5e814 // sdot v20.4s, v0.16b, v5.4b[3]
	WORD $0x4fa5e835 // sdot v21.4s, v1.16b, v5.4b[3]
	WORD $0x4fa5e856 // sdot v22.4s, v2.16b, v5.4b[3]
	WORD $0x4fa5e877 // sdot v23.4s, v3.16b, v5.4b[3]
	WORD $0x4fa6e818 // sdot v24.4s, v0.16b, v6.4b[3]
	WORD $0x4fa6e839 // sdot v25.4s, v1.16b, v6.4b[3]
	WORD $0x4fa6e85a // sdot v26.4s, v2.16b, v6.4b[3]
	WORD $0x4fa6e87b // sdot v27.4s, v3.16b, v6.4b[3]
	WORD $0x4fa7e81c // sdot v28.4s, v0.16b, v7.4b[3]
	WORD $0x4fa7e83d // sdot v29.4s, v1.16b, v7.4b[3]
	WORD $0x4fa7e85e // sdot v30.4s, v2.16b, v7.4b[3]
	WORD $0x4fa7e87f // sdot v31.4s, v3.16b, v7.4b[3]
	SUB $1, R8
	CBNZ R8, dloop4

dgroups4:
	UBFX $2, R7, $2, R8
	CBZ R8, dtail4

dloopg4:
	FMOVS.P 4(R10), F4
	FMOVS.P 4(R11), F5
	FMOVS.P 4(R12), F6
	FMOVS.P 4(R13), F7
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4f84e010 // sdot v16.4s, v0.16b, v4.4b[0]
	WORD $0x4f84e031 // sdot v17.4s, v1.16b, v4.4b[0]
	WORD $0x4f84e052 // sdot v18.4s, v2.16b, v4.4b[0]
	WORD $0x4f84e073 // sdot v19.4s, v3.16b, v4.4b[0]
	WORD $0x4f85e014 // sdot v20.4s, v0.16b, v5.4b[0]
	WORD $0x4f85e035 // sdot v21.4s, v1.16b, v5.4b[0]
	WORD $0x4f85e056 // sdot v22.4s, v2.16b, v5.4b[0]
	WORD $0x4f85e077 // sdot v23.4s, v3.16b, v5.4b[0]
	WORD $0x4f86e018 // sdot v24.4s, v0.16b, v6.4b[0]
	WORD $0x4f86e039 // sdot v25.4s, v1.16b, v6.4b[0]
	WORD $0x4f86e05a // sdot v26.4s, v2.16b, v6.4b[0]
	WORD $0x4f86e07b // sdot v27.4s, v3.16b, v6.4b[0]
	WORD $0x4f87e01c // sdot v28.4s, v0.16b, v7.4b[0]
	WORD $0x4f87e03d // sdot v29.4s, v1.16b, v7.4b[0]
	WORD $0x4f87e05e // sdot v30.4s, v2.16b, v7.4b[0]
	WORD $0x4f87e07f // sdot v31.4s, v3.16b, v7.4b[0]
	SUB $1, R8
	CBNZ R8, dloopg4

dtail4:
	CBZ R15, dstore4
	MOVBU (R10), R19
	CMP $2, R15
	BLT dtail4a
	MOVBU 1(R10), R20
	ORR R20<<8, R19, R19
	CMP $3, R15
	BLT dtail4a
	MOVBU 2(R10), R20
	ORR R20<<16, R19, R19
dtail4a:
	VDUP R19, V4.S4
	MOVBU (R11), R19
	CMP $2, R15
	BLT dtail4b
	MOVBU 1(R11), R20
	ORR R20<<8, R19, R19
	CMP $3, R15
	BLT dtail4b
	MOVBU 2(R11), R20
	ORR R20<<16, R19, R19
dtail4b:
	VDUP R19, V5.S4
	MOVBU (R12), R19
	CMP $2, R15
	BLT dtail4c
	MOVBU 1(R12), R20
	ORR R20<<8, R19, R19
	CMP $3, R15
	BLT dtail4c
	MOVBU 2(R12), R20
	ORR R20<<16, R19, R19
dtail4c:
	VDUP R19, V6.S4
	MOVBU (R13), R19
	CMP $2, R15
	BLT dtail4d
	MOVBU 1(R13), R20
	ORR R20<<8, R19, R19
	CMP $3, R15
	BLT dtail4d
	MOVBU 2(R13), R20
	ORR R20<<16, R19, R19
dtail4d:
	VDUP R19, V7.S4
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4f84e010 // sdot v16.4s, v0.16b, v4.4b[0]
	WORD $0x4f84e031 // sdot v17.4s, v1.16b, v4.4b[0]
	WORD $0x4f84e052 // sdot v18.4s, v2.16b, v4.4b[0]
	WORD $0x4f84e073 // sdot v19.4s, v3.16b, v4.4b[0]
	WORD $0x4f85e014 // sdot v20.4s, v0.16b, v5.4b[0]
	WORD $0x4f85e035 // sdot v21.4s, v1.16b, v5.4b[0]
	WORD $0x4f85e056 // sdot v22.4s, v2.16b, v5.4b[0]
	WORD $0x4f85e077 // sdot v23.4s, v3.16b, v5.4b[0]
	WORD $0x4f86e018 // sdot v24.4s, v0.16b, v6.4b[0]
	WORD $0x4f86e039 // sdot v25.4s, v1.16b, v6.4b[0]
	WORD $0x4f86e05a // sdot v26.4s, v2.16b, v6.4b[0]
	WORD $0x4f86e07b // sdot v27.4s, v3.16b, v6.4b[0]
	WORD $0x4f87e01c // sdot v28.4s, v0.16b, v7.4b[0]
	WORD $0x4f87e03d // sdot v29.4s, v1.16b, v7.4b[0]
	WORD $0x4f87e05e // sdot v30.4s, v2.16b, v7.4b[0]
	WORD $0x4f87e07f // sdot v31.4s, v3.16b, v7.4b[0]

dstore4:
	MOVD R0, R14
	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (R14)
	ADD R1, R14
	VST1 [V20.S4, V21.S4, V22.S4, V23.S4], (R14)
	ADD R1, R14
	VST1 [V24.S4, V25.S4, V26.S4, V27.S4], (R14)
	ADD R1, R14
	VST1 [V28.S4, V29.S4, V30.S4, V31.S4], (R14)
	ADD R1<<2, R0
	ADD R3<<2, R2
	SUB $4, R6
	B drows4

drows1:
	CBZ R6, ddone

drow1:
	VMOV V8.B16, V16.B16
	VMOV V9.B16, V17.B16
	VMOV V10.B16, V18.B16
	VMOV V11.B16, V19.B16
	MOVD R4, R9
	MOVD R2, R10
	LSR $4, R7, R8
	CBZ R8, dgroups1

dloop1:
	VLD1.P 16(R10), [V4.B16]
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4f84e010 // sdot v16.4s, v0.16b, v4.4b[0]
	WORD $0x4f84e031 // sdot v17.4s, v1.16b, v4.4b[0]
	WORD $0x4f84e052 // sdot v18.4s, v2.16b, v4.4b[0]
	WORD $0x4f84e073 // sdot v19.4s, v3.16b, v4.4b[0]
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4fa4e010 // sdot v16.4s, v0.16b, v4.4b[1]
	WORD $0x4fa4e031 // sdot v17.4s, v1.16b, v4.4b[1]
	WORD $0x4fa4e052 // sdot v18.4s, v2.16b, v4.4b[1]
	WORD $0x4fa4e073 // sdot v19.4s, v3.16b, v4.4b[1]
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4f84e810 // sdot v16.4s, v0.16b, v4.4b[2]
	WORD $0x4f84e831 // sdot v17.4s, v1.16b, v4.4b[2]
	WORD $0x4f84e852 // sdot v18.4s, v2.16b, v4.4b[2]
	WORD $0x4f84e873 // sdot v19.4s, v3.16b, v4.4b[2]
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4fa4e810 // sdot v16.4s, v0.16b, v4.4b[3]
	WORD $0x4fa4e831 // sdot v17.4s, v1.16b, v4.4b[3]
	WORD $0x4fa4e852 // sdot v18.4s, v2.16b, v4.4b[3]
	WORD $0x4fa4e873 // sdot v19.4s, v3.16b, v4.4b[3]
	SUB $1, R8
	CBNZ R8, dloop1

dgroups1:
	UBFX $2, R7, $2, R8
	CBZ R8, dtail1

dloopg1:
	FMOVS.P 4(R10), F4
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4f84e010 // sdot v16.4s, v0.16b, v4.4b[0]
	WORD $0x4f84e031 // sdot v17.4s, v1.16b, v4.4b[0]
	WORD $0x4f84e052 // sdot v18.4s, v2.16b, v4.4b[0]
	WORD $0x4f84e073 // sdot v19.4s, v3.16b, v4.4b[0]
	SUB $1, R8
	CBNZ R8, dloopg1

dtail1:
	CBZ R15, dstore1
	MOVBU (R10), R19
	CMP $2, R15
	BLT dtail1a
	MOVBU 1(R10), R20
	ORR R20<<8, R19, R19
	CMP $3, R15
	BLT dtail1a
	MOVBU 2(R10), R20
	ORR R20<<16, R19, R19
dtail1a:
	VDUP R19, V4.S4
	VLD1.P 64(R9), [V0.B16, V1.B16, V2.B16, V3.B16]
	VEOR V14.B16, V0.B16, V0.B16
	VEOR V14.B16, V1.B16, V1.B16
	VEOR V14.B16, V2.B16, V2.B16
	VEOR V14.B16, V3.B16, V3.B16
	WORD $0x4f84e010 // sdot v16.4s, v0.16b, v4.4b[0]
	WORD $0x4f84e031 // sdot v17.4s, v1.16b, v4.4b[0]
	WORD $0x4f84e052 // sdot v18.4s, v2.16b, v4.4b[0]
	WORD $0x4f84e073 // sdot v19.4s, v3.16b, v4.4b[0]

dstore1:
	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (R0)
	ADD R1, R0
	ADD R3, R2
	SUB $1, R6
	CBNZ R6, drow1

ddone:
	RET

