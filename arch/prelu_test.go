package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of PReluF32 and LeakyReluF32: the portable code follows TFLite's
// formulas on hand-picked values, and every usable implementation gives
// the portable result bit for bit (NaN payloads, ±0, ±Inf and subnormals
// included) for lengths 0..257 at odd offsets, in place on x or alpha,
// ending right before an inaccessible page, with guard bands around dst.

var preluSpecials = []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
	float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001),
	math.Float32frombits(0xff800001), 1e-45, -1e-45, 1e-39, -1e-39, math.MaxFloat32, -math.MaxFloat32, 0.5, -3}

func genPRelu(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	genF32(r, x, kindMixed)
	for i := range x {
		if r.IntN(4) == 0 {
			x[i] = preluSpecials[r.IntN(len(preluSpecials))]
		}
	}
	return x
}

// preluSame fails unless got and want are the same bits. alpha(i) is
// element i's alpha: where x[i] and alpha(i) are both NaN, any NaN is
// accepted, because which payload a product of two NaNs keeps follows the
// multiply's operand order (x86 returns the first source's), and Go's
// compiler may order the portable code's operands either way (it did
// under -race).
// scalar is preluSame's alpha for LEAKY_RELU's single alpha.
func scalar(alpha float32) func(int) float32 { return func(int) float32 { return alpha } }

func preluSame(t *testing.T, what string, got, want, x []float32, alpha func(i int) float32) {
	t.Helper()
	for i := range want {
		if a := alpha(i); x[i] != x[i] && a != a && got[i] != got[i] {
			continue
		}
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s n=%d element %d (x=%v): got %v (%#x), want %v (%#x)", what, len(want), i, x[i], got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

func TestPReluGenericFormula(t *testing.T) {
	negz := float32(math.Copysign(0, -1))
	nan := float32(math.NaN())
	x := []float32{2, -2, 0, negz, negz, float32(math.Inf(-1)), -1e-45, 1e-45, nan}
	a := []float32{5, 0.25, -1, -1, 3, 2, 0.5, -7, 2}
	want := []float32{2, -0.5, 0, negz, negz, float32(math.Inf(-1)), negz, 1e-45, nan}
	got := make([]float32, len(x))
	preluF32Generic(got, x, a)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(want[i] != want[i] && got[i] != got[i]) {
			t.Errorf("prelu(%v, %v) = %v, want %v", x[i], a[i], got[i], want[i])
		}
	}
	// Leaky ReLU takes the product at zero: -0·0.2 = -0, 0·(-1) = -0.
	lx := []float32{3, -3, 0, negz, 1e-45, -1e-40}
	lwant := []float32{3, -0.6, 0, negz, 1e-45, -1e-40 * 0.2}
	leakyReluF32Generic(got[:len(lx)], lx, 0.2)
	preluSame(t, "leaky alpha=0.2", got[:len(lx)], lwant, lx, scalar(0.2))
	leakyReluF32Generic(got[:3], []float32{0, -4, 4}, -1)
	preluSame(t, "leaky alpha=-1", got[:3], []float32{negz, 4, 4}, []float32{0, -4, 4}, scalar(-1))
}

func TestTwinPReluF32(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, im := range implsOf(preluF32Impls) {
		tailX := tailF32(t, 257)
		for n := 0; n <= 257; n++ {
			x, a := genPRelu(r, n), genPRelu(r, n)
			ai := func(i int) float32 { return a[i] }
			want := make([]float32, n)
			preluF32Generic(want, x, a)
			for off := 0; off < 4; off += 1 + n%3 {
				buf, dst := guardedF32(n, off)
				im.fn(dst, x, a)
				checkGuardsF32(t, im.name, buf, guard+off, n)
				preluSame(t, im.name, dst, want, x, ai)
			}
			// In place on x and on alpha.
			d := append([]float32(nil), x...)
			im.fn(d, d, a)
			preluSame(t, im.name+" dst=x", d, want, x, ai)
			d = append(d[:0], a...)
			im.fn(d, x, d)
			preluSame(t, im.name+" dst=alpha", d, want, x, ai)
			// Both inputs ending right before an inaccessible page.
			xv := tailX[len(tailX)-n:]
			copy(xv, x)
			av := tailF32(t, n)
			copy(av, a)
			d = make([]float32, n)
			im.fn(d, xv, av)
			preluSame(t, im.name+" page end", d, want, x, ai)
		}
	}
	forEachLevel(t, func(t *testing.T) {
		x := []float32{-7, float32(math.NaN()), float32(math.Copysign(0, -1)), 3, float32(math.Inf(-1))}
		a := []float32{0.5, 2, -1, 4, 0.25}
		want := make([]float32, len(x))
		preluF32Generic(want, x, a)
		got := make([]float32, len(x))
		PReluF32(got, x, a)
		preluSame(t, "PReluF32", got, want, x, func(i int) float32 { return a[i] })
		PReluF32(nil, nil, nil)
	})
}

func TestTwinLeakyReluF32(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	alphas := []float32{0.2, 0.01, -0.5, 0, float32(math.Copysign(0, -1)), 1, 3, 1e-40, float32(math.NaN()), float32(math.Inf(1))}
	for _, im := range implsOf(leakyReluF32Impls) {
		tailX := tailF32(t, 257)
		for n := 0; n <= 257; n++ {
			x := genPRelu(r, n)
			alpha := alphas[n%len(alphas)]
			want := make([]float32, n)
			leakyReluF32Generic(want, x, alpha)
			for off := 0; off < 4; off += 1 + n%3 {
				buf, dst := guardedF32(n, off)
				im.fn(dst, x, alpha)
				checkGuardsF32(t, im.name, buf, guard+off, n)
				preluSame(t, im.name, dst, want, x, scalar(alpha))
			}
			d := append([]float32(nil), x...)
			im.fn(d, d, alpha)
			preluSame(t, im.name+" in place", d, want, x, scalar(alpha))
			xv := tailX[len(tailX)-n:]
			copy(xv, x)
			d = make([]float32, n)
			im.fn(d, xv, alpha)
			preluSame(t, im.name+" page end", d, want, x, scalar(alpha))
		}
	}
	forEachLevel(t, func(t *testing.T) {
		x := []float32{-7, float32(math.NaN()), float32(math.Copysign(0, -1)), 3, 0}
		want := make([]float32, len(x))
		leakyReluF32Generic(want, x, -0.1)
		got := make([]float32, len(x))
		LeakyReluF32(got, x, -0.1)
		preluSame(t, "LeakyReluF32", got, want, x, scalar(-0.1))
		LeakyReluF32(nil, nil, 0.2)
	})
}

// BenchmarkPReluF32 times every usable PReluF32 and LeakyReluF32 on 16K
// values (go test ./arch -run '^$' -bench 'PReluF32|LeakyReluF32').
func BenchmarkPReluF32(b *testing.B) {
	x, a := make([]float32, 16<<10), make([]float32, 16<<10)
	for i := range x {
		x[i], a[i] = float32(i%7)-3, 0.25
	}
	dst := make([]float32, len(x))
	for _, im := range implsOf(preluF32Impls) {
		b.Run(im.name, func(b *testing.B) {
			for b.Loop() {
				im.fn(dst, x, a)
			}
		})
	}
	for _, im := range implsOf(leakyReluF32Impls) {
		b.Run("leaky/"+im.name, func(b *testing.B) {
			for b.Loop() {
				im.fn(dst, x, 0.2)
			}
		})
	}
}
