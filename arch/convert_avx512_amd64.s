//go:build !purego

// AVX-512 Int8ToF32 / Uint8ToF32 (convert.go): 16 bytes per step
// sign- or zero-extended to dwords (VPMOVSXBD / VPMOVZXBD), the offset
// added in int32, converted (VCVTDQ2PS, exact below 2^24), stored; the
// last n%16 under an opmask (masked loads and stores neither read nor
// write past the ends).

#include "textflag.h"

// func int8ToF32AVX512(dst *float32, src *byte, n int, offset int32, unsigned bool)
TEXT ·int8ToF32AVX512(SB), NOSPLIT, $0-29
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVL         offset+24(FP), AX
	VPBROADCASTD AX, Z15
	MOVBLZX      unsigned+28(FP), AX
	TESTL        AX, AX
	JNZ          u16

s16:
	CMPQ       CX, $16
	JLT        stail
	VPMOVSXBD  (SI), Z0
	VPADDD     Z15, Z0, Z0
	VCVTDQ2PS  Z0, Z0
	VMOVUPS    Z0, (DI)
	ADDQ       $16, SI
	ADDQ       $64, DI
	SUBQ       $16, CX
	JMP        s16

stail:
	TESTQ       CX, CX
	JZ          done
	MOVL        $1, AX
	SHLL        CX, AX
	DECL        AX
	KMOVW       AX, K1
	VMOVDQU8.Z  (SI), K1, X0
	VPMOVSXBD   X0, Z0
	VPADDD      Z15, Z0, Z0
	VCVTDQ2PS   Z0, Z0
	VMOVUPS     Z0, K1, (DI)
	JMP         done

u16:
	CMPQ       CX, $16
	JLT        utail
	VPMOVZXBD  (SI), Z0
	VPADDD     Z15, Z0, Z0
	VCVTDQ2PS  Z0, Z0
	VMOVUPS    Z0, (DI)
	ADDQ       $16, SI
	ADDQ       $64, DI
	SUBQ       $16, CX
	JMP        u16

utail:
	TESTQ       CX, CX
	JZ          done
	MOVL        $1, AX
	SHLL        CX, AX
	DECL        AX
	KMOVW       AX, K1
	VMOVDQU8.Z  (SI), K1, X0
	VPMOVZXBD   X0, Z0
	VPADDD      Z15, Z0, Z0
	VCVTDQ2PS   Z0, Z0
	VMOVUPS     Z0, K1, (DI)

done:
	VZEROUPPER
	RET
