package arch

// This file holds the portable float32 primitives. They are the reference
// every assembly twin is tested against, and the implementation used with
// -tags purego or on CPUs without a faster one.

// matVecMulAccGeneric adds m·x to dst: dst[r] += Σ_c m[r*cols+c]·x[c] for
// r < rows. m has at least rows*cols elements, x at least cols, dst at
// least rows.
func matVecMulAccGeneric(dst, m []float32, rows, cols int, x []float32) {
	x = x[:cols]
	for r := 0; r < rows; r++ {
		row := m[r*cols : r*cols+cols]
		var s0, s1, s2, s3 float32
		c := 0
		for ; c+4 <= cols; c += 4 {
			s0 += row[c] * x[c]
			s1 += row[c+1] * x[c+1]
			s2 += row[c+2] * x[c+2]
			s3 += row[c+3] * x[c+3]
		}
		for ; c < cols; c++ {
			s0 += row[c] * x[c]
		}
		dst[r] += (s0 + s1) + (s2 + s3)
	}
}

// dotGeneric returns Σ a[i]·b[i] over len(a) elements (b at least as long).
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// vecAddGeneric sets dst[i] = a[i] + b[i] for i < len(a).
func vecAddGeneric(dst, a, b []float32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	for i, v := range a {
		dst[i] = v + b[i]
	}
}

// vecMulGeneric sets dst[i] = a[i] · b[i] for i < len(a).
func vecMulGeneric(dst, a, b []float32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	for i, v := range a {
		dst[i] = v * b[i]
	}
}

// vecMulAccGeneric sets dst[i] += a[i] · b[i] for i < len(a), rounding
// the product to float32 before the add (no fused multiply-add), so that
// every implementation gives the same bits.
func vecMulAccGeneric(dst, a, b []float32) {
	b = b[:len(a)]
	dst = dst[:len(a)]
	for i, v := range a {
		dst[i] += float32(v * b[i])
	}
}
