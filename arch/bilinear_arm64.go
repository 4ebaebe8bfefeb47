//go:build !purego

package arch

// The arm64 BilinearF32 kernel (bilinear_neon_arm64.s), with the
// signature and contract of bilinearF32Generic (any length, including
// 0), registered at the neon level.

//go:noescape
func bilinearF32NEON(dst, p00, p01, p10, p11 []float32, w *[4]float32)

var _ = bilinearF32Impls.add("neon", NEON, nil, bilinearF32NEON)
