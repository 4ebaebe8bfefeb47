package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLogisticEigenF32 checks Eigen's approximation against float64 math
// (within 2e-7 absolute, the flushed subnormal range within FLT_MIN),
// its cut-offs and the special values, in the packets and in the tail.
func TestLogisticEigenF32(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	for _, n := range []int{0, 1, 3, 4, 5, 8, 257} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(140*r.Float64() - 115)
		}
		dst := make([]float32, n)
		LogisticEigenF32(dst, x)
		for i, v := range dst {
			want := 1 / (1 + math.Exp(-float64(x[i])))
			if d := math.Abs(float64(v) - want); d > 2e-7 {
				t.Fatalf("n=%d: logistic(%v) = %v, want %v", n, x[i], v, want)
			}
			if v != 0 && v < 0x1p-126 {
				t.Fatalf("n=%d: logistic(%v) = %v, a subnormal", n, x[i], v)
			}
			if x[i] < -104 && v != 0 {
				t.Fatalf("n=%d: logistic(%v) = %v below Eigen's cut-off", n, x[i], v)
			}
		}
	}
	inf := float32(math.Inf(1))
	x := []float32{float32(math.NaN()), inf, -inf, 0, 16.6355324, 20, float32(math.NaN()), inf, -inf}
	dst := make([]float32, len(x))
	LogisticEigenF32(dst, x)
	for i, want := range []float32{float32(math.NaN()), 1, 0, 0.5, 1, 1, float32(math.NaN()), 1, 0} {
		if got := dst[i]; !(got == want || got != got && want != want) {
			t.Errorf("logistic(%v) = %v, want %v", x[i], got, want)
		}
	}
}

func BenchmarkLogisticEigenF32(b *testing.B) {
	x, dst := make([]float32, 4096), make([]float32, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range x {
		x[i] = float32(20*r.Float64() - 10)
	}
	for b.Loop() {
		LogisticEigenF32(dst, x)
	}
	b.SetBytes(4 * 4096)
}

// TestTwinLogisticEigen checks every implementation of the packet part
// against the portable one bit for bit (NaN as NaN), on sizes 0..257,
// unaligned starts, wide ranges and special values.
func TestTwinLogisticEigen(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		-104, -103.99999, logHi, 20, -87.3, -87.4, 1e-40, -1e-40, math.MaxFloat32, -math.MaxFloat32}
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
		logisticEigenPacketsGeneric(want, x)
		for _, im := range implsOf(logisticEigenImpls) {
			got := make([]float32, n)
			im.fn(got, x)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%s n=%d: logistic(%v) = %v, portable %v", im.name, n, x[i], got[i], want[i])
				}
			}
		}
	}
}
