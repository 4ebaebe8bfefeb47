package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SELECT and SELECT_V2: TFLite's vectors (select_test.cc), index
// references over random shapes, and errors.

func TestSelect(t *testing.T) {
	T, F := true, false
	b := func(shape []int, v ...bool) *ops.Tensor { return tensorOf(ops.Bool, shape, v) }
	sh := []int{1, 1, 1, 4}
	fx := tensorOf(ops.Float32, sh, []float32{0.1, 0.2, 0.3, 0.4})
	fy := tensorOf(ops.Float32, sh, []float32{0.5, 0.6, 0.7, 0.8})
	for _, k := range []ops.Kernel{NewSelect(), NewSelectV2()} {
		nearFloats(t, "SelectFloat", runOut(t, k, nil, []*ops.Tensor{b(sh, T, F, T, F), fx, fy}, outTensor(ops.Float32)).Float32s(), []float64{0.1, 0.6, 0.3, 0.8}, 1e-7)
	}
	bx, by := b([]int{5}, F, T, F, T, F), b([]int{5}, T, F, T, T, F)
	got := runOut(t, NewSelect(), nil, []*ops.Tensor{b([]int{5}, T, F, T, F, T), bx, by}, outTensor(ops.Bool)).Bools()
	for i, w := range []bool{F, F, F, T, F} {
		if got[i] != w {
			t.Fatalf("SelectBool: %v", got)
		}
	}
	// RankOneSelectInt32 (SELECT): the condition picks whole slices.
	x := tensorOf(ops.Int32, []int{2, 1, 2, 1}, []int32{1, 2, 3, 4})
	y := tensorOf(ops.Int32, []int{2, 1, 2, 1}, []int32{5, 6, 7, 8})
	equalInts(t, "RankOneSelectInt32", runOut(t, NewSelect(), nil, []*ops.Tensor{b([]int{2}, F, T), x, y}, outTensor(ops.Int32)).Int32s(), []int{5, 6, 3, 4})
	equalInts(t, "ScalarSelect", runOut(t, NewSelect(), nil, []*ops.Tensor{b([]int{}, T), x, y}, outTensor(ops.Int32)).Int32s(), []int{1, 2, 3, 4})
	// SELECT_V2 broadcasts all three (select_test.cc
	// SelectInt32OneDimensionConditionWithBroadcast).
	out := runOut(t, NewSelectV2(), nil, []*ops.Tensor{b([]int{2}, F, T), x, y}, outTensor(ops.Int32))
	wantShape(t, out.Shape, []int{2, 1, 2, 2})
	equalInts(t, "SelectV2 broadcast", out.Int32s(), []int{5, 1, 6, 2, 7, 3, 8, 4})
	out = runOut(t, NewSelectV2(), nil, []*ops.Tensor{b([]int{2, 1}, T, F), tensorOf(ops.Int8, []int{3}, []int8{1, 2, 3}), tensorOf(ops.Int8, []int{}, []int8{-9})}, outTensor(ops.Int8))
	wantShape(t, out.Shape, []int{2, 3})
	equalInts(t, "SelectV2 three-way", out.Int8s(), []int{1, 2, 3, -9, -9, -9})
	out = runOut(t, NewSelectV2(), nil, []*ops.Tensor{b([]int{1, 1}, T), tensorOf(ops.Int64, []int{1}, []int64{1 << 40}), tensorOf(ops.Int64, []int{1, 1}, []int64{2})}, tensorOf(ops.Int64, []int{1}, []int64{0}))
	wantShape(t, out.Shape, []int{1})
	equalInts(t, "one element keeps the model's output shape", out.Int64s(), []int64{1 << 40})
	// All three scalars, the output's shape not set: it is made rank 0.
	out = runOut(t, NewSelectV2(), nil, []*ops.Tensor{b([]int{}, F), tensorOf(ops.Float32, []int{}, []float32{1}), tensorOf(ops.Float32, []int{}, []float32{2})}, outTensor(ops.Float32))
	if out.Shape == nil || len(out.Shape) != 0 || out.Float32s()[0] != 2 {
		t.Fatalf("scalar SelectV2: shape %v, value %v", out.Shape, out.Float32s())
	}
	// Errors.
	wantPrepareError(t, NewSelect(), node(nil, []*ops.Tensor{b([]int{3}, T, F, T), x, y}, outTensor(ops.Int32)), "condition")
	wantPrepareError(t, NewSelectV2(), node(nil, []*ops.Tensor{b([]int{3}, T, F, T), fx, fy}, outTensor(ops.Float32)), "broadcastable")
	wantPrepareError(t, NewSelect(), node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{2}, []int32{1, 0}), x, y}, outTensor(ops.Int32)), "bool")
	wantPrepareError(t, NewSelectV2(), node(nil, []*ops.Tensor{b([]int{4}, T, T, T, T), fx, tensorOf(ops.Int32, sh, []int32{1, 2, 3, 4})}, outTensor(ops.Float32)), "differs")
}
