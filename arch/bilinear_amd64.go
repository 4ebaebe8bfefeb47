//go:build !purego

package arch

// The amd64 BilinearF32 kernel (bilinear_avx2_amd64.s), with the
// signature and contract of bilinearF32Generic (any length, including 0).

//go:noescape
func bilinearF32AVX2(dst, p00, p01, p10, p11 []float32, w *[4]float32)

var _ = bilinearF32Impls.add("avx2", AVX2, nil, bilinearF32AVX2)
