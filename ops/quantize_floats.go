package ops

import (
	"math"

	"github.com/tflrun/tflrun/arch"
)

// This file holds the dynamic float → int8 quantisation of the hybrid
// kernels (float activations, int8 weights): TFLite's
// tensor_utils::SymmetricQuantizeFloats and AsymmetricQuantizeFloats, whose
// x86 build uses the portable versions (portable_tensor_utils.cc). The
// hybrid FULLY_CONNECTED and CONV_2D here and the hybrid LSTM, RNN and SVDF
// kernels of package fused all quantise their inputs through these two.
//
// NaN inputs give TFLite's results too: the range comes from a port of
// std::minmax_element (minMaxElement) and std::min / std::max, whose
// comparisons NaN fails, and a NaN value quantises through x86's
// static_cast<int32_t> (math.MinInt32) to the bottom of the int8 range.
// The range and the rounding loop run as the vector arch.MinMaxF32 and
// arch.ScaleRoundInt8.

// SymmetricQuantizeFloats quantises x into q[:len(x)] (len(q) ≥ len(x))
// with one scale and no zero point, as TFLite's
// PortableSymmetricQuantizeFloats: range = std::max(|min x|, |max x|),
// scale = range/127 and q = clamp(round(x·(127/range)), -127, 127), every
// float operation rounded to float32 and rounding half away from zero. It
// returns the scale. A range of zero (all zeros, or an empty x, where
// TFLite would read past the end) gives scale 1 and zeros.
func SymmetricQuantizeFloats(x []float32, q []int8) (scale float32) {
	q = q[:len(x)]
	lo, hi := rangeOf(x)
	// std::max(a, b) is (a < b) ? b : a: a NaN |max| never wins.
	r := float32(math.Abs(float64(lo)))
	if a := float32(math.Abs(float64(hi))); r < a {
		r = a
	}
	if r == 0 {
		clear(q)
		return 1
	}
	const kScale = 127
	inv := kScale / r
	arch.ScaleRoundInt8(q, x, inv, 0, -kScale, kScale)
	return r / kScale
}

// AsymmetricQuantizeFloats quantises x into q[:len(x)] (len(q) ≥ len(x))
// with a scale and a zero point, as TFLite's
// PortableAsymmetricQuantizeFloats: the range [std::min(0, min x),
// std::max(0, max x)] maps onto [-128, 127], the scale and the nudged
// integer zero point are computed in double precision, and
// q = clamp(round(zp + x·(1/scale)), -128, 127) in float32. It returns the
// scale (rounded to float32) and the zero point. An empty range (all zeros,
// or an empty x) gives scale 1, zero point 0 and zeros.
func AsymmetricQuantizeFloats(x []float32, q []int8) (scale float32, zp int32) {
	q = q[:len(x)]
	lo, hi := rangeOf(x)
	// std::min(0.0f, lo) and std::max(0.0f, hi): 0 unless the comparison
	// holds, so a NaN end of the range counts as 0.
	var rmin, rmax float64
	if lo < 0 {
		rmin = float64(lo)
	}
	if 0 < hi {
		rmax = float64(hi)
	}
	if rmin == rmax {
		clear(q)
		return 1, 0
	}
	const qmin, qmax = -128.0, 127.0
	s := (rmax - rmin) / (qmax - qmin)
	zpFromMin := qmin - rmin/s
	zpFromMax := qmax - rmax/s
	errMin := math.Abs(qmin) + math.Abs(rmin/s)
	errMax := math.Abs(qmax) + math.Abs(rmax/s)
	zpd := zpFromMax
	if errMin < errMax {
		zpd = zpFromMin
	}
	switch {
	case zpd <= qmin:
		zp = qmin
	case zpd >= qmax:
		zp = qmax
	default:
		// Strictly inside (-128, 127), so round() fits int8 as TFLite's
		// static_cast<int8_t> needs.
		zp = int32(math.Round(zpd))
	}
	scale = float32(s)
	// TFLite computes 1.0 / scale in double and stores it as float; for a
	// float divisor that double rounding equals the float32 division.
	inv := 1 / scale
	arch.ScaleRoundInt8(q, x, inv, float32(zp), qmin, qmax)
	return scale, zp
}

// rangeOf returns the values std::minmax_element(x) points at: the
// smallest and largest element through the vector arch.MinMaxF32 (which
// of ±0 it gives does not change either caller's result), and with a NaN
// in x minMaxElement's step-by-step answer.
func rangeOf(x []float32) (lo, hi float32) {
	lo, hi, nan := arch.MinMaxF32(x)
	if nan {
		return minMaxElement(x)
	}
	return lo, hi
}

// minMaxElement returns the values std::minmax_element(x) points at (0, 0
// for an empty x). It is libstdc++'s and libc++'s algorithm step for step
// (the first two elements ordered, then pairs, each pair's smaller one
// tried as the minimum with `v < min` and its larger one as the maximum
// with `!(v < max)`, a single last element tried for the minimum and only if
// not taken for the maximum), because with a NaN in x the comparisons
// fail and which elements get compared with which decides the result.
// Without NaN it is just the smallest and the largest element.
func minMaxElement(x []float32) (lo, hi float32) {
	switch len(x) {
	case 0:
		return 0, 0
	case 1:
		return x[0], x[0]
	}
	if x[1] < x[0] {
		lo, hi = x[1], x[0]
	} else {
		lo, hi = x[0], x[1]
	}
	i := 2
	for ; i+1 < len(x); i += 2 {
		a, b := x[i], x[i+1]
		if b < a {
			if b < lo {
				lo = b
			}
			if !(a < hi) {
				hi = a
			}
		} else {
			if a < lo {
				lo = a
			}
			if !(b < hi) {
				hi = b
			}
		}
	}
	if i < len(x) {
		if v := x[i]; v < lo {
			lo = v
		} else if !(v < hi) {
			hi = v
		}
	}
	return lo, hi
}
