package arch

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

type actFunc = func(dst, x []float32)

// sigmoid64 and tanh64 are the float64 references.
func sigmoid64(x float32) float64 { return 1 / (1 + math.Exp(-float64(x))) }
func tanh64(x float32) float64    { return math.Tanh(float64(x)) }

// actCase is one activation with its reference and documented bound.
var actCases = []struct {
	name  string
	p     *impls[actFunc]
	ref   func(float32) float64
	bound float64 // maximum absolute error allowed against float64 (1e-6)
}{
	{"Sigmoid", sigmoidImpls, sigmoid64, 1e-6},
	{"Tanh", tanhImpls, tanh64, 1e-6},
}

// actTwinTol is how far two implementations may differ: each is within a
// couple of float32 ulps of 1 of the truth, FMA and rounding steps aside.
const actTwinTol = 4e-7

func specialInputs() []float32 {
	v := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.625, -0.625, 0.62499997, -0.62499997,
		87, -87, 88, -88, 88.5, -88.5, 100, -100, 1e10, -1e10, math.MaxFloat32, -math.MaxFloat32,
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1e-39, -1e-39, 1e-20, -1e-20,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 9, -9, 20, -20}
	return v
}

// checkAct compares got with the reference and the portable result.
func checkAct(t testing.TB, name, impl string, x, got, generic []float32, ref func(float32) float64, bound float64) {
	t.Helper()
	for i, v := range x {
		g, w := got[i], generic[i]
		want := ref(v)
		if math.IsNaN(want) {
			if g == g {
				t.Fatalf("%s %s(%v) = %v, want NaN", name, impl, v, g)
			}
			continue
		}
		if d := math.Abs(float64(g) - want); d > bound || g != g {
			t.Fatalf("%s %s(%v) = %v, want %v (error %.3g > %.3g)", name, impl, v, g, want, d, bound)
		}
		if d := math.Abs(float64(g) - float64(w)); d > actTwinTol {
			t.Fatalf("%s %s(%v) = %v, portable %v (differ by %.3g)", name, impl, v, g, w, d)
		}
		if name == "Tanh" && math.Signbit(float64(g)) != math.Signbit(float64(v)) {
			t.Fatalf("Tanh %s(%v) = %v has the wrong sign", impl, v, g)
		}
	}
}

func TestTwinActivations(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, c := range actCases {
		for _, im := range implsOf(c.p) {
			xTail := tailF32(t, 300)
			for n := 0; n <= 257; n++ {
				var x []float32
				if n%2 == 0 {
					x = xTail[len(xTail)-n:]
				} else {
					x = make([]float32, n+1)[1:]
				}
				for i := range x {
					switch r.IntN(4) {
					case 0:
						x[i] = float32(r.NormFloat64() * 3)
					case 1:
						x[i] = float32(r.NormFloat64() * 30)
					case 2:
						sp := specialInputs()
						x[i] = sp[r.IntN(len(sp))]
					default:
						x[i] = float32(r.Float64()*1.5 - 0.75)
					}
				}
				off := n % 4
				buf, dst := guardedF32(n, off)
				im.fn(dst, x)
				checkGuardsF32(t, c.name+" "+im.name, buf, guard+off, n)
				generic := make([]float32, n)
				c.p.list[0].fn(generic, x)
				checkAct(t, c.name, im.name, x, dst, generic, c.ref, c.bound)
				// In place.
				y := append([]float32(nil), x...)
				im.fn(y, y)
				for i := range y {
					if math.Float32bits(y[i]) != math.Float32bits(dst[i]) && !(y[i] != y[i] && dst[i] != dst[i]) {
						t.Fatalf("%s %s in place [%d]: %v, out of place %v", c.name, im.name, i, y[i], dst[i])
					}
				}
			}
		}
	}
}

// TestSigmoidTanhAccuracy sweeps a dense grid of float32 inputs (every
// 64th float32 between ±1e-6 and ±100, plus the specials) against float64
// math. TFLRUN_EXHAUSTIVE=1 makes it try all 2^32 bit patterns and log the
// maximum errors (a few minutes); that run gave the numbers in the doc
// comments of Sigmoid and Tanh.
func TestSigmoidTanhAccuracy(t *testing.T) {
	exhaustive := os.Getenv("TFLRUN_EXHAUSTIVE") != ""
	step := uint32(64)
	if exhaustive {
		step = 1
	} else if testing.Short() {
		step = 4096
	}
	for _, c := range actCases {
		// The inputs go in chunks through every implementation; the
		// float64 reference of a chunk is computed once.
		ims := implsOf(c.p)
		maxErr, worst := make([]float64, len(ims)), make([]float32, len(ims))
		const chunk = 1 << 16
		x := make([]float32, 0, chunk)
		y := make([]float32, chunk)
		want := make([]float64, chunk)
		flush := func() {
			for i, v := range x {
				want[i] = c.ref(v)
			}
			for k, im := range ims {
				im.fn(y[:len(x)], x)
				for i, v := range x {
					if math.IsNaN(want[i]) {
						if y[i] == y[i] {
							t.Fatalf("%s %s(%v) = %v, want NaN", c.name, im.name, v, y[i])
						}
						continue
					}
					if d := math.Abs(float64(y[i]) - want[i]); d > maxErr[k] || y[i] != y[i] {
						maxErr[k], worst[k] = d, v
						if d > c.bound || y[i] != y[i] {
							t.Fatalf("%s %s(%v) = %v, want %v (error %.3g)", c.name, im.name, v, y[i], want[i], d)
						}
					}
				}
			}
			x = x[:0]
		}
		add := func(v float32) {
			x = append(x, v)
			if len(x) == chunk {
				flush()
			}
		}
		for _, v := range specialInputs() {
			add(v)
		}
		if exhaustive {
			for b := uint64(0); b < 1<<32; b++ {
				add(math.Float32frombits(uint32(b)))
			}
		} else {
			lo, hi := math.Float32bits(1e-6), math.Float32bits(100)
			for b := lo; b <= hi; b += step {
				add(math.Float32frombits(b))
				add(-math.Float32frombits(b))
			}
		}
		flush()
		for k, im := range ims {
			t.Logf("%s %s: max abs error %.3g at x=%v", c.name, im.name, maxErr[k], worst[k])
		}
	}
}

// FuzzActivations covers Sigmoid and Tanh on arbitrary float32 bit
// patterns.
func FuzzActivations(f *testing.F) {
	f.Add(seedF32(specialInputs()...))
	f.Add(seedF32(0.1, -0.2, 0.3, 5, -7, 0.62, 0.63, 1e-3, -1e-30, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		x := bytesToF32(data)
		for _, c := range actCases {
			generic := make([]float32, len(x))
			c.p.list[0].fn(generic, x)
			for _, im := range implsOf(c.p) {
				got := make([]float32, len(x))
				im.fn(got, x)
				checkAct(t, c.name, im.name, x, got, generic, c.ref, c.bound)
			}
		}
	})
}
