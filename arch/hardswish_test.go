package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHardSwishF32 checks the portable form against the formula.
func TestHardSwishF32(t *testing.T) {
	for _, c := range []struct{ x, want float32 }{
		{-4, 0}, {-3, 0}, {0, 0}, {3, 3}, {10, 10}, {1, float32(float32(1*4) * hardSwishSixth)},
		{-1.5, float32(float32(-1.5*1.5) * hardSwishSixth)},
	} {
		got := make([]float32, 1)
		hardSwishGeneric(got, []float32{c.x})
		if got[0] != c.want {
			t.Errorf("hard_swish(%v) = %v, want %v", c.x, got[0], c.want)
		}
	}
	got := make([]float32, 3)
	hardSwishGeneric(got, []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))})
	if got[0] == got[0] || !math.IsInf(float64(got[1]), 1) || got[2] == got[2] {
		t.Errorf("hard_swish(NaN, +Inf, -Inf) = %v", got)
	}
}

// TestTwinHardSwish compares every implementation with the portable one,
// bit for bit, on random and edge values at every length up to 257, out
// of place and in place.
func TestTwinHardSwish(t *testing.T) {
	r := rand.New(rand.NewPCG(87, 88))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		-3, 3, -3.0000002, -2.9999998, 2.9999998, 3.0000002, 1e-40, -1e-40, math.MaxFloat32, -math.MaxFloat32}
	for n := 0; n <= 257; n++ {
		off := n % 3
		x := make([]float32, n+off)
		for i := range x {
			if r.IntN(4) == 0 {
				x[i] = specials[r.IntN(len(specials))]
			} else {
				x[i] = float32(16*r.Float64() - 8)
			}
		}
		x = x[off:]
		want := make([]float32, n)
		hardSwishGeneric(want, x)
		for _, im := range implsOf(hardSwishImpls) {
			got := make([]float32, n)
			im.fn(got, x)
			inPlace := append([]float32(nil), x...)
			im.fn(inPlace, inPlace)
			for i := range got {
				for _, g := range []float32{got[i], inPlace[i]} {
					if math.Float32bits(g) != math.Float32bits(want[i]) && !(g != g && want[i] != want[i]) {
						t.Fatalf("%s n=%d: hard_swish(%v) = %v, portable %v", im.name, n, x[i], g, want[i])
					}
				}
			}
		}
	}
}

func BenchmarkHardSwishF32(b *testing.B) {
	x := make([]float32, 4096)
	for i := range x {
		x[i] = float32(i%160)/10 - 8
	}
	dst := make([]float32, len(x))
	for _, im := range implsOf(hardSwishImpls) {
		b.Run(im.name, func(b *testing.B) {
			for range b.N {
				im.fn(dst, x)
			}
		})
	}
}
