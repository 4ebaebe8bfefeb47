//go:build !purego

package arch

// vecScalarF32AVX2 is VecScalarF32 for any length
// (vecscalar_avx2_amd64.s).
//
//go:noescape
func vecScalarF32AVX2(dst, a []float32, y float32, op int)

// vecScalarF32AVX512 is VecScalarF32 for any length
// (vecscalar_avx512_amd64.s).
//
//go:noescape
func vecScalarF32AVX512(dst, a []float32, y float32, op int)

var (
	_ = vecScalarF32Impls.add("avx2", AVX2, nil, vecScalarF32AVX2)
	_ = vecScalarF32Impls.add("avx512", AVX512, nil, vecScalarF32AVX512)
)
