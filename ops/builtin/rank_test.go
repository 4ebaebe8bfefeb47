package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of RANK: the rank of inputs of every rank and of a string tensor,
// and the output type TFLite produces.

func TestRank(t *testing.T) {
	for _, shape := range [][]int{{}, {3}, {1, 2, 3, 4, 5, 6, 7}} {
		n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, shape, make([]float32, prod(shape)))}, outTensor(ops.Int32))
		k := NewRank()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, []int{})
		equalInts(t, "rank", n.Outputs[0].Int32s(), []int{len(shape)})
		noAllocs(t, k, n)
	}
	// The input's data is never read: a string tensor has a rank too.
	n := node(nil, []*ops.Tensor{{Type: ops.String, Shape: []int{2, 2}}}, outTensor(ops.Int32))
	run(t, NewRank(), n)
	equalInts(t, "string", n.Outputs[0].Int32s(), []int{2})
	wantPrepareError(t, NewRank(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1}, []float32{1})}, outTensor(ops.Int64)), "output 0", "int64")
	wantPrepareError(t, NewRank(), node(nil, []*ops.Tensor{nil}, outTensor(ops.Int32)), "input 0")
}
