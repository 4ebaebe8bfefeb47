package arch

// Float bilinear blending: the innermost loop of TFLite's float
// RESIZE_BILINEAR (one output pixel's channels from the four source
// pixels around it). Portable code in bilinear_generic.go, assembly twins
// in bilinear_avx2_amd64.s and bilinear_neon_arm64.s.

var (
	bilinearF32      func(dst, p00, p01, p10, p11 []float32, w *[4]float32)
	bilinearF32Impls = newImpls("BilinearF32", &bilinearF32, bilinearF32Generic)
)

// BilinearF32 sets, for i < len(dst),
//
//	dst[i] = (((0 + p00[i]·w[0]) + p01[i]·w[1]) + p10[i]·w[2]) + p11[i]·w[3]
//
// with every product and sum rounded to float32 on its own (no fused
// multiply-add): the order of TFLite's ResizeBilinearGeneric, which zeroes
// the output and adds the four scaled corners (y0,x0), (y0,x1), (y1,x0),
// (y1,x1) in turn. The leading 0 + makes a -0 product +0, as there. The
// four sources must be at least as long as dst; dst must not overlap
// them. Every implementation gives identical bits (the same IEEE
// operations in the same order, lane by lane), except which payload a NaN
// result carries when two NaNs meet in a sum.
func BilinearF32(dst, p00, p01, p10, p11 []float32, w *[4]float32) {
	n := len(dst)
	_, _, _, _ = p00[:n], p01[:n], p10[:n], p11[:n]
	bilinearF32(dst, p00, p01, p10, p11, w)
}
