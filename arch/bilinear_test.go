package arch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Tests of BilinearF32: the portable code is the four-term sum in
// TFLite's order (checked against a float64 evaluation rounded step by
// step), and every usable implementation gives its bits for lengths
// 0..257 at odd offsets, with the sources ending right before an
// inaccessible page and guard bands around dst, for weights of real
// resizes (products of fractions, 0 and 1 included) and values with NaN,
// ±Inf, ±0 and subnormals.

func bilinearRef(p00, p01, p10, p11 float32, w *[4]float32) float32 {
	r := func(x float64) float64 { return float64(float32(x)) }
	v := r(0 + r(float64(p00)*float64(w[0])))
	v = r(v + r(float64(p01)*float64(w[1])))
	v = r(v + r(float64(p10)*float64(w[2])))
	return float32(v + r(float64(p11)*float64(w[3])))
}

// bilinearSame fails unless got and want hold the same bits, or NaN
// both: where two NaNs meet in a sum, which payload survives depends on
// the operand order the Go compiler chose for the portable code.
func bilinearSame(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
			t.Fatalf("%s n=%d element %d: got %v (%#x), want %v (%#x)", what, len(want), i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

func TestTwinBilinearF32(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	fracs := []float32{0, 1, 0.5, 0.25, 0.1, 0.9999, 1e-3, 0.3333}
	for _, im := range implsOf(bilinearF32Impls) {
		var tails [4][]float32
		for j := range tails {
			tails[j] = tailF32(t, 257)
		}
		for n := 0; n <= 257; n++ {
			dy, dx := fracs[r.IntN(len(fracs))], fracs[r.IntN(len(fracs))]
			if n%3 == 0 {
				dy, dx = float32(r.Float64()), float32(r.Float64())
			}
			w := &[4]float32{float32((1 - dy) * (1 - dx)), float32((1 - dy) * dx), float32(dy * (1 - dx)), float32(dy * dx)}
			var p [4][]float32
			for j := range p {
				p[j] = genPRelu(r, n)
			}
			want := make([]float32, n)
			bilinearF32Generic(want, p[0], p[1], p[2], p[3], w)
			for i := range want {
				ref := bilinearRef(p[0][i], p[1][i], p[2][i], p[3][i], w)
				if math.Float32bits(ref) != math.Float32bits(want[i]) && !(ref != ref && want[i] != want[i]) {
					t.Fatalf("generic n=%d element %d: %v, reference %v", n, i, want[i], ref)
				}
			}
			off := n % 5
			buf, dst := guardedF32(n, off)
			im.fn(dst, p[0], p[1], p[2], p[3], w)
			checkGuardsF32(t, im.name, buf, guard+off, n)
			bilinearSame(t, im.name, dst, want)
			var q [4][]float32
			for j := range q {
				q[j] = tails[j][257-n:]
				copy(q[j], p[j])
			}
			d := make([]float32, n)
			im.fn(d, q[0], q[1], q[2], q[3], w)
			bilinearSame(t, im.name+" page end", d, want)
		}
	}
	forEachLevel(t, func(t *testing.T) {
		negz := float32(math.Copysign(0, -1))
		p := []float32{negz, 2, float32(math.NaN()), 1e-45, 7}
		w := &[4]float32{0.25, 0.25, 0.25, 0.25}
		got := make([]float32, 1)
		BilinearF32(got, p[0:], p[0:], p[0:], p[0:], w)
		if math.Float32bits(got[0]) != 0 {
			t.Fatalf("BilinearF32 of -0 corners = %v (%#x), want +0", got[0], math.Float32bits(got[0]))
		}
		got = make([]float32, 5)
		want := make([]float32, 5)
		BilinearF32(got, p, p, p, p, w)
		bilinearF32Generic(want, p, p, p, p, w)
		bilinearSame(t, "BilinearF32", got, want)
		BilinearF32(nil, nil, nil, nil, nil, w)
	})
}

// BenchmarkBilinearF32 times every usable implementation on one pixel of
// 21 channels (DeepLab's last resize) and of 256 (a feature pyramid's
// upsampling), as the kernel calls it (go test ./arch -run '^$' -bench
// BilinearF32).
func BenchmarkBilinearF32(b *testing.B) {
	w := &[4]float32{0.1, 0.2, 0.3, 0.4}
	for _, d := range []int{21, 256} {
		var p [4][]float32
		for j := range p {
			p[j] = make([]float32, d)
			for i := range p[j] {
				p[j][i] = float32(i*j) * 0.01
			}
		}
		dst := make([]float32, d)
		for _, im := range implsOf(bilinearF32Impls) {
			b.Run(fmt.Sprintf("%s/%d", im.name, d), func(b *testing.B) {
				for b.Loop() {
					im.fn(dst, p[0], p[1], p[2], p[3], w)
				}
			})
		}
	}
}
