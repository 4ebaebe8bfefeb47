//go:build !purego

package arch

// The arm64 BilinearF32 kernel (bilinear_neon_arm64.s), with the
// signature and contract of bilinearF32Generic (any length, including
// 0), registered at the neon level.

//go:noescape
func bilinearF32NEON(dst, p00, p01, p10, p11 []float32, w *[4]float32)

var _ = bilinearF32Impls.add("neon", NEON, nil, bilinearF32NEON)

// bilinearRowF32NEON has no row kernel: bilinearF32NEON per column from
// eight channels (below, the call costs more than its vectors save).
func bilinearRowF32NEON(dst, row0, row1 []float32, t *BilinearTaps, fy float32) {
	d := t.depth
	if d < 8 {
		bilinearRowF32Generic(dst, row0, row1, t, fy)
		return
	}
	for x, fx := range t.fx {
		w := bilinearWeights(fx, fy)
		lo, hi := int(t.off[2*x]), int(t.off[2*x+1])
		bilinearF32NEON(dst[x*d:x*d+d], row0[lo:], row0[hi:], row1[lo:], row1[hi:], &w)
	}
}

var _ = bilinearRowF32Impls.add("neon", NEON, nil, bilinearRowF32NEON)
