package arch

import "math"

// Portable float32 sigmoid and tanh. They evaluate exactly the formulas of
// the assembly versions (same range reduction, same polynomials, same
// clamps), rounding each step to float32 where the assembly uses fused
// multiply-adds, so the two agree to a few ulp and both stay within the
// error bounds documented on Sigmoid and Tanh.

// The exponential used by sigmoid and tanh: exp(z) = 2^n · e^r with
// n = round(z·log2(e)) and r = z - n·ln2, ln2 split in two (expLn2Hi has
// few enough bits that n·expLn2Hi is exact), and e^r from a degree-7
// polynomial on |r| ≤ ln2/2 (the classic minimax coefficients for
// single precision, Cephes expf). z is clamped to [expMinArg, expMaxArg]
// so that 2^n stays a normal float32 (n in [-126, 127]).
const (
	expMaxArg = 88.0
	expMinArg = -87.0
	expLog2e  = 1.44269504088896341
	expLn2Hi  = 0.693359375
	expLn2Lo  = -2.12194440e-4
	expP0     = 1.9875691500e-4
	expP1     = 1.3981999507e-3
	expP2     = 8.3334519073e-3
	expP3     = 4.1665795894e-2
	expP4     = 1.6666665459e-1
	expP5     = 5.0000001201e-1

	roundMagic = 0x1.8p23
)

// tanh for |x| < tanhSmall uses the odd polynomial
// x + x³·P(x²) (Cephes tanhf's minimax coefficients); above it,
// 1 - 2/(e^{2|x|} + 1), which has no cancellation problem there.
const (
	tanhSmall = 0.625
	tanhP0    = -5.70498872745e-3
	tanhP1    = 2.06390887954e-2
	tanhP2    = -5.37397155531e-2
	tanhP3    = 1.33314422036e-1
	tanhP4    = -3.33332819422e-1
)

// expf32 is the exponential described above. NaN gives NaN.
func expf32(z float32) float32 {
	// Clamp so that NaN survives: a comparison with NaN is false.
	if z > expMaxArg {
		z = expMaxArg
	}
	if z < expMinArg {
		z = expMinArg
	}
	// Adding 1.5·2^23 rounds z·log2(e) to an integer (to nearest even,
	// as the assembly's VCVTPS2DQ does) held in the low mantissa bits.
	t := float32(z*expLog2e) + roundMagic
	n := t - roundMagic
	r := z - n*expLn2Hi
	r = r - float32(n*expLn2Lo)
	p := float32(expP0)
	p = float32(p*r) + expP1
	p = float32(p*r) + expP2
	p = float32(p*r) + expP3
	p = float32(p*r) + expP4
	p = float32(p*r) + expP5
	y := float32(float32(p*r)*r) + r + 1
	// For a NaN z, y is NaN and so is the product, whatever the bits of
	// the scale.
	return y * math.Float32frombits((math.Float32bits(t)-math.Float32bits(roundMagic)+127)<<23)
}

// sigmoidGeneric sets dst[i] = 1/(1+e^(-x[i])) for i < len(x).
func sigmoidGeneric(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = 1 / (1 + expf32(-v))
	}
}

// tanhGeneric sets dst[i] = tanh(x[i]) for i < len(x). Both branches
// work on a = |x| and the sign of x is put back at the end, which keeps
// tanh(-0) = -0 and tanh odd bit for bit.
func tanhGeneric(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		sign := math.Float32bits(v) & (1 << 31)
		a := math.Float32frombits(math.Float32bits(v) &^ (1 << 31))
		var t float32
		if a < tanhSmall {
			z := a * a
			p := float32(tanhP0)
			p = float32(p*z) + tanhP1
			p = float32(p*z) + tanhP2
			p = float32(p*z) + tanhP3
			p = float32(p*z) + tanhP4
			t = a + float32(float32(a*z)*p)
		} else {
			// NaN lands here (the comparison is false) and stays NaN.
			t = 1 - 2/(expf32(a+a)+1)
		}
		dst[i] = math.Float32frombits(math.Float32bits(t) | sign)
	}
}
