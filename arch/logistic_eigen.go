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
	logisticEigen(dst[:n4], x[:n4])
	for i := n4; i < n; i++ {
		e := float32(math.Exp(float64(min32NaN(x[i], logHi))))
		if e < 0x1p-126 {
			e = 0 // flushed, as the reference's subnormal results
		}
		dst[i] = e / (1 + e)
	}
}

// Function slot and registry entry of LogisticEigenF32's packets.
var (
	logisticEigen      func(dst, x []float32)
	logisticEigenImpls = newImpls("LogisticEigenF32", &logisticEigen, logisticEigenPacketsGeneric)
)

// The constants of Eigen's packet logistic (scalar_logistic_op<float>).
const (
	logLo    = -104
	logHi    = 16.6355324
	logLog2e = 1.44269504088896341
	logC1    = -0.693359375
	logC2    = 2.12194440e-4
	logP2    = 0.49999141693115234375
	logP3    = 0.16666877269744873046875
	logP4    = 4.1898667812347412109375e-2
	logP5    = 8.33471305668354034423828125e-3
)

// logisticEigenPacketsGeneric is the portable packet part: every element
// of x (len(dst) ≥ len(x)) through logisticEigenPacket.
func logisticEigenPacketsGeneric(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = logisticEigenPacket(v)
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
	if x0 < logLo {
		return 0
	}
	x := min32NaN(x0, logHi)
	x = x * 0.5
	t := float32(x*logLog2e) + 0.5 // in (-76, 13) or NaN
	mi := int32(t)
	if float32(mi) > t {
		mi-- // floor
	}
	m := float32(mi)
	r := float32(m*logC1) + x
	r = float32(m*logC2) + r
	r2 := r * r
	pEven := float32(r2*logP4) + logP2
	pOdd := float32(r2*logP5) + logP3
	pLow := r + 1
	p := float32(r*pOdd) + pEven
	p = float32(r2*p) + pLow
	if t != t {
		return t
	}
	e := p * math.Float32frombits(uint32(mi+127)<<23) // 2^m, normal
	e = e * e
	if e < 0x1p-126 {
		e = 0 // flushed, as the reference's subnormal results
	}
	return e / (1 + e)
}
