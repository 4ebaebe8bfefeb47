//go:build !purego

package arch

// vecScalarF32AVX512 is VecScalarF32 for any length
// (vecscalar_avx512_amd64.s).
//
//go:noescape
func vecScalarF32AVX512(dst, a []float32, y float32, op int)

var _ = vecScalarF32Impls.add("avx512", AVX512, nil, vecScalarF32AVX512)
