package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of the broadcasting machinery: the dimension merging that lets
// high-rank operands broadcast.

// TestBroadcastMergesDimensions checks operands of rank above six: equal
// shapes take the flat loop, and a broadcast whose pattern changes at most
// five times is merged into six loop dimensions, against a direct
// float64 index computation.
func TestBroadcastMergesDimensions(t *testing.T) {
	sa := []int{2, 1, 3, 3, 1, 2, 2, 1}
	sb := []int{1, 2, 3, 3, 2, 1, 1, 1}
	na, nb := 1, 1
	for j := range sa {
		na *= sa[j]
		nb *= sb[j]
	}
	av, bv := make([]float32, na), make([]float32, nb)
	for j := range av {
		av[j] = float32(j)
	}
	for j := range bv {
		bv[j] = float32(1000 * j)
	}
	out := binRun(t, NewAdd(), nil, tensorOf(ops.Float32, sa, av), tensorOf(ops.Float32, sb, bv), ops.Float32)
	os := []int{2, 2, 3, 3, 2, 2, 2, 1}
	wantShape(t, out.Shape, os)
	var want []float64
	forEach(os, func(idx []int) {
		ia, ib := 0, 0
		for d := range os {
			xa, xb := idx[d], idx[d]
			if sa[d] == 1 {
				xa = 0
			}
			if sb[d] == 1 {
				xb = 0
			}
			ia = ia*sa[d] + xa
			ib = ib*sb[d] + xb
		}
		want = append(want, float64(av[ia])+float64(bv[ib]))
	})
	nearFloats(t, "8-D broadcast", out.Float32s(), want, 0)
}

// TestBroadcastShortRuns checks float ADD, SUB and MUL whose innermost
// broadcast runs are shorter than shortRun (RoPE's [.., 32, 2] against
// [.., 1, 2], per-channel operands of 3 channels), both operand orders
// and runs of 1 to 9, against the per-element float32 operation, bit for
// bit.
func TestBroadcastShortRuns(t *testing.T) {
	for _, c := range []struct{ sa, sb []int }{
		{[]int{4, 5, 32, 2}, []int{4, 5, 1, 2}},
		{[]int{4, 5, 1, 2}, []int{4, 5, 32, 2}},
		{[]int{2, 7, 3}, []int{3}},
		{[]int{3}, []int{2, 7, 3}},
		{[]int{3, 6, 1}, []int{3, 1, 9}},
		{[]int{2, 3, 4, 5}, []int{1, 3, 1, 5}},
		{[]int{6, 7}, []int{6, 1}},
		{[]int{6, 1}, []int{6, 7}},
	} {
		na, nb := prod(c.sa), prod(c.sb)
		av, bv := make([]float32, na), make([]float32, nb)
		for j := range av {
			av[j] = float32(j%17)*0.37 - 2.5
		}
		for j := range bv {
			bv[j] = float32(j%11)*1.9 - 7.25
		}
		os := make([]int, max(len(c.sa), len(c.sb)))
		pad := func(s []int) []int { return append(make([]int, len(os)-len(s)), s...) }
		pa, pb := pad(c.sa), pad(c.sb)
		for d := range os {
			os[d] = max(pa[d], pb[d], 1)
			if pa[d] == 0 {
				pa[d] = 1
			}
			if pb[d] == 0 {
				pb[d] = 1
			}
		}
		for _, k := range []struct {
			name string
			new  func() ops.Kernel
			f    func(x, y float32) float32
		}{
			{"ADD", NewAdd, func(x, y float32) float32 { return x + y }},
			{"SUB", NewSub, func(x, y float32) float32 { return x - y }},
			{"MUL", NewMul, func(x, y float32) float32 { return x * y }},
		} {
			out := binRun(t, k.new(), nil, tensorOf(ops.Float32, c.sa, av), tensorOf(ops.Float32, c.sb, bv), ops.Float32)
			wantShape(t, out.Shape, os)
			got := out.Float32s()
			i := 0
			forEach(os, func(idx []int) {
				ia, ib := 0, 0
				for d := range os {
					xa, xb := idx[d], idx[d]
					if pa[d] == 1 {
						xa = 0
					}
					if pb[d] == 1 {
						xb = 0
					}
					ia = ia*pa[d] + xa
					ib = ib*pb[d] + xb
				}
				if want := k.f(av[ia], bv[ib]); got[i] != want {
					t.Fatalf("%s %v, %v: element %d = %v, want %v", k.name, c.sa, c.sb, i, got[i], want)
				}
				i++
			})
		}
	}
}
