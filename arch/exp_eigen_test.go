package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpEigenLane checks the portable lane against float64 e^x (Eigen's
// pexp_float is within 2 float32 ulps of it on its domain) and at the
// edges of its domain.
func TestExpEigenLane(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for range 100000 {
		x := float32(200*r.Float64() - 110)
		got := float64(expEigenLane(x))
		want := math.Exp(float64(math.Min(float64(x), eigenExpHi)))
		if x < eigenExpLo {
			want = 0
		}
		if want > math.MaxFloat32 {
			if !math.IsInf(got, 1) {
				t.Fatalf("e^%v = %g, want +Inf", x, got)
			}
			continue
		}
		if want < 0x1p-126 {
			if got != 0 && math.Abs(got-want) > 0x1p-149 {
				t.Fatalf("e^%v = %g, want %g", x, got, want)
			}
			continue
		}
		if math.Abs(got-want) > 2*math.Abs(want)*0x1p-24 {
			t.Fatalf("e^%v = %g, want %g (%.3g ulps)", x, got, want, math.Abs(got-want)/(math.Abs(want)*0x1p-24))
		}
	}
	for _, c := range []struct{ x, want float32 }{
		{0, 1}, {float32(math.Inf(-1)), 0}, {-104.5, 0},
	} {
		if got := expEigenLane(c.x); got != c.want {
			t.Errorf("e^%v = %v, want %v", c.x, got, c.want)
		}
	}
	if got := expEigenLane(float32(math.Inf(1))); !math.IsInf(float64(got), 1) && got != float32(math.Exp(eigenExpHi)) {
		t.Errorf("e^+Inf = %v", got)
	}
	if got := expEigenLane(float32(math.NaN())); got == got {
		t.Errorf("e^NaN = %v", got)
	}
}

// TestTwinExpEigen compares every implementation of ExpEigenF32 with the
// portable one, bit for bit, on random and edge values (the fast path's
// limits ±87, the clamp, the zero bound, NaN, infinities, subnormals) at
// every length up to 257 and unaligned starts.
func TestTwinExpEigen(t *testing.T) {
	r := rand.New(rand.NewPCG(85, 86))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		-104, -103.99999, -104.00001, 87, -87, 87.00001, -87.00001, eigenExpHi, 88.7229, 89, 1e-40, -1e-40,
		math.MaxFloat32, -math.MaxFloat32, 0.5, -0.5, 0.34657359, -0.34657359}
	for n := 0; n <= 257; n++ {
		off := n % 3
		x := make([]float32, n+off)
		for i := range x {
			switch r.IntN(4) {
			case 0:
				x[i] = specials[r.IntN(len(specials))]
			case 1:
				x[i] = float32(240*r.Float64() - 120)
			default:
				x[i] = float32(20*r.Float64() - 10)
			}
		}
		x = x[off:]
		want := make([]float32, n)
		expEigenGeneric(want, x)
		for _, im := range implsOf(expEigenImpls) {
			got := make([]float32, n)
			im.fn(got, x)
			// In place too (dst = x), as SOFTMAX calls it.
			inPlace := append([]float32(nil), x...)
			im.fn(inPlace, inPlace)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%s n=%d: e^%v = %v, portable %v", im.name, n, x[i], got[i], want[i])
				}
				if math.Float32bits(inPlace[i]) != math.Float32bits(want[i]) && !(inPlace[i] != inPlace[i] && want[i] != want[i]) {
					t.Fatalf("%s n=%d in place: e^%v = %v, portable %v", im.name, n, x[i], inPlace[i], want[i])
				}
			}
		}
	}
}

func BenchmarkExpEigenF32(b *testing.B) {
	x := make([]float32, 4096)
	for i := range x {
		x[i] = float32(i%200)/10 - 15
	}
	dst := make([]float32, len(x))
	for _, im := range implsOf(expEigenImpls) {
		b.Run(im.name, func(b *testing.B) {
			for range b.N {
				im.fn(dst, x)
			}
		})
	}
}
