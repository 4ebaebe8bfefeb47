package fused

import (
	"math"
	"math/bits"

	"github.com/tflrun/tflrun/ops"
)

// This file holds the gemmlowp fixed-point arithmetic (fixedpoint/fixedpoint.h)
// that TFLite's integer LSTM uses for its int16 activations, and the inverse
// square root of the integer layer norm (GetInvSqrtQuantizedMultiplierExp in
// TFLite's internal/common.h). gemmlowp's FixedPoint<int16, N> is a raw int16
// with N integer bits (Qn.(15-n)); the functions below take the raw value and
// N at run time instead of as a template parameter, and perform exactly the
// same integer operations, including int16 wrap-around where gemmlowp's
// non-saturating operators wrap.

// fp16Const turns one of gemmlowp's Q0.31 int32 constants into its int16
// form as RescaleConstantInitializer does: a rounding shift right by 16.
func fp16Const(v int32) int16 { return int16(ops.RoundingDivideByPOT(v, 16)) }

var (
	// exp(-1/8), the constant term of the Taylor expansion around -1/8.
	fpExpMinusOneEighth = fp16Const(1895147668)
	fpOneThird          = fp16Const(715827883)
	// Newton–Raphson division seeds, Q2.13.
	fp48Over17    = fp16Const(1515870810)
	fpNeg32Over17 = fp16Const(-1010580540)
	// exp(-2^k) for k = -2..4 (the barrel shifter of exp_on_negative_values).
	fpExpBarrel = [7]int16{
		fp16Const(1672461947), fp16Const(1302514674), fp16Const(790015084),
		fp16Const(290630308), fp16Const(39332535), fp16Const(720401),
		fp16Const(242),
	}
	fpOneHalf = fp16Const(1 << 30)
)

const (
	fp16One   = math.MaxInt16 // FixedPoint<int16, 0>::One()
	fp16OneQ2 = 1 << 13       // FixedPoint<int16, 2>::One()
)

// satRoundMulPOT16 multiplies x by 2^exp: a saturating left shift for
// exp > 0, a rounding right shift for exp < 0 (gemmlowp's
// SaturatingRoundingMultiplyByPOT, also what Rescale does).
func satRoundMulPOT16(x int16, exp int) int16 {
	switch {
	case exp > 0:
		threshold := int32(1)<<(15-exp) - 1
		if int32(x) > threshold {
			return math.MaxInt16
		}
		if int32(x) < -threshold {
			return math.MinInt16
		}
		return x << exp
	case exp < 0:
		return ops.RoundingDivideByPOT16(x, -exp)
	}
	return x
}

// roundingHalfSum16 is (a+b)/2 rounded half away from zero (gemmlowp's
// RoundingHalfSum for int16).
func roundingHalfSum16(a, b int16) int16 {
	sum := int32(a) + int32(b)
	sign := int32(1)
	if sum < 0 {
		sign = -1
	}
	return int16((sum + sign) / 2)
}

// saturatingAdd16 adds with saturation to the int16 range.
func saturatingAdd16(a, b int16) int16 {
	return ops.SaturateInt16(int32(a) + int32(b))
}

// srdhm16 is the fixed-point product of two int16 raw values.
func srdhm16(a, b int16) int16 { return ops.SaturatingRoundingDoublingHighMul16(a, b) }

// expOnIntervalNegQuarterTo0 returns exp(a) for a Q0.15 value a in
// [-1/4, 0), by a fourth-order Taylor expansion around -1/8
// (exp_on_interval_between_negative_one_quarter_and_0_excl).
func expOnIntervalNegQuarterTo0(a int16) int16 {
	x := a + 1<<12 // a + 1/8; the sum cannot leave the int16 range here
	x2 := srdhm16(x, x)
	x3 := srdhm16(x2, x)
	x4 := srdhm16(x2, x2)
	x4Over4 := ops.RoundingDivideByPOT16(x4, 2)
	poly := ops.RoundingDivideByPOT16(srdhm16(x4Over4+x3, fpOneThird)+x2, 1)
	return saturatingAdd16(fpExpMinusOneEighth, srdhm16(fpExpMinusOneEighth, x+poly))
}

// expOnNegativeValues returns exp(a) as Q0.15 for a raw value a ≤ 0 with
// intBits integer bits (gemmlowp's exp_on_negative_values).
func expOnNegativeValues(a int16, intBits int) int16 {
	fracBits := 15 - intBits
	oneQuarter := int16(1) << (fracBits - 2)
	mask := oneQuarter - 1
	aModQuarterMinusQuarter := (a & mask) - oneQuarter
	result := expOnIntervalNegQuarterTo0(satRoundMulPOT16(aModQuarterMinusQuarter, intBits))
	remainder := aModQuarterMinusQuarter - a
	for e := -2; e <= 4; e++ {
		if intBits > e && remainder&(int16(1)<<(fracBits+e)) != 0 {
			result = srdhm16(result, fpExpBarrel[e+2])
		}
	}
	if intBits > 5 {
		// Below -32 the result underflows to zero.
		clamp := fp16Const(-(int32(1) << (36 - intBits)))
		if a < clamp {
			result = 0
		}
	}
	if a == 0 {
		result = fp16One
	}
	return result
}

// oneMinusXOverOnePlusX returns (1-x)/(1+x) for a Q0.15 x in (0, 1) by
// three Newton–Raphson steps (one_minus_x_over_one_plus_x_for_x_in_0_1).
func oneMinusXOverOnePlusX(a int16) int16 {
	x := newtonReciprocalHalfDenominator(roundingHalfSum16(a, fp16One))
	return satRoundMulPOT16(x-fp16OneQ2, 2)
}

// oneOverOnePlusX returns 1/(1+x) for a Q0.15 x in (0, 1)
// (one_over_one_plus_x_for_x_in_0_1).
func oneOverOnePlusX(a int16) int16 {
	x := newtonReciprocalHalfDenominator(roundingHalfSum16(a, fp16One))
	return satRoundMulPOT16(x, 1)
}

// newtonReciprocalHalfDenominator returns 1/d as Q2.13 for the Q0.15 half
// denominator d, the Newton–Raphson loop shared by the two functions above.
func newtonReciprocalHalfDenominator(halfDenominator int16) int16 {
	x := fp48Over17 + srdhm16(halfDenominator, fpNeg32Over17)
	for i := 0; i < 3; i++ {
		halfDenominatorTimesX := srdhm16(halfDenominator, x)
		oneMinus := fp16OneQ2 - halfDenominatorTimesX
		x += satRoundMulPOT16(srdhm16(x, oneMinus), 2)
	}
	return x
}

// tanh16 returns tanh(a) as Q0.15 for a raw value a with intBits integer
// bits (gemmlowp's tanh on FixedPoint<int16, intBits>).
func tanh16(a int16, intBits int) int16 {
	if a == 0 {
		return 0
	}
	n := -a // -|a|; wraps for MinInt16, which is already negative
	if a < 0 {
		n = a
	}
	t := oneMinusXOverOnePlusX(expOnNegativeValues(n, intBits+1))
	if a < 0 {
		return -t
	}
	return t
}

// logistic16 returns 1/(1+exp(-a)) as Q0.15 for a raw value a with intBits
// integer bits (gemmlowp's logistic on FixedPoint<int16, intBits>).
func logistic16(a int16, intBits int) int16 {
	if a == 0 {
		return fpOneHalf
	}
	abs := -a // wraps for MinInt16 exactly as gemmlowp's negation does
	if a > 0 {
		abs = a
	}
	r := oneOverOnePlusX(expOnNegativeValues(-abs, intBits))
	if a > 0 {
		return r
	}
	return fp16One - r
}

// invSqrtQuantizedMultiplierExp returns 1/sqrt(input) as a Q0.31 multiplier
// and a shift (multiplied by reverseShift), matching TFLite's
// GetInvSqrtQuantizedMultiplierExp: five Newton–Raphson steps in Q3.28.
// Inputs ≤ 1 give (MaxInt32, 0).
func invSqrtQuantizedMultiplierExp(input int32, reverseShift int) (int32, int) {
	if input <= 1 {
		return math.MaxInt32, 0
	}
	shift := 11
	for input >= 1<<29 {
		input /= 4
		shift++
	}
	maxLeftShiftBits := bits.LeadingZeros32(uint32(input)) - 1
	leftShiftBitPairs := maxLeftShiftBits/2 - 1
	shift -= leftShiftBitPairs
	input <<= 2 * leftShiftBitPairs
	srdhm := ops.SaturatingRoundingDoublingHighMul
	fixedInput := input >> 1 // Q3.28
	halfInput := ops.SaturatingRoundingMultiplyByPOT(fixedInput, -1)
	const halfThree = 1<<28 + 1<<27
	x := int32(1 << 28) // one in Q3.28
	for i := 0; i < 5; i++ {
		x3 := ops.SaturatingRoundingMultiplyByPOT(srdhm(srdhm(x, x), x), 6)
		x = ops.SaturatingRoundingMultiplyByPOT(srdhm(halfThree, x)-srdhm(halfInput, x3), 3)
	}
	const halfSqrt2 = 1518500250 // sqrt(2)/2 in Q0.31
	x = srdhm(x, halfSqrt2)
	if shift < 0 {
		x <<= -shift
		shift = 0
	}
	return x, shift * reverseShift
}
