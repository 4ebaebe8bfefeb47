//go:build !purego

package arch

// The amd64 float32 kernels (float32_avx2_amd64.s, float32_avx512_amd64.s)
// and their registration. Each assembly function has the signature and
// contract of its portable twin in float32_generic.go; the exported
// wrappers in float32.go have already checked the slice lengths, so the
// kernels may assume rows, cols > 0 and in-bounds slices.

//go:noescape
func matVecMulAccAVX2(dst, m []float32, rows, cols int, x []float32)

//go:noescape
func matVecMulAccAVX512(dst, m []float32, rows, cols int, x []float32)

//go:noescape
func vecAddAVX2(dst, a, b []float32)

//go:noescape
func vecMulAVX2(dst, a, b []float32)

//go:noescape
func vecMulAccAVX2(dst, a, b []float32)

//go:noescape
func vecAddAVX512(dst, a, b []float32)

//go:noescape
func vecMulAVX512(dst, a, b []float32)

//go:noescape
func vecMulAccAVX512(dst, a, b []float32)

// tailMask32 is eight all-ones dwords then eight zero dwords: the eight
// dwords at element 8-t have their first t lanes set (a VMASKMOVPS mask
// for a tail of t < 8 floats).
var tailMask32 = [16]int32{-1, -1, -1, -1, -1, -1, -1, -1}

// dotAVX2 and dotAVX512 are the matrix-vector kernels on a 1×n matrix.
func dotAVX2(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	var s [1]float32
	matVecMulAccAVX2(s[:], a, 1, len(a), b)
	return s[0]
}

func dotAVX512(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	var s [1]float32
	matVecMulAccAVX512(s[:], a, 1, len(a), b)
	return s[0]
}

var (
	_ = matVecMulAccImpls.add("avx2", AVX2, nil, matVecMulAccAVX2)
	_ = matVecMulAccImpls.add("avx512", AVX512, nil, matVecMulAccAVX512)
	_ = dotImpls.add("avx2", AVX2, nil, dotAVX2)
	_ = dotImpls.add("avx512", AVX512, nil, dotAVX512)
	_ = vecAddImpls.add("avx2", AVX2, nil, vecAddAVX2)
	_ = vecAddImpls.add("avx512", AVX512, nil, vecAddAVX512)
	_ = vecMulImpls.add("avx2", AVX2, nil, vecMulAVX2)
	_ = vecMulImpls.add("avx512", AVX512, nil, vecMulAVX512)
	_ = vecMulAccImpls.add("avx2", AVX2, nil, vecMulAccAVX2)
	_ = vecMulAccImpls.add("avx512", AVX512, nil, vecMulAccAVX512)
)
