//go:build !purego

package arch

// The AVX2 kernel of gemvCol (gemvcol_avx2_amd64.s) and its
// registration.

//go:noescape
func gemvColAVX2(dst *float32, ldd int, a *float32, lda int, w *float32, bias float32, m, k int, lo, hi float32)

// gemvColAVX2Go checks the bounds gemvColGeneric would and runs the
// kernel.
func gemvColAVX2Go(dst []float32, ldd int, a []float32, lda int, w []float32, bias float32, m, k int, lo, hi float32) {
	if m <= 0 || k <= 0 {
		return
	}
	_ = dst[(m-1)*ldd]
	_ = a[(m-1)*lda+k-1]
	_ = w[GemmBlock*(k-1)]
	gemvColAVX2(&dst[0], ldd, &a[0], lda, &w[0], bias, m, k, lo, hi)
}

var _ = gemvColImpls.add("avx2", AVX2, nil, gemvColAVX2Go)
