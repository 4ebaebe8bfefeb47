//go:build !purego

package arch

// vecScalarF32NEON is VecScalarF32 for any length
// (vecscalar_neon_arm64.s), registered at the neon level (ASIMD is part
// of every arm64 CPU).
//
//go:noescape
func vecScalarF32NEON(dst, a []float32, y float32, op int)

var _ = vecScalarF32Impls.add("neon", NEON, nil, vecScalarF32NEON)
