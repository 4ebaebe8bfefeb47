package ops

import "math"

// Test helpers of the contract's own tests (the kernel tests in
// ops/builtin have their own copies).

// lcg is a tiny deterministic generator for random test data.
type lcg uint64

func (r *lcg) next() uint32 {
	*r = *r*6364136223846793005 + 1442695040888963407
	return uint32(*r >> 33)
}

// float in [lo, hi).
func (r *lcg) float(lo, hi float64) float32 {
	return float32(lo + (hi-lo)*float64(r.next())/float64(1<<31))
}

// f32ToInt32 converts as x86's cvttss2si does (the reference the kernels
// follow): truncation, and math.MinInt32 for NaN and out-of-range inputs.
func f32ToInt32(f float32) int32 {
	if f != f || f >= 2147483648 || f < -2147483648 {
		return math.MinInt32
	}
	return int32(f)
}

// roundf is C's roundf: round half away from zero in float32.
func roundf(x float32) float32 { return float32(math.Round(float64(x))) }
