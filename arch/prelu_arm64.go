//go:build !purego

package arch

// The arm64 PReluF32 and LeakyReluF32 kernels (prelu_neon_arm64.s), with
// the signatures and contracts of their portable twins (any length,
// including 0), registered at the neon level (ASIMD is part of every
// arm64 CPU; AArch64 keeps subnormals unless FPCR.FZ is set, which Go
// never does).

//go:noescape
func preluF32NEON(dst, x, alpha []float32)

//go:noescape
func leakyReluF32NEON(dst, x []float32, alpha float32)

var (
	_ = preluF32Impls.add("neon", NEON, nil, preluF32NEON)
	_ = leakyReluF32Impls.add("neon", NEON, nil, leakyReluF32NEON)
)
