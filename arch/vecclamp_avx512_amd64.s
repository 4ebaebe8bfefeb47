//go:build !purego

// AVX-512 VecClamp (see vecclamp.go and the AVX2 file for the operand order
// that gives std::max/std::min's results).

#include "textflag.h"

// func vecClampAVX512(v []float32, lo, hi float32)
//
// Sixty-four values per step, then sixteen, then the last len%16 under
// the opmask K1. DI v, CX len, AX index, R8 end of the 64-value steps, R9
// end of the 16-value steps; Z14 lo, Z15 hi.
TEXT ·vecClampAVX512(SB), NOSPLIT, $0-32
	MOVQ         v_base+0(FP), DI
	MOVQ         v_len+8(FP), CX
	VBROADCASTSS lo+24(FP), Z14
	VBROADCASTSS hi+28(FP), Z15
	MOVQ         CX, R8
	ANDQ         $-64, R8
	MOVQ         CX, R9
	ANDQ         $-16, R9
	XORQ         AX, AX
	CMPQ         AX, R8
	JGE          loop16

loop64:
	VMOVUPS (DI)(AX*4), Z0
	VMOVUPS 64(DI)(AX*4), Z1
	VMOVUPS 128(DI)(AX*4), Z2
	VMOVUPS 192(DI)(AX*4), Z3
	VMAXPS  Z0, Z14, Z0
	VMAXPS  Z1, Z14, Z1
	VMAXPS  Z2, Z14, Z2
	VMAXPS  Z3, Z14, Z3
	VMINPS  Z0, Z15, Z0
	VMINPS  Z1, Z15, Z1
	VMINPS  Z2, Z15, Z2
	VMINPS  Z3, Z15, Z3
	VMOVUPS Z0, (DI)(AX*4)
	VMOVUPS Z1, 64(DI)(AX*4)
	VMOVUPS Z2, 128(DI)(AX*4)
	VMOVUPS Z3, 192(DI)(AX*4)
	ADDQ    $64, AX
	CMPQ    AX, R8
	JLT     loop64

loop16:
	CMPQ    AX, R9
	JGE     tail
	VMOVUPS (DI)(AX*4), Z0
	VMAXPS  Z0, Z14, Z0
	VMINPS  Z0, Z15, Z0
	VMOVUPS Z0, (DI)(AX*4)
	ADDQ    $16, AX
	JMP     loop16

tail:
	ANDQ      $15, CX
	JZ        done
	MOVL      $1, BX
	SHLL      CX, BX
	DECL      BX
	KMOVW     BX, K1
	VMOVUPS.Z (DI)(AX*4), K1, Z0
	VMAXPS    Z0, Z14, Z0
	VMINPS    Z0, Z15, Z0
	VMOVUPS   Z0, K1, (DI)(AX*4)

done:
	VZEROUPPER
	RET
