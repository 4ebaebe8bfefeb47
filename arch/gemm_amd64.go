//go:build !purego

package arch

// The amd64 GEMM kernels (gemm_f32_*_amd64.s, gemm_int8_*_amd64.s) and
// their registration. The assembly computes blocks of pixel rows against
// all output channels; these wrappers split the rows among the kernels
// and pass the channel tail masks. The exported wrappers in gemm.go have
// checked the sizes (m, n, k ≥ 1, slices long enough).

//go:noescape
func gemmF32R8AVX512(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, tail uint64)

//go:noescape
func gemmF32R4AVX512(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, tail uint64)

//go:noescape
func gemmF32R4AVX2(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, mlo, mhi *int32)

// gemmF32AVX512 runs the 8-row kernel over all full blocks of 8 rows
// (and a last block of 5-7 rows), and the 4-row kernel over a last block
// of 1-4 rows, so that at most 3 rows of work are wasted.
func gemmF32AVX512(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, n, k int, lo, hi float32) {
	tail := uint64(1)<<(n%GemmBlock) - 1
	m8 := m
	if r := m % 8; r > 0 && r <= 4 {
		m8 = m - r
	}
	if m8 > 0 {
		gemmF32R8AVX512(&dst[0], ldd, &a[0], lda, &w[0], &bias[0], m8, n, k, lo, hi, tail)
	}
	if m8 < m {
		gemmF32R4AVX512(&dst[m8*ldd], ldd, &a[m8*lda], lda, &w[0], &bias[0], m-m8, n, k, lo, hi, tail)
	}
}

// gemmF32AVX2 passes the VMASKMOVPS masks of the last channel block:
// lanes n%16 of the two 8-lane halves.
func gemmF32AVX2(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, n, k int, lo, hi float32) {
	t := n % GemmBlock
	lo8, hi8 := min(t, 8), max(t-8, 0)
	gemmF32R4AVX2(&dst[0], ldd, &a[0], lda, &w[0], &bias[0], m, n, k, lo, hi, &tailMask32[8-lo8], &tailMask32[8-hi8])
}

var (
	_ = gemmF32Impls.add("avx2", AVX2, nil, gemmF32AVX2)
	_ = gemmF32Impls.add("avx512", AVX512, nil, gemmF32AVX512)
)
