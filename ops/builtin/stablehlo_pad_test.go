package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func TestStablehloPad(t *testing.T) {
	pad := func(lo, hi, ip []int64) *StablehloPadOptions {
		return &StablehloPadOptions{EdgePaddingLow: lo, EdgePaddingHigh: hi, InteriorPadding: ip}
	}
	// The StableHLO specification's example: low [0, 1], high [2, 1],
	// interior [1, 2] on a 2×3 operand gives 5×9.
	in := tensorOf(ops.Int32, []int{2, 3}, []int32{1, 2, 3, 4, 5, 6})
	pv := tensorOf(ops.Int32, nil, []int32{0})
	n := node(pad([]int64{0, 1}, []int64{2, 1}, []int64{1, 2}), []*ops.Tensor{in, pv}, outTensor(ops.Int32))
	k := NewStablehloPad()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{5, 9})
	equalInts(t, "spec example", n.Outputs[0].Int32s(), []int{
		0, 1, 0, 0, 2, 0, 0, 3, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 4, 0, 0, 5, 0, 0, 6, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0,
	})
	noAllocs(t, k, n)

	f := tensorOf(ops.Float32, []int{5}, []float32{1, 2, 3, 4, 5})
	p := tensorOf(ops.Float32, []int{1}, []float32{-9})
	for _, tc := range []struct {
		name       string
		lo, hi, ip int64
		want       []float32
	}{
		// [1 p 2 p 3 p 4 p 5] cropped by one at each end; [1 p p 2 p p 3 p p
		// 4 p p 5] cropped by 2 and 3 in the last case.
		{"negative edges with interior", -1, -1, 1, []float32{-9, 2, -9, 3, -9, 4, -9}},
		{"crop low, pad high", -2, 1, 0, []float32{3, 4, 5, -9}},
		{"crop into the interior", -2, -3, 2, []float32{-9, 2, -9, -9, 3, -9, -9, 4}},
	} {
		n := node(pad([]int64{tc.lo}, []int64{tc.hi}, []int64{tc.ip}), []*ops.Tensor{f, p}, outTensor(ops.Float32))
		run(t, NewStablehloPad(), n)
		equalFloat32s(t, tc.name, n.Outputs[0].Float32s(), tc.want)
	}
	// An output dimension ≤ 0 empties every dimension, as TFLite.
	n = node(pad([]int64{-3, 0}, []int64{0, 1}, []int64{0, 0}), []*ops.Tensor{in, pv}, outTensor(ops.Int32))
	run(t, NewStablehloPad(), n)
	wantShape(t, n.Outputs[0].Shape, []int{0, 0})

	for _, c := range []struct {
		name string
		n    *ops.Node
		frag string
	}{
		{"negative interior", node(pad([]int64{0, 0}, []int64{0, 0}, []int64{0, -1}), []*ops.Tensor{in, pv}, outTensor(ops.Int32)), "interior_padding[1]"},
		{"short options", node(pad([]int64{0}, []int64{0, 0}, []int64{0, 0}), []*ops.Tensor{in, pv}, outTensor(ops.Int32)), "edge_padding_low"},
		{"overflow", node(pad([]int64{0, 0}, []int64{0, 0}, []int64{0, 1 << 30}), []*ops.Tensor{in, pv}, outTensor(ops.Int32)), "overflows"},
		{"padding value type", node(pad([]int64{0, 0}, []int64{0, 0}, []int64{0, 0}), []*ops.Tensor{in, p}, outTensor(ops.Int32)), "padding_value"},
		{"no options", node(nil, []*ops.Tensor{in, pv}, outTensor(ops.Int32)), "StablehloPadOptions"},
		{"scalar", node(pad(nil, nil, nil), []*ops.Tensor{tensorOf(ops.Int32, nil, []int32{1}), pv}, outTensor(ops.Int32)), "rank 0"},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewStablehloPad(), c.n, c.frag) })
	}
}
