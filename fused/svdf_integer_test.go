package fused

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// TestSVDFRequantisationMatchesOps: the integer SVDF's two requantisations
// through arch (RequantizeAccInt16 into zeroed int16 values, and
// RequantizeInt8 with a zero point) give ops.MultiplyByQuantizedMultiplier
// saturated, for every multiplier QuantizeMultiplier makes (scales 2^-40
// .. 2^30) and for extreme inputs.
func TestSVDFRequantisationMatchesOps(t *testing.T) {
	r := newTestRand(31)
	xs := []int32{0, 1, -1, 2, -2, 3, -3, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1, 1 << 20, -(1 << 20)}
	for i := 0; i < 200; i++ {
		xs = append(xs, int32(r.Uint32()), int32(r.IntN(1<<16)-(1<<15)))
	}
	for e := -40; e <= 30; e++ {
		for j := 0; j < 5; j++ {
			scale := math.Ldexp(0.5+r.Float64()/2, e)
			mult, shift := ops.QuantizeMultiplier(scale)
			zp := int32(r.IntN(256) - 128)
			got16 := make([]int16, len(xs))
			arch.RequantizeAccInt16(got16, xs, mult, shift)
			got8 := make([]int8, len(xs))
			arch.RequantizeInt8(got8, xs, mult, shift, zp, -128, 127)
			for i, x := range xs {
				m := ops.MultiplyByQuantizedMultiplier(x, mult, shift)
				if want := ops.SaturateInt16(m); got16[i] != want {
					t.Fatalf("scale %g (mult %d shift %d) x %d: int16 %d, ops gives %d", scale, mult, shift, x, got16[i], want)
				}
				if want := ops.SaturateInt8(m + zp); got8[i] != want {
					t.Fatalf("scale %g (mult %d shift %d) x %d zp %d: int8 %d, ops gives %d", scale, mult, shift, x, zp, got8[i], want)
				}
			}
		}
	}
}
