//go:build !purego

// AVX2 VecScalarF32 (see vecscalar.go), the twin of
// vecscalar_avx512_amd64.s for x86 without AVX-512: sixteen floats per
// step (two vectors), then eight, then the last len%8 loaded and stored
// under a ·tailMask32 mask (VMASKMOVPS neither reads nor faults on the
// lanes it leaves, and dst may be a), one loop per operation. VADDPS and
// VMULPS take a[i] as the first source as Go's a[i] + y does; SUB's are
// VSUBPS a − y and y − a.

#include "textflag.h"

#define ADDOP(r) VADDPS Y8, r, r
#define MULOP(r) VMULPS Y8, r, r
#define SUBOP(r) VSUBPS Y8, r, r
#define RSUBOP(r) VSUBPS r, Y8, r

// VSLOOP(OP, l16, l8, ltail): the loop of one operation, its labels
// l16, l8 and ltail. DI dst, SI a, CX len, AX index, R8 len rounded down
// to 16, R9 to 8, Y15 the tail's mask.
#define VSLOOP(OP, l16, l8, ltail) \
l16:                               \
	CMPQ       AX, R8              \
	JGE        l8                  \
	VMOVUPS    (SI)(AX*4), Y0      \
	VMOVUPS    32(SI)(AX*4), Y1    \
	OP(Y0)                         \
	OP(Y1)                         \
	VMOVUPS    Y0, (DI)(AX*4)      \
	VMOVUPS    Y1, 32(DI)(AX*4)    \
	ADDQ       $16, AX             \
	JMP        l16                 \
l8:                                \
	CMPQ       AX, R9              \
	JGE        ltail               \
	VMOVUPS    (SI)(AX*4), Y0      \
	OP(Y0)                         \
	VMOVUPS    Y0, (DI)(AX*4)      \
	ADDQ       $8, AX              \
ltail:                             \
	CMPQ       AX, CX              \
	JGE        done                \
	VMASKMOVPS (SI)(AX*4), Y15, Y0 \
	OP(Y0)                         \
	VMASKMOVPS Y0, Y15, (DI)(AX*4) \
	JMP        done

// func vecScalarF32AVX2(dst, a []float32, y float32, op int)
TEXT ·vecScalarF32AVX2(SB), NOSPLIT, $0-64
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         a_base+24(FP), SI
	VBROADCASTSS y+48(FP), Y8
	MOVQ         CX, R8
	ANDQ         $-16, R8
	MOVQ         CX, R9
	ANDQ         $-8, R9
	MOVQ         CX, BX
	ANDQ         $7, BX
	MOVQ         $8, R10
	SUBQ         BX, R10
	LEAQ         ·tailMask32(SB), BX
	VMOVDQU      (BX)(R10*4), Y15
	XORQ         AX, AX
	MOVQ         op+56(FP), DX
	CMPQ         DX, $1
	JEQ          mul16
	CMPQ         DX, $2
	JEQ          sub16
	CMPQ         DX, $3
	JEQ          rsub16
	VSLOOP(ADDOP, add16, add8, addtail)
	VSLOOP(MULOP, mul16, mul8, multail)
	VSLOOP(SUBOP, sub16, sub8, subtail)
	VSLOOP(RSUBOP, rsub16, rsub8, rsubtail)

done:
	VZEROUPPER
	RET
