//go:build !purego

// AVX-512 VBMI LookupBytes (see lookup.go). VPERMI2B looks 64 indices up
// in a 128-byte table held in two ZMM registers (index bits 0-6), so the
// table's two halves give two candidate results and bit 7 of each index
// (VPMOVB2M) picks one with VPBLENDMB. The last len%64 bytes go through
// zero-masked loads and a masked store (no access beyond the mask).

#include "textflag.h"

// func lookupBytesVBMI(dst, src []byte, table *[256]byte)
//
// DI dst, SI src, DX table, CX bytes left; Z16-Z19 the table, K1 the
// upper-half lanes, K2 the tail's lanes.
TEXT ·lookupBytesVBMI(SB), NOSPLIT, $0-56
	MOVQ      dst_base+0(FP), DI
	MOVQ      src_base+24(FP), SI
	MOVQ      src_len+32(FP), CX
	MOVQ      table+48(FP), DX
	VMOVDQU64 (DX), Z16
	VMOVDQU64 64(DX), Z17
	VMOVDQU64 128(DX), Z18
	VMOVDQU64 192(DX), Z19
	CMPQ      CX, $64
	JLT       tail

loop:
	VMOVDQU64 (SI), Z0
	VMOVDQA64 Z0, Z1
	VPMOVB2M  Z0, K1
	VPERMI2B  Z17, Z16, Z1
	VPERMI2B  Z19, Z18, Z0
	VPBLENDMB Z0, Z1, K1, Z2
	VMOVDQU64 Z2, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $64, CX
	CMPQ      CX, $64
	JGE       loop

tail:
	TESTQ      CX, CX
	JZ         done
	MOVQ       $1, AX
	SHLQ       CX, AX
	DECQ       AX
	KMOVQ      AX, K2
	VMOVDQU8.Z (SI), K2, Z0
	VMOVDQA64  Z0, Z1
	VPMOVB2M   Z0, K1
	VPERMI2B   Z17, Z16, Z1
	VPERMI2B   Z19, Z18, Z0
	VPBLENDMB  Z0, Z1, K1, Z2
	VMOVDQU8   Z2, K2, (DI)

done:
	VZEROUPPER
	RET
