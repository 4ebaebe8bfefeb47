//go:build !purego

package arch

// The arm64 widening conversion (convert_neon_arm64.s), with the
// signature and contract of int8ToF32Generic (any length, including 0),
// registered at the neon level (ASIMD is part of every arm64 CPU).

//go:noescape
func int8ToF32NEON(dst []float32, src []byte, offset int32, unsigned bool)

var _ = int8ToF32Impls.add("neon", NEON, nil, int8ToF32NEON)
