//go:build !purego

// AVX-512 VecScalarF32 (see vecscalar.go): thirty-two floats per step
// (two vectors), then sixteen, then the last len%16 under an opmask, one
// loop per operation. VADDPS and VMULPS take a[i] as the first source as
// Go's a[i] + y does; SUB's are VSUBPS a − y and y − a.

#include "textflag.h"

// func vecScalarF32AVX512(dst, a []float32, y float32, op int)
//
// DI dst, SI a, CX len, AX index, R8 len rounded down to 32, R9 len
// rounded down to 16, Z8 y, K1 the tail's lanes.
TEXT ·vecScalarF32AVX512(SB), NOSPLIT, $0-64
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         a_base+24(FP), SI
	VBROADCASTSS y+48(FP), Z8
	MOVQ         CX, R8
	ANDQ         $-32, R8
	MOVQ         CX, R9
	ANDQ         $-16, R9
	MOVQ         CX, R10
	ANDQ         $15, CX
	MOVL         $1, BX
	SHLL         CX, BX
	DECL         BX
	KMOVW        BX, K1
	MOVQ         R10, CX
	XORQ         AX, AX
	MOVQ         op+56(FP), DX
	CMPQ         DX, $1
	JEQ          mul32
	CMPQ         DX, $2
	JEQ          sub32
	CMPQ         DX, $3
	JEQ          rsub32

add32:
	CMPQ    AX, R8
	JGE     add16
	VMOVUPS (SI)(AX*4), Z0
	VMOVUPS 64(SI)(AX*4), Z1
	VADDPS Z8, Z0, Z0
	VADDPS Z8, Z1, Z1
	VMOVUPS Z0, (DI)(AX*4)
	VMOVUPS Z1, 64(DI)(AX*4)
	ADDQ    $32, AX
	JMP     add32

add16:
	CMPQ    AX, R9
	JGE     addtail
	VMOVUPS (SI)(AX*4), Z0
	VADDPS Z8, Z0, Z0
	VMOVUPS Z0, (DI)(AX*4)
	ADDQ    $16, AX

addtail:
	CMPQ      AX, CX
	JGE       done
	VMOVUPS.Z (SI)(AX*4), K1, Z0
	VADDPS Z8, Z0, Z0
	VMOVUPS   Z0, K1, (DI)(AX*4)
	JMP       done

mul32:
	CMPQ    AX, R8
	JGE     mul16
	VMOVUPS (SI)(AX*4), Z0
	VMOVUPS 64(SI)(AX*4), Z1
	VMULPS Z8, Z0, Z0
	VMULPS Z8, Z1, Z1
	VMOVUPS Z0, (DI)(AX*4)
	VMOVUPS Z1, 64(DI)(AX*4)
	ADDQ    $32, AX
	JMP     mul32

mul16:
	CMPQ    AX, R9
	JGE     multail
	VMOVUPS (SI)(AX*4), Z0
	VMULPS Z8, Z0, Z0
	VMOVUPS Z0, (DI)(AX*4)
	ADDQ    $16, AX

multail:
	CMPQ      AX, CX
	JGE       done
	VMOVUPS.Z (SI)(AX*4), K1, Z0
	VMULPS Z8, Z0, Z0
	VMOVUPS   Z0, K1, (DI)(AX*4)
	JMP       done

sub32:
	CMPQ    AX, R8
	JGE     sub16
	VMOVUPS (SI)(AX*4), Z0
	VMOVUPS 64(SI)(AX*4), Z1
	VSUBPS Z8, Z0, Z0
	VSUBPS Z8, Z1, Z1
	VMOVUPS Z0, (DI)(AX*4)
	VMOVUPS Z1, 64(DI)(AX*4)
	ADDQ    $32, AX
	JMP     sub32

sub16:
	CMPQ    AX, R9
	JGE     subtail
	VMOVUPS (SI)(AX*4), Z0
	VSUBPS Z8, Z0, Z0
	VMOVUPS Z0, (DI)(AX*4)
	ADDQ    $16, AX

subtail:
	CMPQ      AX, CX
	JGE       done
	VMOVUPS.Z (SI)(AX*4), K1, Z0
	VSUBPS Z8, Z0, Z0
	VMOVUPS   Z0, K1, (DI)(AX*4)
	JMP       done

rsub32:
	CMPQ    AX, R8
	JGE     rsub16
	VMOVUPS (SI)(AX*4), Z0
	VMOVUPS 64(SI)(AX*4), Z1
	VSUBPS Z0, Z8, Z0
	VSUBPS Z1, Z8, Z1
	VMOVUPS Z0, (DI)(AX*4)
	VMOVUPS Z1, 64(DI)(AX*4)
	ADDQ    $32, AX
	JMP     rsub32

rsub16:
	CMPQ    AX, R9
	JGE     rsubtail
	VMOVUPS (SI)(AX*4), Z0
	VSUBPS Z0, Z8, Z0
	VMOVUPS Z0, (DI)(AX*4)
	ADDQ    $16, AX

rsubtail:
	CMPQ      AX, CX
	JGE       done
	VMOVUPS.Z (SI)(AX*4), K1, Z0
	VSUBPS Z0, Z8, Z0
	VMOVUPS   Z0, K1, (DI)(AX*4)
	JMP       done

done:
	VZEROUPPER
	RET
