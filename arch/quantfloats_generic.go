package arch

// minMaxF32Generic is the portable MinMaxF32 for len(x) ≥ 1.
func minMaxF32Generic(x []float32) (lo, hi float32, nan bool) {
	lo, hi = x[0], x[0]
	for _, v := range x {
		if v != v {
			return 0, 0, true
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, false
}

// scaleRoundInt8Generic is the portable ScaleRoundInt8.
func scaleRoundInt8Generic(dst []int8, x []float32, inv, zp float32, lo, hi int32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = roundClampF32Int8(float32(zp+float32(v*inv)), lo, hi)
	}
}

// roundClampF32Int8 is int8(clamp(int32(std::round(y)), lo, hi)) with
// x86's conversion (NaN and y ≥ 2^31 give INT32_MIN, hence lo), without
// float64: y − trunc(y) is exact for |y| < 2^23, and beyond that y is
// past a bound.
func roundClampF32Int8(y float32, lo, hi int32) int8 {
	switch {
	case y != y || y <= float32(lo) || y >= 2147483648:
		return int8(lo)
	case y >= float32(hi):
		return int8(hi)
	}
	t := int32(y)
	d := y - float32(t)
	if d >= 0.5 {
		t++
	} else if d <= -0.5 {
		t--
	}
	return int8(min(max(t, lo), hi))
}

// dequantRowsF32Generic is the portable DequantRowsF32. The explicit
// conversions keep Go from fusing the product into the sum.
func dequantRowsF32Generic(dst []float32, acc []int32, m, n int, corr []int32, scale, bias []float32) {
	corr, scale = corr[:n], scale[:n]
	for i := range m {
		row, a := dst[i*n:(i+1)*n], acc[i*n:(i+1)*n]
		if bias == nil {
			for c, v := range a {
				row[c] = float32(float32(v-corr[c]) * scale[c])
			}
			continue
		}
		b := bias[:n]
		for c, v := range a {
			row[c] = float32(float32(v-corr[c])*scale[c]) + b[c]
		}
	}
}

// mulAccOffsetInt8Generic is the portable MulAccOffsetInt8.
func mulAccOffsetInt8Generic(acc []int32, w, x []int8, zp int32) {
	w, x = w[:len(acc)], x[:len(acc)]
	for i := range acc {
		acc[i] += int32(w[i]) * (int32(x[i]) - zp)
	}
}
