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

// TestDotInt16Wraps: the unrolled int16 dot products (dotInt16, and
// timeDotsInt16 with its memory-8 body) wrap exactly as a sequential int32
// sum does.
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
	for _, M := range []int{1, 3, 8, 9} {
		const B, F = 2, 5
		wt, state := make([]int16, F*M), make([]int16, B*F*M)
		for i := range wt {
			wt[i] = int16(r.IntN(65536) - 32768)
		}
		for i := range state {
			state[i] = int16(r.IntN(65536) - 32768)
		}
		wt[0], state[0] = math.MinInt16, math.MinInt16
		got := make([]int32, B*F)
		timeDotsInt16(got, wt, state, B, F, M)
		for b := 0; b < B; b++ {
			for f := 0; f < F; f++ {
				var want int32
				for m := 0; m < M; m++ {
					want += int32(wt[f*M+m]) * int32(state[(b*F+f)*M+m])
				}
				if got[b*F+f] != want {
					t.Fatalf("M=%d batch %d filter %d: %d, want %d", M, b, f, got[b*F+f], want)
				}
			}
		}
	}
}
