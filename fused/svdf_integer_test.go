package fused

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestRequantizerMatchesOps: the slice requantizer of the integer SVDF
// gives ops.MultiplyByQuantizedMultiplier's result for every multiplier
// QuantizeMultiplier makes (scales 2^-40 .. 2^30) and for extreme inputs.
func TestRequantizerMatchesOps(t *testing.T) {
	r := newTestRand(31)
	xs := []int32{0, 1, -1, 2, -2, 3, -3, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1, 1 << 20, -(1 << 20)}
	for i := 0; i < 200; i++ {
		xs = append(xs, int32(r.Uint32()), int32(r.IntN(1<<16)-(1<<15)))
	}
	for e := -40; e <= 30; e++ {
		for j := 0; j < 5; j++ {
			scale := math.Ldexp(0.5+r.Float64()/2, e)
			mult, shift := ops.QuantizeMultiplier(scale)
			q := newRequantizer(mult, shift)
			got := append([]int32(nil), xs...)
			q.applyAll(got)
			for i, x := range xs {
				if want := ops.MultiplyByQuantizedMultiplier(x, mult, shift); got[i] != want {
					t.Fatalf("scale %g (mult %d shift %d) x %d: %d, ops gives %d", scale, mult, shift, x, got[i], want)
				}
			}
		}
	}
}

// TestDotInt16Wraps: the unrolled int16 dot product wraps exactly as a
// sequential int32 sum does.
func TestDotInt16Wraps(t *testing.T) {
	r := newTestRand(32)
	for n := 0; n <= 37; n++ {
		a, b := make([]int16, n), make([]int16, n)
		for i := range a {
			a[i], b[i] = int16(r.IntN(65536)-32768), int16(r.IntN(65536)-32768)
		}
		if n > 0 {
			a[0], b[0] = math.MinInt16, math.MinInt16
		}
		var want int32
		for i := range a {
			want += int32(a[i]) * int32(b[i])
		}
		if got := dotInt16(a, b); got != want {
			t.Fatalf("n=%d: %d, want %d", n, got, want)
		}
	}
}
