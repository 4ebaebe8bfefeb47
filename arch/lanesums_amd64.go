//go:build !purego

package arch

import "unsafe"

// The AVX2 kernel of laneSums4 (lanesums_avx2_amd64.s) and its
// registration.

//go:noescape
func laneSums4AVX2(out *float32, a *float32, lda int, w *float32, m, k4 int)

func laneSums4AVX2Go(out, a []float32, lda int, w []float32, m, k4 int) {
	if m == 0 {
		return
	}
	_ = out[4*m-1]
	if k4 > 0 {
		_ = a[(m-1)*lda+k4-1]
		_ = w[k4-1]
	}
	laneSums4AVX2(&out[0], unsafe.SliceData(a), lda, unsafe.SliceData(w), m, k4)
}

var _ = laneSums4Impls.add("avx2", AVX2, nil, laneSums4AVX2Go)
