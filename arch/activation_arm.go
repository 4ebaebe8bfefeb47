//go:build !purego && arm.7

package arch

import "math"

// The 32-bit ARM sigmoid and tanh kernels (activation_neon_arm.s) and
// their registration at the neon level, in GOARM=7 builds only. They
// evaluate the formulas of activation_generic.go lane by lane with the
// portable code's roundings (ARMv7 NEON has no fused multiply-add: VMLA
// rounds the product, then the sum, as float32(p*r)+c does), except two
// things, both within the bounds documented on Sigmoid and Tanh
// (TestTwinActivations, TestSigmoidTanhAccuracy): NEON has no divide, so
// 1/d is VRECPE's estimate refined by two Newton steps (VRECPS), a few
// ulps from the quotient; and NEON flushes subnormal inputs and results
// to zero (sigmoid below about -87 gives 0 instead of 6.05e-39).

// sigmoidNEONAsm and tanhNEONAsm handle len(x) a multiple of 4.
//
//go:noescape
func sigmoidNEONAsm(dst, x []float32)

//go:noescape
func tanhNEONAsm(dst, x []float32)

// actConstsARM holds the constants of activation_generic.go in the order
// activation_neon_arm.s loads them: four lanes each of expMaxArg,
// expMinArg, the rounding magic 1.5·2^23 and 1 (Q12-Q15), then the scalars
// the kernels take by lane (D12-D19): log2(e), ln2 high and low, P0, T0,
// P1, P2, P3, P4, P5, T1, T2, T3, T4 (Pi the exp polynomial, Ti tanh's).
// Building it from the Go constants keeps the portable and assembly
// versions on the same numbers.
var actConstsARM = func() (t [32]uint32) {
	f := math.Float32bits
	for i, v := range []uint32{f(expMaxArg), f(expMinArg), f(roundMagic), f(1)} {
		t[4*i], t[4*i+1], t[4*i+2], t[4*i+3] = v, v, v, v
	}
	copy(t[16:], []uint32{f(expLog2e), f(expLn2Hi), f(expLn2Lo), f(expP0), f(tanhP0), f(expP1), f(expP2), f(expP3),
		f(expP4), f(expP5), f(tanhP1), f(tanhP2), f(tanhP3), f(tanhP4)})
	return t
}()

// sigmoidNEON and tanhNEON run the kernel on the multiple-of-4 prefix of
// x and the rest through a 4-element copy, so that every element goes
// through the same vector code.
func sigmoidNEON(dst, x []float32) {
	n := len(x) &^ 3
	if n > 0 {
		sigmoidNEONAsm(dst[:n], x[:n])
	}
	if rem := len(x) - n; rem > 0 {
		var buf [4]float32
		copy(buf[:], x[n:])
		sigmoidNEONAsm(buf[:], buf[:])
		copy(dst[n:len(x)], buf[:rem])
	}
}

func tanhNEON(dst, x []float32) {
	n := len(x) &^ 3
	if n > 0 {
		tanhNEONAsm(dst[:n], x[:n])
	}
	if rem := len(x) - n; rem > 0 {
		var buf [4]float32
		copy(buf[:], x[n:])
		tanhNEONAsm(buf[:], buf[:])
		copy(dst[n:len(x)], buf[:rem])
	}
}

var (
	_ = sigmoidImpls.add("neon", NEON, nil, sigmoidNEON)
	_ = tanhImpls.add("neon", NEON, nil, tanhNEON)
)
