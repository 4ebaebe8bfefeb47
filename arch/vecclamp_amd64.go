//go:build !purego

package arch

// The amd64 VecClamp kernels (vecclamp_avx2_amd64.s, vecclamp_avx512_amd64.s),
// with the signature and contract of vecClampGeneric (any length,
// including 0).

//go:noescape
func vecClampAVX2(v []float32, lo, hi float32)

//go:noescape
func vecClampAVX512(v []float32, lo, hi float32)

var (
	_ = vecClampImpls.add("avx2", AVX2, nil, vecClampAVX2)
	_ = vecClampImpls.add("avx512", AVX512, nil, vecClampAVX512)
)
