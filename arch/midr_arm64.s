//go:build !purego

#include "textflag.h"

// func mrsMIDR() uint64
//
// MIDR_EL1 of the calling core. From EL0 the read traps; Linux emulates
// it (and the other ID registers) where HWCAP_CPUID is set, which the
// caller checks.
TEXT ·mrsMIDR(SB), NOSPLIT, $0-8
	MRS  MIDR_EL1, R0
	MOVD R0, ret+0(FP)
	RET
