package arch

import "math"

// Portable integer requantisation: TFLite's MultiplyByQuantizedMultiplier
// with its default double rounding (TFLITE_SINGLE_ROUNDING undefined: a
// saturating rounding doubling high multiply, then a rounding divide by a
// power of two, ties away from zero). The three scalar functions are the
// reference the requantising primitives are tested against, and package
// ops's integer kernels use them through its functions of the same names.

// SaturatingRoundingDoublingHighMul is gemmlowp's
// SaturatingRoundingDoublingHighMul for int32: the high 32 bits of 2·a·b
// rounded to nearest with ties up (toward +∞; the nudge of ±2^30 before
// the truncating division gives floor(a·b/2^31 + 1/2)), with the one
// overflowing case a == b == MinInt32 saturated to MaxInt32.
func SaturatingRoundingDoublingHighMul(a, b int32) int32 {
	if a == b && a == math.MinInt32 {
		return math.MaxInt32
	}
	ab := int64(a) * int64(b)
	nudge := int64(1 << 30)
	if ab < 0 {
		nudge = 1 - (1 << 30)
	}
	return int32((ab + nudge) / (1 << 31))
}

// RoundingDivideByPOT is gemmlowp's RoundingDivideByPOT: x / 2^e rounded
// to nearest, ties away from zero, for e in [0, 31].
func RoundingDivideByPOT(x int32, e int) int32 {
	mask := int32(1)<<e - 1
	remainder := x & mask
	threshold := mask >> 1
	if x < 0 {
		threshold++
	}
	r := x >> e
	if remainder > threshold {
		r++
	}
	return r
}

// MultiplyByQuantizedMultiplier is TFLite's
// MultiplyByQuantizedMultiplier(x, multiplier, shift): x·multiplier·
// 2^(shift−31) as RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(
// x·2^max(shift, 0), multiplier), max(−shift, 0)), the left shift wrapping
// on overflow as the C++ int32 arithmetic does in practice.
func MultiplyByQuantizedMultiplier(x, multiplier int32, shift int) int32 {
	left, right := 0, 0
	if shift > 0 {
		left = shift
	} else {
		right = -shift
	}
	return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x*(int32(1)<<left), multiplier), right)
}

// MultiplyByQuantizedMultiplierUp is MultiplyByQuantizedMultiplier with
// the final rounding right shift breaking ties upward, as ruy's x86
// kernels apply a quantised multiplier (see the tie rules in requant.go):
// h = SaturatingRoundingDoublingHighMul(x·2^max(shift, 0), multiplier)
// (the left shift wrapping), then (h + 2^(e-1)) >> e for e = max(−shift,
// 0), without overflow (ruy's 1 << (31−e) when h + 2^(e-1) passes
// MaxInt32 is the same value). A right shift of 32 or more gives 0,
// as the exact rounded quotient does.
func MultiplyByQuantizedMultiplierUp(x, multiplier int32, shift int) int32 {
	left, right := 0, 0
	if shift > 0 {
		left = shift
	} else {
		right = -shift
	}
	h := SaturatingRoundingDoublingHighMul(x*(int32(1)<<left), multiplier)
	if right == 0 {
		return h
	}
	return int32((int64(h) + int64(1)<<(right-1)) >> right)
}

// mbqmTie is MultiplyByQuantizedMultiplier (tie == tieAway) or
// MultiplyByQuantizedMultiplierUp (tie == tieUp).
func mbqmTie(x, multiplier int32, shift int, tie int32) int32 {
	if tie == tieUp {
		return MultiplyByQuantizedMultiplierUp(x, multiplier, shift)
	}
	return MultiplyByQuantizedMultiplier(x, multiplier, shift)
}

// sat16 clamps to the int16 range.
func sat16(v int32) int16 {
	return int16(max(math.MinInt16, min(v, math.MaxInt16)))
}

// requantAccInt16Generic sets dst[i] = sat16(dst[i] + MBQM(acc[i])) for
// i < len(acc). The loop is branch-free (the signs of the products and the
// rounding directions are data-dependent and would mispredict): for a
// multiplier other than MinInt32 the rounding doubling high multiply is
// the floor form (x·m + 2^30) >> 31 (equal to gemmlowp's truncating form
// with its sign-dependent nudge), and the rounding right shift adds the
// sign bit of threshold - remainder. Other multipliers and shifts outside
// [-31, 31] take the reference path.
func requantAccInt16Generic(dst []int16, acc []int32, multiplier int32, shift int) {
	dst = dst[:len(acc)]
	if multiplier == math.MinInt32 || shift > 31 || shift < -31 {
		for i, v := range acc {
			dst[i] = sat16(MultiplyByQuantizedMultiplier(v, multiplier, shift) + int32(dst[i]))
		}
		return
	}
	var left, right uint
	if shift > 0 {
		left = uint(shift)
	} else {
		right = uint(-shift)
	}
	mask := int32(1)<<right - 1
	threshold := mask >> 1
	m := int64(multiplier)
	for i, x := range acc {
		h := int32((int64(x<<left)*m + 1<<30) >> 31)
		th := threshold - h>>31 // one more for negative h
		r := h>>right + int32(uint32(th-h&mask)>>31)
		dst[i] = sat16(r + int32(dst[i]))
	}
}

// requantInt8Generic sets dst[i] = int8(clamp(MBQM(acc[i]) + zeroPoint,
// lo, hi)) for i < len(acc), with the branch-free form of
// requantAccInt16Generic and the tie rule of the mask tie (tieAway,
// tieUp); the rare parameters outside its range take the scalar form.
func requantInt8Generic(dst []int8, acc []int32, multiplier int32, shift int, zeroPoint, lo, hi, tie int32) {
	dst = dst[:len(acc)]
	if multiplier == math.MinInt32 || shift > 31 || shift < -31 {
		for i, v := range acc {
			dst[i] = int8(max(lo, min(mbqmTie(v, multiplier, shift, tie)+zeroPoint, hi)))
		}
		return
	}
	var left, right uint
	if shift > 0 {
		left = uint(shift)
	} else {
		right = uint(-shift)
	}
	mask := int32(1)<<right - 1
	threshold := mask >> 1
	m := int64(multiplier)
	for i, x := range acc {
		h := int32((int64(x<<left)*m + 1<<30) >> 31)
		th := threshold - h>>31&tie
		r := h>>right + int32(uint32(th-h&mask)>>31)
		dst[i] = int8(max(lo, min(r+zeroPoint, hi)))
	}
}
