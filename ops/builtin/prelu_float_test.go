package builtin

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestPReluFloatBroadcasts: float PRELU through the vector primitive (alpha
// of the input's shape, over the innermost dimensions, a scalar) and
// through the element loop (alpha repeating along an inner dimension)
// gives TFLite's x >= 0 ? x : x·alpha bit for bit, with NaN, ±Inf, ±0 and
// subnormals among the inputs; and float LEAKY_RELU gives x > 0 ? x : x·alpha.
func TestPReluFloatBroadcasts(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-45, -1e-40, -3e38}
	gen := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			if r.IntN(5) == 0 {
				v[i] = specials[r.IntN(len(specials))]
			} else {
				v[i] = float32(r.NormFloat64())
			}
		}
		return v
	}
	elems := func(s []int) int {
		n := 1
		for _, d := range s {
			n *= d
		}
		return n
	}
	for _, c := range []struct{ x, a []int }{
		{[]int{1, 5, 7, 19}, []int{1, 5, 7, 19}},
		{[]int{1, 6, 5, 19}, []int{1, 1, 19}},
		{[]int{1, 6, 5, 3}, []int{3}},
		{[]int{2, 4, 4, 33}, []int{4, 1, 33}},
		{[]int{1, 3, 4, 5}, []int{1}},
		{[]int{1, 3, 4, 5}, []int{3, 1, 1}},
		{[]int{1, 0, 4, 5}, []int{5}},
	} {
		xv, av := gen(elems(c.x)), gen(elems(c.a))
		x := tensorOf(ops.Float32, c.x, xv)
		alpha := tensorOf(ops.Float32, c.a, av)
		got := runOut(t, NewPRelu(), nil, []*ops.Tensor{x, alpha}, outTensor(ops.Float32)).Float32s()
		// The reference broadcast: alpha's shape right-aligned against x's.
		off := len(c.x) - len(c.a)
		idx := make([]int, len(c.x))
		for i := range xv {
			rem := i
			for d := len(c.x) - 1; d >= 0; d-- {
				idx[d] = rem % c.x[d]
				rem /= c.x[d]
			}
			ai := 0
			for d := range c.a {
				k := idx[off+d]
				if c.a[d] == 1 {
					k = 0
				}
				ai = ai*c.a[d] + k
			}
			want := xv[i]
			if !(want >= 0) {
				want *= av[ai]
			}
			if math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Fatalf("PRELU x%v alpha%v element %d: prelu(%v, %v) = %v, want %v", c.x, c.a, i, xv[i], av[ai], got[i], want)
			}
		}
	}
	for _, alpha := range []float32{0.2, -0.3, 0} {
		xv := gen(301)
		got := runOut(t, NewLeakyRelu(), &LeakyReluOptions{Alpha: alpha}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 301}, xv)}, outTensor(ops.Float32)).Float32s()
		for i, v := range xv {
			want := v
			if !(v > 0) {
				want = v * alpha
			}
			if math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Fatalf("LEAKY_RELU alpha %v of %v = %v, want %v", alpha, v, got[i], want)
			}
		}
	}
}
