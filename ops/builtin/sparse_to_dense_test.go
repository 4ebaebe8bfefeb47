package builtin

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SPARSE_TO_DENSE: TFLite's kernel test vectors (scalar and vector
// values, 1-D and 3-D outputs, int64 indices and shapes), index errors at
// Eval and the nodes Prepare refuses.

func TestSparseToDense(t *testing.T) {
	// TFLite's ZeroDimensionTest: scalar index 3 into [5].
	n := node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{}, []int32{3}), c32(5), tensorOf(ops.Float32, []int{}, []float32{7}), tensorOf(ops.Float32, []int{}, []float32{0})}, outTensor(ops.Float32))
	k := NewSparseToDense()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{5})
	nearFloats(t, "ZeroDimension", n.Outputs[0].Float32s(), []float64{0, 0, 0, 7, 0}, 0)
	noAllocs(t, k, n)
	// TFLite's ThreeDimensionsTest with int64 indices and shape.
	idx := tensorOf(ops.Int64, []int{2, 3}, []int64{0, 0, 0, 1, 2, 1})
	shp := constT(tensorOf(ops.Int64, []int{3}, []int64{3, 3, 3}))
	n = node(nil, []*ops.Tensor{idx, shp, tensorOf(ops.Int32, []int{2}, []int32{2, 4}), tensorOf(ops.Int32, []int{}, []int32{1})}, outTensor(ops.Int32))
	run(t, NewSparseToDense(), n)
	want := make([]int, 27)
	for i := range want {
		want[i] = 1
	}
	want[0], want[1*9+2*3+1] = 2, 4
	equalInts(t, "ThreeDimensions", n.Outputs[0].Int32s(), want)
	// Vector indices with scalar value broadcast, later rows overwrite.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{3}, []int32{1, 3, 1}), c32(4), tensorOf(ops.Uint8, []int{}, []uint8{9}), tensorOf(ops.Uint8, []int{1}, []uint8{2})}, outTensor(ops.Uint8))
	run(t, NewSparseToDense(), n)
	equalInts(t, "scalar value", n.Outputs[0].Uint8s(), []int{2, 9, 2, 9})

	// Out-of-range index fails Eval.
	n = node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{2, 2}, []int32{0, 1, 2, 0}), c32(2, 2), tensorOf(ops.Int8, []int{2}, []int8{1, 2}), tensorOf(ops.Int8, []int{}, []int8{0})}, outTensor(ops.Int8))
	k = NewSparseToDense()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "row 1 coordinate 0 is 2") {
		t.Fatalf("Eval: %v", err)
	}

	f := func(v ...float32) *ops.Tensor { return tensorOf(ops.Float32, []int{len(v)}, v) }
	def := tensorOf(ops.Float32, []int{}, []float32{0})
	i32 := func(shape []int, v ...int32) *ops.Tensor { return tensorOf(ops.Int32, shape, v) }
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"indices rank 3", node(nil, []*ops.Tensor{i32([]int{1, 1, 1}, 0), c32(2), f(1), def}, outTensor(ops.Float32)), []string{"rank 3"}},
		{"values rank 2", node(nil, []*ops.Tensor{i32([]int{1}, 0), c32(2), tensorOf(ops.Float32, []int{1, 1}, []float32{1}), def}, outTensor(ops.Float32)), []string{"values", "rank 2"}},
		{"value count", node(nil, []*ops.Tensor{i32([]int{2}, 0, 1), c32(2), f(1), def}, outTensor(ops.Float32)), []string{"1 values for 2"}},
		{"shape for vector", node(nil, []*ops.Tensor{i32([]int{1}, 0), c32(2, 2), f(1), def}, outTensor(ops.Float32)), []string{"need 1"}},
		{"coordinates", node(nil, []*ops.Tensor{i32([]int{1, 3}, 0, 0, 0), c32(2, 2), f(1), def}, outTensor(ops.Float32)), []string{"3 coordinates", "rank 2"}},
		{"rank 5", node(nil, []*ops.Tensor{i32([]int{1, 5}, 0, 0, 0, 0, 0), c32(1, 1, 1, 1, 1), f(1), def}, outTensor(ops.Float32)), []string{"at most 4"}},
		{"default type", node(nil, []*ops.Tensor{i32([]int{1}, 0), c32(2), f(1), tensorOf(ops.Int32, []int{}, []int32{0})}, outTensor(ops.Float32)), []string{"default_value", "int32"}},
		{"default count", node(nil, []*ops.Tensor{i32([]int{1}, 0), c32(2), f(1), f(0, 0)}, outTensor(ops.Float32)), []string{"one element"}},
		{"bool values", node(nil, []*ops.Tensor{i32([]int{1}, 0), c32(2), tensorOf(ops.Bool, []int{1}, []bool{true}), tensorOf(ops.Bool, []int{}, []bool{false})}, outTensor(ops.Bool)), []string{"bool"}},
		{"dynamic shape", node(nil, []*ops.Tensor{i32([]int{1}, 0), i32([]int{1}, 2), f(1), def}, outTensor(ops.Float32)), []string{"input 1", "must be a constant tensor"}},
		{"negative size", node(nil, []*ops.Tensor{i32([]int{1}, 0), c32(-2), f(1), def}, outTensor(ops.Float32)), []string{"entry 0 is -2"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewSparseToDense(), c.n, c.wants...) })
	}
}
