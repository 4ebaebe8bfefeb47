//go:build !purego

// AVX2 RepeatF32 (see repeat.go).

#include "textflag.h"

// func repeatF32AVX2(dst, src []float32, mult int)
//
// Per value: one broadcast load, then eight-lane stores over the block's
// mult values and single stores for the last mult%8. The value is loaded
// before its block is stored, which keeps the in-place use (src the tail
// of dst) correct. DI dst block, SI src, DX values left, CX mult, R9 end
// of the eight-lane stores, R10 block bytes, AX index in the block.
TEXT ·repeatF32AVX2(SB), NOSPLIT, $0-56
	MOVQ  dst_base+0(FP), DI
	MOVQ  src_base+24(FP), SI
	MOVQ  src_len+32(FP), DX
	MOVQ  mult+48(FP), CX
	TESTQ DX, DX
	JLE   done
	TESTQ CX, CX
	JLE   done
	MOVQ  CX, R9
	ANDQ  $-8, R9
	MOVQ  CX, R10
	SHLQ  $2, R10

value:
	VBROADCASTSS (SI), Y0
	XORQ         AX, AX
	CMPQ         AX, R9
	JGE          tail

eight:
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, R9
	JLT     eight

tail:
	CMPQ   AX, CX
	JGE    next
	VMOVSS X0, (DI)(AX*4)
	INCQ   AX
	JMP    tail

next:
	ADDQ $4, SI
	ADDQ R10, DI
	DECQ DX
	JNZ  value

done:
	VZEROUPPER
	RET
