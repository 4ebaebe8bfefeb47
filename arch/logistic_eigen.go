package arch

import "math"

// LogisticEigenF32 sets dst[i] = 1/(1+e^(-x[i])) for i < len(x) exactly
// as TensorFlow Lite's float LOGISTIC on x86 (optimized_ops::Logistic:
// Eigen's scalar_logistic_op<float> over a vector, built with SSE and
// without FMA), bit for bit. Eigen evaluates the elements in packets of
// 4 from the start of the (aligned) output and the last len(x)%4 with
// its scalar form:
//
//   - packets: below -104 the result is 0; otherwise x is clamped to at
//     most 16.6355324, halved, reduced as r = x/2 - m·ln 2 (Cephes' two
//     constants, m = floor(x/2·log2 e + 1/2)), e^r approximated by a
//     degree-5 polynomial (even and odd terms apart), scaled by 2^m and
//     squared: e = e^x; the result is e/(1+e). Every multiply-add is a
//     multiply, rounded, then an add, rounded.
//   - the scalar tail: e = expf(min(x, 16.6355324)), then e/(1+e), with
//     expf correctly rounded (glibc's, from a double evaluation).
//
// A subnormal e (x below about -87.3) is taken as 0, as TensorFlow
// Lite's results are on the x86 machine checked (its subnormal results
// are flushed to zero there). NaN gives NaN. dst must be at least as long as x; dst and x may be
// the same slice but must not otherwise overlap.
func LogisticEigenF32(dst, x []float32) {
	n := len(x)
	dst = dst[:n]
	n4 := n &^ 3
	for i := 0; i < n4; i++ {
		dst[i] = logisticEigenPacket(x[i])
	}
	for i := n4; i < n; i++ {
		e := float32(math.Exp(float64(min32NaN(x[i], 16.6355324))))
		if e < 0x1p-126 {
			e = 0 // flushed, as the reference's subnormal results
		}
		dst[i] = e / (1 + e)
	}
}

// min32NaN is min(x, c) that keeps a NaN x.
func min32NaN(x, c float32) float32 {
	if x > c {
		return c
	}
	return x
}

// logisticEigenPacket is one lane of Eigen's packet logistic.
func logisticEigenPacket(x0 float32) float32 {
	if x0 < -104 {
		return 0
	}
	x := min32NaN(x0, 16.6355324)
	x = x * 0.5
	m := float32(math.Floor(float64(float32(x*1.44269504088896341) + 0.5)))
	r := float32(m*-0.693359375) + x
	r = float32(m*2.12194440e-4) + r
	r2 := r * r
	pEven := float32(r2*4.1898667812347412109375e-2) + 0.49999141693115234375
	pOdd := float32(r2*8.33471305668354034423828125e-3) + 0.16666877269744873046875
	pLow := r + 1
	p := float32(r*pOdd) + pEven
	p = float32(r2*p) + pLow
	e := p * float32(math.Ldexp(1, int(m)))
	e = e * e
	if e < 0x1p-126 {
		e = 0 // flushed, as the reference's subnormal results
	}
	return e / (1 + e)
}
