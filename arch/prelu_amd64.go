//go:build !purego

package arch

// The amd64 PReluF32 and LeakyReluF32 kernels (prelu_avx2_amd64.s), with
// the signatures and contracts of their portable twins (any length,
// including 0).

//go:noescape
func preluF32AVX2(dst, x, alpha []float32)

//go:noescape
func leakyReluF32AVX2(dst, x []float32, alpha float32)

var (
	_ = preluF32Impls.add("avx2", AVX2, nil, preluF32AVX2)
	_ = leakyReluF32Impls.add("avx2", AVX2, nil, leakyReluF32AVX2)
)
