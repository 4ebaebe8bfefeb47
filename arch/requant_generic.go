package arch

import "math"

// Portable integer requantisation: TFLite's MultiplyByQuantizedMultiplier
// with its default double rounding (a saturating rounding doubling high
// multiply, then a rounding divide by a power of two, ties away from
// zero), written here again because arch imports nothing of tflrun's.

// srdhm is gemmlowp's SaturatingRoundingDoublingHighMul: the high 32 bits
// of 2·a·b rounded to nearest (ties up), with MinInt32·MinInt32 saturated
// to MaxInt32.
func srdhm(a, b int32) int32 {
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

// roundingDivideByPOT is gemmlowp's RoundingDivideByPOT: x / 2^e rounded to
// nearest, ties away from zero.
func roundingDivideByPOT(x int32, e int) int32 {
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

// mulQuant is MultiplyByQuantizedMultiplier(x, multiplier, shift).
func mulQuant(x, multiplier int32, shift int) int32 {
	left, right := 0, 0
	if shift > 0 {
		left = shift
	} else {
		right = -shift
	}
	return roundingDivideByPOT(srdhm(x*(int32(1)<<left), multiplier), right)
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
			dst[i] = sat16(mulQuant(v, multiplier, shift) + int32(dst[i]))
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
// requantAccInt16Generic.
func requantInt8Generic(dst []int8, acc []int32, multiplier int32, shift int, zeroPoint, lo, hi int32) {
	dst = dst[:len(acc)]
	if multiplier == math.MinInt32 || shift > 31 || shift < -31 {
		for i, v := range acc {
			dst[i] = int8(max(lo, min(mulQuant(v, multiplier, shift)+zeroPoint, hi)))
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
		th := threshold - h>>31
		r := h>>right + int32(uint32(th-h&mask)>>31)
		dst[i] = int8(max(lo, min(r+zeroPoint, hi)))
	}
}
