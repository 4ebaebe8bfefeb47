//go:build !purego

package arch

import "unsafe"

// The AVX2 kernel of gemvRow16 (gemvrow_avx2_amd64.s) and its
// registration.

//go:noescape
func gemvRow16AVX2(dst, a, w, bias *float32, k int, lo, hi float32)

// gemvRow16AVX2Go runs the AVX2 kernel on a full block of 16 channels
// and the portable one on a shorter last block (the kernel stores 16).
func gemvRow16AVX2Go(dst, a, w, bias []float32, nc, k int, lo, hi float32) {
	if nc < GemmBlock || k == 0 {
		gemvRow16Generic(dst, a, w, bias, nc, k, lo, hi)
		return
	}
	_ = dst[GemmBlock-1]
	_ = bias[GemmBlock-1]
	_ = a[k-1]
	_ = w[GemmBlock*k-1]
	gemvRow16AVX2(&dst[0], unsafe.SliceData(a), unsafe.SliceData(w), &bias[0], k, lo, hi)
}

var _ = gemvRow16Impls.add("avx2", AVX2, nil, gemvRow16AVX2Go)
