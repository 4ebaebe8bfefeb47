package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SQUEEZE and EXPAND_DIMS: TFLite's kernel-test vectors
// (squeeze_test.cc, expand_dims_test.cc).

func TestSqueezeExpandDims(t *testing.T) {
	in := tensorOf(ops.Float32, []int{1, 24, 1}, f32Seq(24))
	for _, tc := range []struct {
		dims []int
		want []int
	}{{nil, []int{24}}, {[]int{-1, 0}, []int{24}}, {[]int{2}, []int{1, 24}}} {
		n := node(&SqueezeOptions{SqueezeDims: tc.dims}, []*ops.Tensor{in}, outTensor(ops.Float32))
		k := NewSqueeze()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, tc.want)
		nearFloats(t, "squeeze", n.Outputs[0].Float32s()[:3], []float64{0, 1, 2}, 0)
		noAllocs(t, k, n)
	}
	wantPrepareError(t, NewSqueeze(), node(&SqueezeOptions{SqueezeDims: []int{1}}, []*ops.Tensor{in}, outTensor(ops.Float32)), "size 24")
	// ExpandDimsOpTest.PositiveAxis / NegativeAxis on a [2, 2] input, int32
	// and int64 axis tensors.
	x := tensorOf(ops.Float32, []int{2, 2}, []float32{-1, 1, -2, 2})
	for _, tc := range []struct {
		axis *ops.Tensor
		want []int
	}{
		{constT(tensorOf(ops.Int32, []int{1}, []int32{0})), []int{1, 2, 2}},
		{constT(tensorOf(ops.Int32, []int{1}, []int32{1})), []int{2, 1, 2}},
		{constT(tensorOf(ops.Int32, []int{1}, []int32{2})), []int{2, 2, 1}},
		{constT(tensorOf(ops.Int64, []int{}, []int64{-1})), []int{2, 2, 1}},
		{constT(tensorOf(ops.Int32, []int{1}, []int32{-3})), []int{1, 2, 2}},
	} {
		n := node(nil, []*ops.Tensor{x, tc.axis}, outTensor(ops.Float32))
		k := NewExpandDims()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, tc.want)
		nearFloats(t, "expand_dims", n.Outputs[0].Float32s(), []float64{-1, 1, -2, 2}, 0)
		noAllocs(t, k, n)
	}
	wantPrepareError(t, NewExpandDims(), node(nil, []*ops.Tensor{x, constT(tensorOf(ops.Int32, []int{1}, []int32{3}))}, outTensor(ops.Float32)), "outside")
	wantPrepareError(t, NewExpandDims(), node(nil, []*ops.Tensor{x, tensorOf(ops.Int32, []int{1}, []int32{0})}, outTensor(ops.Float32)), "constant")
}
