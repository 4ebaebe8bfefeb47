//go:build !purego

package arch

// The amd64 packed matrix × vector kernels (packed_avx2_amd64.s,
// packed_avx512_amd64.s), with the signature and contract of
// matVecMulAccPackedGeneric; MatVecMulAccPacked has checked the sizes
// (rows, cols ≥ 1, slices long enough).

//go:noescape
func matVecMulAccPackedAVX2(dst, p []float32, rows, cols int, x []float32)

//go:noescape
func matVecMulAccPackedAVX512(dst, p []float32, rows, cols int, x []float32)

var (
	_ = matVecMulAccPackedImpls.add("avx2", AVX2, nil, matVecMulAccPackedAVX2)
	_ = matVecMulAccPackedImpls.add("avx512", AVX512, nil, matVecMulAccPackedAVX512)
)
