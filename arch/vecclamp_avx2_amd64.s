//go:build !purego

// AVX2 VecClamp (see vecclamp.go): VMAXPS with lo as the first and v[i] as
// the second source, then VMINPS with hi first: each returns its second
// source for NaN or two zeros, which is std::max/std::min's choice here.

#include "textflag.h"

// func vecClampAVX2(v []float32, lo, hi float32)
//
// Thirty-two values per step, then eight, then the last len%8 through
// VMASKMOVPS (no access beyond the mask). DI v, CX len, AX index,
// R8 end of the 32-value steps, R9 end of the 8-value steps; Y14 lo,
// Y15 hi, Y13 tail mask.
TEXT ·vecClampAVX2(SB), NOSPLIT, $0-32
	MOVQ         v_base+0(FP), DI
	MOVQ         v_len+8(FP), CX
	VBROADCASTSS lo+24(FP), Y14
	VBROADCASTSS hi+28(FP), Y15
	MOVQ         CX, R8
	ANDQ         $-32, R8
	MOVQ         CX, R9
	ANDQ         $-8, R9
	XORQ         AX, AX
	CMPQ         AX, R8
	JGE          loop8

loop32:
	VMOVUPS (DI)(AX*4), Y0
	VMOVUPS 32(DI)(AX*4), Y1
	VMOVUPS 64(DI)(AX*4), Y2
	VMOVUPS 96(DI)(AX*4), Y3
	VMAXPS  Y0, Y14, Y0
	VMAXPS  Y1, Y14, Y1
	VMAXPS  Y2, Y14, Y2
	VMAXPS  Y3, Y14, Y3
	VMINPS  Y0, Y15, Y0
	VMINPS  Y1, Y15, Y1
	VMINPS  Y2, Y15, Y2
	VMINPS  Y3, Y15, Y3
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	VMOVUPS Y2, 64(DI)(AX*4)
	VMOVUPS Y3, 96(DI)(AX*4)
	ADDQ    $32, AX
	CMPQ    AX, R8
	JLT     loop32

loop8:
	CMPQ    AX, R9
	JGE     tail
	VMOVUPS (DI)(AX*4), Y0
	VMAXPS  Y0, Y14, Y0
	VMINPS  Y0, Y15, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     loop8

tail:
	ANDQ       $7, CX
	JZ         done
	LEAQ       ·tailMask32(SB), BX
	NEGQ       CX
	VMOVDQU    32(BX)(CX*4), Y13
	VMASKMOVPS (DI)(AX*4), Y13, Y0
	VMAXPS     Y0, Y14, Y0
	VMINPS     Y0, Y15, Y0
	VMASKMOVPS Y0, Y13, (DI)(AX*4)

done:
	VZEROUPPER
	RET
