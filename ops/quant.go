package ops

import (
	"math"

	"github.com/tflrun/tflrun/arch"
)

// This file holds the fixed-point arithmetic TFLite's integer kernels are
// built on (tensorflow/lite/kernels/internal/common.h, quantization_util.cc
// and gemmlowp's fixedpoint.h), with TFLite's default double rounding
// (TFLITE_SINGLE_ROUNDING undefined). Integer results must match TFLite
// bit for bit, so every function states the exact rounding it performs.

// QuantizeMultiplier splits a positive real multiplier m into a Q0.31
// fixed-point multiplier in [2^30, 2^31) and a power-of-two exponent, so
// that m ≈ multiplier * 2^(shift-31). Zero gives (0, 0); multipliers below
// 2^-31 flush to (0, 0). Matches TFLite's QuantizeMultiplier (frexp, then
// round half away from zero).
func QuantizeMultiplier(m float64) (multiplier int32, shift int) {
	if m == 0 {
		return 0, 0
	}
	q, exp := math.Frexp(m)
	qFixed := int64(math.Round(q * (1 << 31)))
	if qFixed == 1<<31 {
		qFixed /= 2
		exp++
	}
	if exp < -31 {
		return 0, 0
	}
	return int32(qFixed), exp
}

// SaturatingRoundingDoublingHighMul returns the high 32 bits of 2*a*b,
// rounded to nearest with ties up (toward +∞), saturating the single
// overflow case a == b == MinInt32 to MaxInt32. This is gemmlowp's
// SaturatingRoundingDoublingHighMul for int32; the implementation is
// arch's, which the requantising primitives share.
func SaturatingRoundingDoublingHighMul(a, b int32) int32 {
	return arch.SaturatingRoundingDoublingHighMul(a, b)
}

// SaturatingRoundingDoublingHighMul16 is the int16 form: the high 16 bits
// of 2*a*b, rounded, saturating a == b == MinInt16 to MaxInt16.
func SaturatingRoundingDoublingHighMul16(a, b int16) int16 {
	if a == b && a == math.MinInt16 {
		return math.MaxInt16
	}
	ab := int32(a) * int32(b)
	nudge := int32(1 << 14)
	if ab < 0 {
		nudge = 1 - (1 << 14)
	}
	return int16((ab + nudge) / (1 << 15))
}

// RoundingDivideByPOT divides x by 2^exponent rounding to nearest, ties
// away from zero (gemmlowp's RoundingDivideByPOT). exponent is in [0, 31].
// The implementation is arch's.
func RoundingDivideByPOT(x int32, exponent int) int32 {
	return arch.RoundingDivideByPOT(x, exponent)
}

// RoundingDivideByPOT16 is RoundingDivideByPOT for int16 values.
func RoundingDivideByPOT16(x int16, exponent int) int16 {
	mask := int16(1)<<exponent - 1
	remainder := x & mask
	threshold := mask >> 1
	if x < 0 {
		threshold++
	}
	r := x >> exponent
	if remainder > threshold {
		r++
	}
	return r
}

// SaturatingRoundingMultiplyByPOT is gemmlowp's function of that name (also
// its Rescale) on int32: x·2^exponent, a left shift saturating to the
// int32 range for exponent > 0, RoundingDivideByPOT for exponent < 0.
func SaturatingRoundingMultiplyByPOT(x int32, exponent int) int32 {
	switch {
	case exponent > 0:
		th := int32(1)<<(31-exponent) - 1
		if x > th {
			return math.MaxInt32
		}
		if x < -th {
			return math.MinInt32
		}
		return x << exponent
	case exponent < 0:
		return RoundingDivideByPOT(x, -exponent)
	}
	return x
}

// MultiplyByQuantizedMultiplier returns x * multiplier * 2^(shift-31)
// rounded as TFLite does by default: a saturating rounding doubling high
// multiply after the left part of the shift, then a rounding right shift
// (two roundings). The left shift wraps on overflow, as the C++ int32
// arithmetic does in practice. The implementation is arch's.
func MultiplyByQuantizedMultiplier(x, multiplier int32, shift int) int32 {
	return arch.MultiplyByQuantizedMultiplier(x, multiplier, shift)
}

// MultiplyByQuantizedMultiplierUp is MultiplyByQuantizedMultiplier with
// the final rounding right shift breaking ties upward (toward +∞) instead
// of away from zero: the arithmetic of ruy's x86 kernels, through which
// TFLite's x86 build runs its int8 GEMMs (CONV_2D, FULLY_CONNECTED,
// BATCH_MATMUL and their 16x8 forms). The implementation is arch's.
func MultiplyByQuantizedMultiplierUp(x, multiplier int32, shift int) int32 {
	return arch.MultiplyByQuantizedMultiplierUp(x, multiplier, shift)
}

// MultiplyByQuantizedMultiplier64 is TFLite's int64-input form, used by
// the 16-bit kernels: the multiplier is first reduced to 16 bits (rounded),
// then x*reduced is shifted right by 15-shift with rounding half up. x is
// expected in [-2^47, 2^47) and shift in [-31, 7].
func MultiplyByQuantizedMultiplier64(x int64, multiplier int32, shift int) int32 {
	reduced := int32(0x7FFF)
	if multiplier < 0x7FFF0000 {
		reduced = (multiplier + (1 << 15)) >> 16
	}
	total := uint(15 - shift)
	x = x*int64(reduced) + int64(1)<<(total-1)
	return int32(x >> total)
}

// MultiplyByQuantizedMultiplierSmallerThanOneExp is TFLite's helper for a
// multiplier below one given with a non-positive exponent: a rounding
// doubling high multiply, then a rounding right shift by -leftShift.
func MultiplyByQuantizedMultiplierSmallerThanOneExp(x, multiplier int32, leftShift int) int32 {
	return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x, multiplier), -leftShift)
}

// MultiplyByQuantizedMultiplierGreaterThanOne is TFLite's helper for a
// multiplier above one: x is shifted left (wrapping) then multiplied with a
// rounding doubling high multiply.
func MultiplyByQuantizedMultiplierGreaterThanOne(x, multiplier int32, leftShift int) int32 {
	return SaturatingRoundingDoublingHighMul(x*(int32(1)<<leftShift), multiplier)
}

// Round rounds half away from zero, as C's round() and TFLite's
// TfLiteRound do (Go's math.Round has the same rule).
func Round(x float64) float64 { return math.Round(x) }

// RoundFloat32 rounds a float32 half away from zero without a detour
// through float64 semantics changing the result (float32 → float64 is
// exact, so this equals C's roundf).
func RoundFloat32(x float32) float32 { return float32(math.Round(float64(x))) }

// ClampInt32 limits v to [lo, hi].
func ClampInt32(v, lo, hi int32) int32 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// SaturateInt8 converts v to int8, clamping to [-128, 127].
func SaturateInt8(v int32) int8 { return int8(ClampInt32(v, math.MinInt8, math.MaxInt8)) }

// SaturateInt16 converts v to int16, clamping to [-32768, 32767].
func SaturateInt16(v int32) int16 { return int16(ClampInt32(v, math.MinInt16, math.MaxInt16)) }

// SaturateUint8 converts v to uint8, clamping to [0, 255].
func SaturateUint8(v int32) uint8 { return uint8(ClampInt32(v, 0, math.MaxUint8)) }

// TypeRange returns the representable integer range of a quantised type
// (int8, uint8, int16, int32), and ok=false for any other type.
func TypeRange(t DataType) (lo, hi int32, ok bool) {
	switch t {
	case Int8:
		return math.MinInt8, math.MaxInt8, true
	case Uint8:
		return 0, math.MaxUint8, true
	case Int16:
		return math.MinInt16, math.MaxInt16, true
	case Int32:
		return math.MinInt32, math.MaxInt32, true
	}
	return 0, 0, false
}
