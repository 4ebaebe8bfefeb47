//go:build !purego

package arch

// The arm64 VecClamp kernel (vecclamp_neon_arm64.s), with the signature
// and contract of vecClampGeneric (any length, including 0), registered
// at the neon level (ASIMD is part of every arm64 CPU).

//go:noescape
func vecClampNEON(v []float32, lo, hi float32)

var _ = vecClampImpls.add("neon", NEON, nil, vecClampNEON)
