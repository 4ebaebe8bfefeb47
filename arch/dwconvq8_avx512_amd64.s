//go:build !purego

// AVX-512 kernels of DepthwiseQ8Requant and DepthwiseQ8Interleave
// (dwconvq8.go).
//
// dwq8VNNI: for each block of 16 channels (the last under the opmask K1)
// the output row goes in groups of 4 pixels whose int32 sums stay in
// Z0-Z3 (starting at the bias); each group and filter column loads one
// weight vector (16 channels × 4 filter rows, signed bytes) and adds, per
// pixel, the dot products of each lane's 4 input bytes (unsigned) with
// VPDPBUSD (wrapping, exact). With a second weight set (a.w2 ≠ 0) the
// same inputs are dotted with it too. The sums are requantised in
// registers as in dwconv_avx512_amd64.s (RQLEFT/RQCORE and the narrowing
// the flags allow) and stored as bytes. The 1-3 pixels left go one at a
// time.
//
// dwq8IlvVBMI: per 64 bytes of each of the 4 rows, two-table byte
// permutes pair rows 0/1 and 2/3, two-table word permutes pair the pairs,
// and the 256 interleaved bytes are XORed with the flip byte and stored.

#include "textflag.h"
#include "requant_channel_amd64.h"

#define Q_COLS 0
#define Q_C4 8
#define Q_GROUPS 16
#define Q_TW 24
#define Q_COLSTEP 32
#define Q_TAPSTEP 40
#define Q_GSTEP 48
#define Q_WGSTEP 56
#define Q_W2 64
#define Q_QP 72
#define Q_QSTRIDE 80
#define Q_ZP 88
#define Q_LO 92
#define Q_HI 96
#define Q_RQFLAGS 104
#define Q_W2BLK 112

// func dwq8VNNI(dst *byte, x *byte, w *int8, bias *int32, a *dwq8Args)
//
// BX args; R8 column step S, R9 3S; R12/R13 input/output of the current
// pixel group; R14 pixels left; R10/R11 input/weights of the current
// group; SI/DI of the current tap; DX/CX group/column counters; AX the
// second weight set's offset in the tap loops. Locals: the channel block's offset (input
// and weight bytes, 4 per channel) and its second weight set's offset
// (0: none). Z16 bias, Z8/Z13 weights, Z9-Z12
// inputs, Z4-Z7 temporaries.
TEXT ·dwq8VNNI(SB), NOSPLIT, $16-40
	MOVQ a+32(FP), BX
	MOVQ Q_COLSTEP(BX), R8
	LEAQ (R8)(R8*2), R9
	RQCONSTS(Q_ZP(BX), Q_LO(BX), Q_HI(BX), AX)
	MOVQ $0, cb-8(SP)

cblk:
	MOVQ  Q_C4(BX), CX
	SUBQ  cb-8(SP), CX
	SHRQ  $2, CX
	MOVL  $0xffff, AX
	CMPQ  CX, $16
	JGE   cmask
	MOVL  $1, AX
	SHLL  CX, AX
	DECL  AX

cmask:
	KMOVW       AX, K1

	// The block's second weight set: a.w2 unless w2blk says it is 0.
	MOVQ  $0, w2c-16(SP)
	MOVQ  Q_W2(BX), AX
	TESTQ AX, AX
	JZ    w2done
	MOVQ  Q_W2BLK(BX), DX
	TESTQ DX, DX
	JZ    w2use
	MOVQ  cb-8(SP), CX
	SHRQ  $6, CX
	MOVBQZX (DX)(CX*1), DX
	TESTQ DX, DX
	JZ    w2done

w2use:
	MOVQ AX, w2c-16(SP)

w2done:
	MOVQ        bias+24(FP), AX
	ADDQ        cb-8(SP), AX
	VMOVDQU32.Z (AX), K1, Z16
	MOVQ        Q_QP(BX), AX
	ADDQ        cb-8(SP), AX
	MOVQ        Q_QSTRIDE(BX), CX
	VMOVDQU32   (AX), Z22
	ADDQ        CX, AX
	VMOVDQU32   (AX), Z23
	ADDQ        CX, AX
	VMOVDQU32   (AX), Z24
	ADDQ        CX, AX
	VMOVDQU32   (AX), Z25
	ADDQ        CX, AX
	VMOVDQU32   (AX), Z26
	ADDQ        CX, AX
	VMOVDQU32   (AX), Z27
	ADDQ        CX, AX
	KMOVW       (AX), K5
	MOVQ        x+8(FP), R12
	ADDQ        cb-8(SP), R12
	MOVQ        cb-8(SP), R13
	SHRQ        $2, R13
	ADDQ        dst+0(FP), R13
	MOVQ        Q_COLS(BX), R14

grp4:
	CMPQ      R14, $4
	JLT       single
	VMOVDQA64 Z16, Z0
	VMOVDQA64 Z16, Z1
	VMOVDQA64 Z16, Z2
	VMOVDQA64 Z16, Z3
	MOVQ      R12, R10
	MOVQ      w+16(FP), R11
	ADDQ      cb-8(SP), R11
	MOVQ      Q_GROUPS(BX), DX
	MOVQ      w2c-16(SP), AX

g4:
	MOVQ R10, SI
	MOVQ R11, DI
	MOVQ Q_TW(BX), CX

tx4:
	VMOVDQU32.Z (DI), K1, Z8
	VMOVDQU32.Z (SI), K1, Z9
	VMOVDQU32.Z (SI)(R8*1), K1, Z10
	VMOVDQU32.Z (SI)(R8*2), K1, Z11
	VMOVDQU32.Z (SI)(R9*1), K1, Z12
	VPDPBUSD    Z8, Z9, Z0
	VPDPBUSD    Z8, Z10, Z1
	VPDPBUSD    Z8, Z11, Z2
	VPDPBUSD    Z8, Z12, Z3
	TESTQ       AX, AX
	JZ          nextx4
	VMOVDQU32.Z (DI)(AX*1), K1, Z13
	VPDPBUSD    Z13, Z9, Z0
	VPDPBUSD    Z13, Z10, Z1
	VPDPBUSD    Z13, Z11, Z2
	VPDPBUSD    Z13, Z12, Z3

nextx4:
	ADDQ Q_TAPSTEP(BX), SI
	ADDQ Q_C4(BX), DI
	DECQ CX
	JNZ  tx4
	ADDQ Q_GSTEP(BX), R10
	ADDQ Q_WGSTEP(BX), R11
	DECQ DX
	JNZ  g4

	MOVQ  Q_C4(BX), AX
	SHRQ  $2, AX
	LEAQ  (AX)(AX*2), CX
	TESTQ $RQF_LEFT, Q_RQFLAGS(BX)
	JZ    noleft4
	RQLEFT(Z0)
	RQLEFT(Z1)
	RQLEFT(Z2)
	RQLEFT(Z3)

noleft4:
	RQCORE(Z0, Z4, Z5)
	RQCORE(Z1, Z6, Z7)
	RQCORE(Z2, Z4, Z5)
	RQCORE(Z3, Z6, Z7)
	TESTQ $RQF_SAT8, Q_RQFLAGS(BX)
	JNZ   sat4
	TESTQ $RQF_USAT8, Q_RQFLAGS(BX)
	JNZ   usat4
	RQCLAMP(Z0)
	RQCLAMP(Z1)
	RQCLAMP(Z2)
	RQCLAMP(Z3)
	VPMOVDB Z0, X0
	VPMOVDB Z1, X1
	VPMOVDB Z2, X2
	VPMOVDB Z3, X3
	JMP     narrowed4

sat4:
	VPMOVSDB Z0, X0
	VPMOVSDB Z1, X1
	VPMOVSDB Z2, X2
	VPMOVSDB Z3, X3
	JMP      narrowed4

usat4:
	VPMAXSD   Z31, Z0, Z0
	VPMAXSD   Z31, Z1, Z1
	VPMAXSD   Z31, Z2, Z2
	VPMAXSD   Z31, Z3, Z3
	VPMOVUSDB Z0, X0
	VPMOVUSDB Z1, X1
	VPMOVUSDB Z2, X2
	VPMOVUSDB Z3, X3

narrowed4:
	KORTESTW K1, K1
	JCC      rqpart4
	VMOVDQU  X0, (R13)
	VMOVDQU  X1, (R13)(AX*1)
	VMOVDQU  X2, (R13)(AX*2)
	VMOVDQU  X3, (R13)(CX*1)
	JMP      next4

rqpart4:
	VMOVDQU8 X0, K1, (R13)
	VMOVDQU8 X1, K1, (R13)(AX*1)
	VMOVDQU8 X2, K1, (R13)(AX*2)
	VMOVDQU8 X3, K1, (R13)(CX*1)

next4:
	LEAQ (R12)(R8*4), R12
	LEAQ (R13)(AX*4), R13
	SUBQ $4, R14
	JMP  grp4

single:
	TESTQ     R14, R14
	JZ        cdone
	VMOVDQA64 Z16, Z0
	MOVQ      R12, R10
	MOVQ      w+16(FP), R11
	ADDQ      cb-8(SP), R11
	MOVQ      Q_GROUPS(BX), DX
	MOVQ      w2c-16(SP), AX

g1:
	MOVQ R10, SI
	MOVQ R11, DI
	MOVQ Q_TW(BX), CX

tx1:
	VMOVDQU32.Z (DI), K1, Z8
	VMOVDQU32.Z (SI), K1, Z9
	VPDPBUSD    Z8, Z9, Z0
	TESTQ       AX, AX
	JZ          nextx1
	VMOVDQU32.Z (DI)(AX*1), K1, Z13
	VPDPBUSD    Z13, Z9, Z0

nextx1:
	ADDQ Q_TAPSTEP(BX), SI
	ADDQ Q_C4(BX), DI
	DECQ CX
	JNZ  tx1
	ADDQ Q_GSTEP(BX), R10
	ADDQ Q_WGSTEP(BX), R11
	DECQ DX
	JNZ  g1

	RQ16(Z0, Z4, Z5)
	VPMOVDB  Z0, X0
	VMOVDQU8 X0, K1, (R13)
	ADDQ     R8, R12
	MOVQ     Q_C4(BX), AX
	SHRQ     $2, AX
	ADDQ     AX, R13
	DECQ     R14
	JMP      single

cdone:
	ADDQ $64, cb-8(SP)
	MOVQ cb-8(SP), AX
	CMPQ AX, Q_C4(BX)
	JLT  cblk
	VZEROUPPER
	RET

// func dwq8IlvVBMI(q *byte, r0, r1, r2, r3 *byte, n int, flip uint64, tbl *[4][64]byte)
//
// n blocks of 64 bytes of each row. Z20-Z23 the index tables, Z24 the
// flip byte in every lane.
TEXT ·dwq8IlvVBMI(SB), NOSPLIT, $0-64
	MOVQ         q+0(FP), DI
	MOVQ         r0+8(FP), R8
	MOVQ         r1+16(FP), R9
	MOVQ         r2+24(FP), R10
	MOVQ         r3+32(FP), R11
	MOVQ         n+40(FP), CX
	VPBROADCASTQ flip+48(FP), Z24
	MOVQ         tbl+56(FP), AX
	VMOVDQU64    (AX), Z20
	VMOVDQU64    64(AX), Z21
	VMOVDQU64    128(AX), Z22
	VMOVDQU64    192(AX), Z23

ilv:
	VMOVDQU64 (R8), Z0
	VMOVDQU64 (R9), Z1
	VMOVDQU64 (R10), Z2
	VMOVDQU64 (R11), Z3
	VMOVDQA64 Z20, Z4
	VPERMI2B  Z1, Z0, Z4
	VMOVDQA64 Z21, Z5
	VPERMI2B  Z1, Z0, Z5
	VMOVDQA64 Z20, Z6
	VPERMI2B  Z3, Z2, Z6
	VMOVDQA64 Z21, Z7
	VPERMI2B  Z3, Z2, Z7
	VMOVDQA64 Z22, Z8
	VPERMI2W  Z6, Z4, Z8
	VMOVDQA64 Z23, Z9
	VPERMI2W  Z6, Z4, Z9
	VMOVDQA64 Z22, Z10
	VPERMI2W  Z7, Z5, Z10
	VMOVDQA64 Z23, Z11
	VPERMI2W  Z7, Z5, Z11
	VPXORQ    Z24, Z8, Z8
	VPXORQ    Z24, Z9, Z9
	VPXORQ    Z24, Z10, Z10
	VPXORQ    Z24, Z11, Z11
	VMOVDQU64 Z8, (DI)
	VMOVDQU64 Z9, 64(DI)
	VMOVDQU64 Z10, 128(DI)
	VMOVDQU64 Z11, 192(DI)
	ADDQ      $64, R8
	ADDQ      $64, R9
	ADDQ      $64, R10
	ADDQ      $64, R11
	ADDQ      $256, DI
	DECQ      CX
	JNZ       ilv
	VZEROUPPER
	RET
