//go:build !purego

package arch

// The amd64 RepeatF32 kernel (repeat_avx2_amd64.s), with the signature
// and contract of repeatF32Generic; the AVX-512 level uses it too (an
// eight-lane store per value is what the multipliers of the models
// need).

//go:noescape
func repeatF32AVX2(dst, src []float32, mult int)

var _ = repeatF32Impls.add("avx2", AVX2, nil, repeatF32AVX2)
