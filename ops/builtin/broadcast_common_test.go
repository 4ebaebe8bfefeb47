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
