package arch

// bilinearF32Generic is the portable BilinearF32 (the reference of the
// assembly twins; -tags purego, 32-bit ARM and CPUs without AVX2). The
// conversions keep Go from fusing the products into multiply-adds.
func bilinearF32Generic(dst, p00, p01, p10, p11 []float32, w *[4]float32) {
	n := len(dst)
	p00, p01, p10, p11 = p00[:n], p01[:n], p10[:n], p11[:n]
	w0, w1, w2, w3 := w[0], w[1], w[2], w[3]
	for i := range dst {
		v := float32(0) + float32(p00[i]*w0)
		v = float32(v + float32(p01[i]*w1))
		v = float32(v + float32(p10[i]*w2))
		dst[i] = float32(v + float32(p11[i]*w3))
	}
}
