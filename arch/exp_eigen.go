package arch

import "math"

// ExpEigenF32 sets dst[i] = e^x[i] for i < len(x) as one lane of Eigen's
// packet exponential does (pexp_float, as TensorFlow Lite's x86 build uses
// it: SSE without FMA), bit for bit: x is clamped to at most 88.723, m =
// floor(x·log2 e + 1/2), r = x − m·C1 − m·C2 (Cephes' two parts of ln 2),
// e^r by a degree-6 polynomial evaluated as even and odd parts, and the
// result y·2^m; every multiply-add is a multiply, rounded, then an add,
// rounded. Inputs below −104 give 0, NaN gives NaN; results below
// FLT_MIN are flushed to 0, as TensorFlow Lite's are on x86.
// The lanes are independent: callers that reproduce an Eigen array
// expression apply it to the elements Eigen evaluates in packets (the
// multiples of 4 from the start of the array) and std::exp (expf) to the
// rest. dst must be at least as long as x; dst and x may be the same
// slice but must not otherwise overlap.
func ExpEigenF32(dst, x []float32) {
	dst = dst[:len(x)]
	expEigen(dst, x)
}

// Function slot and registry entry of ExpEigenF32.
var (
	expEigen      func(dst, x []float32)
	expEigenImpls = newImpls("ExpEigenF32", &expEigen, expEigenGeneric)
)

// The constants of Eigen's pexp_float.
const (
	eigenExpHi    = 88.723
	eigenExpLo    = -104
	eigenExpFast  = 87 // |x| at most this: 2^m is a normal number
	eigenExpLog2e = 1.44269504088896341
	eigenExpC1    = -0.693359375
	eigenExpC2    = 2.12194440e-4
	eigenExpP2    = 0.49999988079071044921875
	eigenExpP3    = 0.16666518151760101318359375
	eigenExpP4    = 4.166965186595916748046875e-2
	eigenExpP5    = 8.36894474923610687255859375e-3
	eigenExpP6    = 1.37449637986719608306884765625e-3
)

// expEigenGeneric is the portable form: every element through
// expEigenLane.
func expEigenGeneric(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = expEigenLane(v)
	}
}

// expEigenPoly returns Eigen's y and m for a clamped x (not NaN).
func expEigenPoly(x float32) (y, m float32) {
	m = float32(math.Floor(float64(float32(x*eigenExpLog2e) + 0.5)))
	r := float32(m*eigenExpC1) + x
	r = float32(m*eigenExpC2) + r
	r2 := r * r
	pEven := float32(r2*eigenExpP6) + eigenExpP4
	pOdd := float32(r2*eigenExpP5) + eigenExpP3
	pEven = float32(r2*pEven) + eigenExpP2
	pLow := r + 1
	y = float32(r*pOdd) + pEven
	y = float32(r2*y) + pLow
	return y, m
}

// expEigenLane is one lane of Eigen's pexp_float.
func expEigenLane(x0 float32) float32 {
	if x0 != x0 {
		return x0
	}
	if x0 < eigenExpLo {
		return 0
	}
	x := min(x0, eigenExpHi)
	y, m := expEigenPoly(x)
	if x >= -eigenExpFast && x <= eigenExpFast {
		// pldexp_fast: 2^m built in the exponent field.
		return y * math.Float32frombits(uint32(int32(m)+127)<<23)
	}
	// pldexp: exact scaling, one rounding (to +Inf above the range); a
	// result below FLT_MIN is flushed to 0, as TensorFlow Lite's are on
	// the x86 machines checked (the same as LogisticEigenF32's).
	e := float32(math.Ldexp(float64(y), int(m)))
	if e < 0x1p-126 {
		return 0
	}
	return e
}
