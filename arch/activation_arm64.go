//go:build !purego

package arch

import "math"

// The arm64 sigmoid and tanh kernels (activation_neon_arm64.s) and their
// registration at the neon level. They evaluate the formulas of
// activation_generic.go lane by lane, with fused multiply-adds in the
// range reduction and the polynomials (as the amd64 kernels do), so they
// stay within the error bounds documented on Sigmoid and Tanh and within
// a few ulp of the portable code (TestTwinActivations,
// TestSigmoidTanhAccuracy).

// sigmoidNEONAsm and tanhNEONAsm handle len(x) a multiple of 8.
//
//go:noescape
func sigmoidNEONAsm(dst, x []float32)

//go:noescape
func tanhNEONAsm(dst, x []float32)

// actConstsNEON holds the constants of activation_generic.go in the order
// the assembly loads them into V20-V31: 1, expMaxArg, expMinArg, log2(e),
// ln2 high and low, tanhSmall, 2 and the sign bit, each in four lanes,
// then the polynomial coefficients packed four to a vector (the exp
// polynomial's six, then tanh's five). Building it from the Go constants
// keeps the portable and assembly versions on the same numbers.
var actConstsNEON = func() (t [12][4]uint32) {
	f := math.Float32bits
	for i, v := range []uint32{f(1), f(expMaxArg), f(expMinArg), f(expLog2e), f(expLn2Hi), f(expLn2Lo), f(tanhSmall), f(2), 1 << 31} {
		t[i] = [4]uint32{v, v, v, v}
	}
	t[9] = [4]uint32{f(expP0), f(expP1), f(expP2), f(expP3)}
	t[10] = [4]uint32{f(expP4), f(expP5), f(tanhP0), f(tanhP1)}
	t[11] = [4]uint32{f(tanhP2), f(tanhP3), f(tanhP4), 0}
	return t
}()

// sigmoidNEON and tanhNEON run the kernel on the multiple-of-8 prefix of
// x and the rest through an 8-element copy, so that every element goes
// through the same vector code. (The calls are direct so that the copy
// stays on the stack.)
func sigmoidNEON(dst, x []float32) {
	n := len(x) &^ 7
	if n > 0 {
		sigmoidNEONAsm(dst[:n], x[:n])
	}
	if rem := len(x) - n; rem > 0 {
		var buf [8]float32
		copy(buf[:], x[n:])
		sigmoidNEONAsm(buf[:], buf[:])
		copy(dst[n:len(x)], buf[:rem])
	}
}

func tanhNEON(dst, x []float32) {
	n := len(x) &^ 7
	if n > 0 {
		tanhNEONAsm(dst[:n], x[:n])
	}
	if rem := len(x) - n; rem > 0 {
		var buf [8]float32
		copy(buf[:], x[n:])
		tanhNEONAsm(buf[:], buf[:])
		copy(dst[n:len(x)], buf[:rem])
	}
}

var (
	_ = sigmoidImpls.add("neon", NEON, nil, sigmoidNEON)
	_ = tanhImpls.add("neon", NEON, nil, tanhNEON)
)
