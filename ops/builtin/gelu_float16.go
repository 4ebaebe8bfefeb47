package builtin

import "math"

// The float16 path of GELU (op version 3). TFLite's GeluEval hands
// Eigen::half arrays to reference_ops::Gelu, an Eigen array expression.
// Every binary operation on Eigen::half widens both operands to float32,
// computes, and rounds the result to half (nearest even), so the result
// depends on the order of the operations, which the expression fixes:
//
//	exact:       (0.5h·x) · erfc(x · half(−√½))
//	approximate: (0.5h·x) · (1h + tanh(half(√(2/π)) · (x + 0.044715h·((x·x)·x))))
//
// each product and sum rounded to half. The constants are rounded to half
// first. erfc and tanh of a half are computed in float32 and rounded to
// half:
//
//   - Eigen has no packet erfc for half on x86, so the exact expression
//     is evaluated one element at a time, and numext::erfc(float) is
//     Eigen's generic_fast_erfc<float> (LiteRT's pinned Eigen
//     ea13a98d), reproduced by eigenErfcf below with separate multiplies
//     and adds (a build without FMA, TFLite's default on x86);
//   - the approximate expression, in a build without AVX (TFLite's
//     default; Eigen has no SSE half packets) is evaluated one element
//     at a time too, and Eigen's scalar half tanh is the C library's
//     tanhf, here float64 tanh rounded to float32. An AVX build would
//     use Eigen's rational tanh approximation (ptanh_float) for most
//     elements instead: over every finite half input its tanh differs
//     from this one's after rounding to half twice, and the GELU output
//     never (measured with a transcription of the non-FMA ptanh_float).
//     Likewise float64 erfc in place of Eigen's changes no output.

// halfMul and halfAdd are one Eigen::half operation: float32 arithmetic
// rounded to half. The operands are float32 values that are exact halves.
func halfMul(a, b float32) float32 { return halfToFloat32(float32ToHalf(a * b)) }
func halfAdd(a, b float32) float32 { return halfToFloat32(float32ToHalf(a + b)) }

// toHalf rounds a float32 to the nearest half and widens it back.
func toHalf(f float32) float32 { return halfToFloat32(float32ToHalf(f)) }

// eigenErfcf is Eigen's generic_fast_erfc<float>::run on a scalar
// (SpecialFunctionsImpl.h at LiteRT's pinned Eigen): x clamped to
// [−11, 11]; for x² ≤ 1, 1 + x·S(x²) with a degree-5 polynomial; beyond,
// exp(−x²)·(1 − lo(x²))·P(1/x²)/(x·Q(1/x²)) (+2 for negative x), where
// lo(x²) is the exact rounding error of x·x. Every multiply and add is
// rounded to float32 separately, as a non-FMA build computes them; expf
// is float64 exp rounded to float32.
func eigenErfcf(xin float32) float32 {
	// std::min(std::max(x, −11), 11): NaN passes through.
	x := xin
	if x < -11 {
		x = -11
	}
	if 11 < x {
		x = 11
	}
	alpha := [6]float32{5.61802298761904239654541015625e-04, -4.91381669417023658752441406250e-03,
		2.67075151205062866210937500000e-02, -1.12800106406211853027343750000e-01,
		3.76122951507568359375000000000e-01, -1.12837910652160644531250000000e+00}
	x2 := float32(x * x)
	p := alpha[0]
	for _, c := range alpha[1:] {
		p = float32(float32(p*x2) + c)
	}
	small := float32(float32(x*p) + 1)
	if !(1 < x2) {
		return small
	}
	gamma := [4]float32{1.0208116471767425537109375e-01, 4.2920666933059692382812500e-01,
		3.2379078865051269531250000e-01, 5.3971976041793823242187500e-02}
	delta := [5]float32{1.7251677811145782470703125e-02, 3.9137163758277893066406250e-01,
		1.0000000000000000000000000e+00, 6.2173241376876831054687500e-01,
		9.5662862062454223632812500e-02}
	// twoprod_low: the exact error of x·x (a float32, as |x| ≤ 11).
	x2lo := float32(float64(x)*float64(x) - float64(x2))
	e := expf(-x2)
	z := float32(float32(-e*x2lo) + e)
	q2 := float32(1 / x2)
	num := gamma[0]
	for _, c := range gamma[1:] {
		num = float32(float32(num*q2) + c)
	}
	den := delta[0]
	for _, c := range delta[1:] {
		den = float32(float32(den*q2) + c)
	}
	den = float32(x * den)
	r := float32(num / den)
	var two float32
	if x < 0 {
		two = 2
	}
	return float32(float32(z*r) + two)
}

// geluHalfExact is one element of TFLite's exact float16 GELU.
func geluHalfExact(h uint16) uint16 {
	negSqrtHalf := toHalf(float32(-math.Sqrt2 / 2))
	x := halfToFloat32(h)
	arg := halfMul(x, negSqrtHalf)
	e := toHalf(eigenErfcf(arg))
	return float32ToHalf(float32(halfMul(0.5, x) * e))
}

// geluHalfApprox is one element of TFLite's approximate float16 GELU.
func geluHalfApprox(h uint16) uint16 {
	c := toHalf(float32(2 / math.SqrtPi * math.Sqrt2 / 2)) // kSqrt2dPi, a float
	k := toHalf(float32(0.044715))
	x := halfToFloat32(h)
	cube := halfMul(halfMul(x, x), x)
	inner := halfMul(c, halfAdd(x, halfMul(k, cube)))
	t := toHalf(float32(math.Tanh(float64(inner))))
	return float32ToHalf(float32(halfMul(0.5, x) * halfAdd(1, t)))
}

// geluHalf applies float16 GELU to x into y.
func geluHalf(x, y []uint16, approx bool) {
	f := geluHalfExact
	if approx {
		f = geluHalfApprox
	}
	for i, v := range x {
		y[i] = f(v)
	}
}
