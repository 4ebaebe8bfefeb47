package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of FILL, SHAPE and ZEROS_LIKE: TFLite's vectors (fill_test.cc,
// shape_test.cc, zeros_like_test.cc) and errors.

func TestFillShapeZerosLike(t *testing.T) {
	out := runOut(t, NewFill(), nil, []*ops.Tensor{c32(2, 3), tensorOf(ops.Int32, []int{}, []int32{-11})}, outTensor(ops.Int32))
	wantShape(t, out.Shape, []int{2, 3})
	equalInts(t, "FillInt32", out.Int32s(), []int{-11, -11, -11, -11, -11, -11})
	out = runOut(t, NewFill(), nil, []*ops.Tensor{constT(tensorOf(ops.Int64, []int{3}, []int64{2, 2, 2})), tensorOf(ops.Float32, []int{}, []float32{4})}, outTensor(ops.Float32))
	nearFloats(t, "FillFloat", out.Float32s(), []float64{4, 4, 4, 4, 4, 4, 4, 4}, 0)
	out = runOut(t, NewFill(), nil, []*ops.Tensor{c32(), tensorOf(ops.Bool, []int{}, []bool{true})}, outTensor(ops.Bool))
	if len(out.Shape) != 0 || !out.Bools()[0] {
		t.Fatalf("Fill scalar bool: shape %v %v", out.Shape, out.Bools())
	}
	wantPrepareError(t, NewFill(), node(nil, []*ops.Tensor{c32(2, -1), tensorOf(ops.Int32, []int{}, []int32{1})}, outTensor(ops.Int32)), "entry 1")
	wantPrepareError(t, NewFill(), node(nil, []*ops.Tensor{c32(2), tensorOf(ops.Int32, []int{1}, []int32{1})}, outTensor(ops.Int32)), "scalar")
	wantPrepareError(t, NewFill(), node(nil, []*ops.Tensor{c32(2), q(tensorOf(ops.Int8, []int{}, []int8{1}), 0.5, 0)}, q(outTensor(ops.Int8), 0.25, 0)), "quantization")

	in := tensorOf(ops.Float32, []int{1, 3, 1, 2}, make([]float32, 6))
	out = runOut(t, NewShape(), &ShapeOptions{OutType: ops.Int32}, []*ops.Tensor{in}, outTensor(ops.Int32))
	wantShape(t, out.Shape, []int{4})
	equalInts(t, "Shape int32", out.Int32s(), []int{1, 3, 1, 2})
	equalInts(t, "Shape int64", runOut(t, NewShape(), &ShapeOptions{OutType: ops.Int64}, []*ops.Tensor{in}, outTensor(ops.Int64)).Int64s(), []int{1, 3, 1, 2})
	wantPrepareError(t, NewShape(), node(&ShapeOptions{OutType: ops.Int32}, []*ops.Tensor{in}, outTensor(ops.Int64)), "options")
	wantPrepareError(t, NewShape(), node(nil, []*ops.Tensor{in}, outTensor(ops.Int32)), "ShapeOptions missing")

	zl := runOut(t, NewZerosLike(), nil, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 2}, []float32{-2, 5, 1e9, 3})}, outTensor(ops.Float32))
	nearFloats(t, "ZerosLike", zl.Float32s(), []float64{0, 0, 0, 0}, 0)
	equalInts(t, "ZerosLike int64", runOut(t, NewZerosLike(), nil, []*ops.Tensor{tensorOf(ops.Int64, []int{2}, []int64{4, -4})}, outTensor(ops.Int64)).Int64s(), []int{0, 0})
	wantPrepareError(t, NewZerosLike(), node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{1}, []int8{1})}, outTensor(ops.Int8)), "int8")
}
