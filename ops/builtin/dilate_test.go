package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func TestDilate(t *testing.T) {
	// [[1, 2], [3, 4]] dilated by [2, 3] with padding 0 is 3×4:
	// [[1 0 0 2] [0 0 0 0] [3 0 0 4]].
	in := tensorOf(ops.Int32, []int{2, 2}, []int32{1, 2, 3, 4})
	dl := constT(tensorOf(ops.Int32, []int{2}, []int32{2, 3}))
	pv := tensorOf(ops.Int32, nil, []int32{0})
	n := node(nil, []*ops.Tensor{in, dl, pv}, outTensor(ops.Int32))
	k := NewDilate()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{3, 4})
	equalInts(t, "2-D", n.Outputs[0].Int32s(), []int{1, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 4})
	noAllocs(t, k, n)

	// A float padding value: [1, 2, 3] dilated by [3] with -1.5 is
	// [1 p p 2 p p 3].
	f := tensorOf(ops.Float32, []int{3}, []float32{1, 2, 3})
	n = node(nil, []*ops.Tensor{f, constT(tensorOf(ops.Int32, []int{1}, []int32{3})), tensorOf(ops.Float32, []int{1}, []float32{-1.5})}, outTensor(ops.Float32))
	run(t, NewDilate(), n)
	equalFloat32s(t, "1-D", n.Outputs[0].Float32s(), []float32{1, -1.5, -1.5, 2, -1.5, -1.5, 3})

	// Run-time dilations: the output is dynamic and sized at Eval.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{2, 1}, []int8{5, 6}), tensorOf(ops.Int32, []int{2}, []int32{2, 4}), tensorOf(ops.Int8, nil, []int8{9})}, outTensor(ops.Int8))
	runDynamic(t, NewDilate(), n)
	wantShape(t, n.Outputs[0].Shape, []int{3, 1})
	equalInts(t, "dynamic", n.Outputs[0].Int8s(), []int{5, 9, 6})

	for _, c := range []struct {
		name string
		n    *ops.Node
		frag string
	}{
		{"zero dilation", node(nil, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{2}, []int32{1, 0})), pv}, outTensor(ops.Int32)), "need ≥ 1"},
		{"dilations shape", node(nil, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{1}, []int32{1})), pv}, outTensor(ops.Int32)), "int32 [2]"},
		{"scalar", node(nil, []*ops.Tensor{tensorOf(ops.Int32, nil, []int32{1}), constT(tensorOf(ops.Int32, []int{0}, []int32{})), pv}, outTensor(ops.Int32)), "scalar"},
		{"padding type", node(nil, []*ops.Tensor{in, dl, tensorOf(ops.Float32, nil, []float32{0})}, outTensor(ops.Int32)), "padding_value"},
		{"overflow", node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{3, 3}, make([]int8, 9)), constT(tensorOf(ops.Int32, []int{2}, []int32{1 << 30, 1 << 30})), tensorOf(ops.Int8, nil, []int8{0})}, outTensor(ops.Int8)), "overflow"},
		{"empty dilated", node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{0}, []int32{}), constT(tensorOf(ops.Int32, []int{1}, []int32{2})), pv}, outTensor(ops.Int32)), "negative"},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewDilate(), c.n, c.frag) })
	}
}
