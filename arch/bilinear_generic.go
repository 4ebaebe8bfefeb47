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

// bilinearU8Generic is the portable BilinearU8, the reference of the
// assembly twins. The conversions keep Go from fusing the products into
// multiply-adds; f32Trunc is CVTTSS2SI's truncation.
func bilinearU8Generic(dst, p00, p01, p10, p11 []byte, w *[4]float32) {
	n := len(dst)
	p00, p01, p10, p11 = p00[:n], p01[:n], p10[:n], p11[:n]
	w0, w1, w2, w3 := w[0], w[1], w[2], w[3]
	for i := range dst {
		v := float32(float32(p00[i])*w0) + float32(float32(p01[i])*w1)
		v = float32(v+float32(float32(p10[i])*w2)) + float32(float32(p11[i])*w3)
		dst[i] = uint8(f32Trunc(v + 0.5))
	}
}

// f32Trunc is CVTTSS2SI: f truncated toward zero, MinInt32 for NaN and
// values outside the int32 range.
func f32Trunc(f float32) int32 {
	if f != f || f >= 2147483648 || f < -2147483648 {
		return -2147483648
	}
	return int32(f)
}

// bilinearRowU8Generic is the portable BilinearRowU8: the weights of each
// column, then bilinearU8Generic over its channels.
func bilinearRowU8Generic(dst, row0, row1 []byte, t *BilinearTaps, fy float32) {
	d := t.depth
	var w [4]float32
	for x, fx := range t.fx {
		w = [4]float32{float32((1 - fy) * (1 - fx)), float32((1 - fy) * fx), float32(fy * (1 - fx)), float32(fy * fx)}
		lo, hi := int(t.off[2*x]), int(t.off[2*x+1])
		bilinearU8Generic(dst[x*d:x*d+d], row0[lo:], row0[hi:], row1[lo:], row1[hi:], &w)
	}
}

// bilinearRowF32Generic is the portable BilinearRowF32: the weights of
// each column, then bilinearF32Generic over its channels.
func bilinearRowF32Generic(dst, row0, row1 []float32, t *BilinearTaps, fy float32) {
	d := t.depth
	for x, fx := range t.fx {
		w := bilinearWeights(fx, fy)
		lo, hi := int(t.off[2*x]), int(t.off[2*x+1])
		bilinearF32Generic(dst[x*d:x*d+d], row0[lo:], row0[hi:], row1[lo:], row1[hi:], &w)
	}
}

// bilinearWeights returns the weights of the corners (y0,x0), (y0,x1),
// (y1,x0), (y1,x1) at fractions fx and fy, each a float32 product of
// float32 differences as TFLite forms them.
func bilinearWeights(fx, fy float32) [4]float32 {
	return [4]float32{float32((1 - fy) * (1 - fx)), float32((1 - fy) * fx), float32(fy * (1 - fx)), float32(fy * fx)}
}
