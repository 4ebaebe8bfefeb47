package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func TestArgMinMax(t *testing.T) {
	argRun := func(k ops.Kernel, in *ops.Tensor, axis *ops.Tensor, outType ops.DataType) *ops.Tensor {
		t.Helper()
		n := node(&ArgMinMaxOptions{OutputType: outType}, []*ops.Tensor{in, constT(axis)}, outTensor(outType))
		run(t, k, n)
		noAllocs(t, k, n)
		return n.Outputs[0]
	}
	a32 := func(v int32) *ops.Tensor { return tensorOf(ops.Int32, []int{1}, []int32{v}) }
	// arg_min_max_test.cc: GetMaxArgFloat, GetMaxArgUInt8, GetMaxArgInt8,
	// GetMaxArgInt, GetMaxArgMulDimensions, GetMaxArgNegativeAxis,
	// GetMaxArgOutput64, GetMinArg*, tie-breaking (first index).
	out := argRun(NewArgMax(), tensorOf(ops.Float32, []int{1, 1, 1, 4}, []float32{0.1, 0.9, 0.7, 0.3}), a32(3), ops.Int32)
	wantShape(t, out.Shape, []int{1, 1, 1})
	equalInts(t, "GetMaxArgFloat", out.Int32s(), []int{1})
	equalInts(t, "GetMaxArgUInt8", argRun(NewArgMax(), tensorOf(ops.Uint8, []int{1, 1, 1, 4}, []uint8{1, 9, 7, 3}), a32(3), ops.Int32).Int32s(), []int{1})
	equalInts(t, "GetMaxArgInt8", argRun(NewArgMax(), tensorOf(ops.Int8, []int{1, 1, 1, 4}, []int8{-1, -9, 7, 3}), a32(3), ops.Int32).Int32s(), []int{2})
	equalInts(t, "GetMaxArgMulDimensions", argRun(NewArgMax(), tensorOf(ops.Int32, []int{1, 1, 2, 4}, []int32{1, 2, 7, 8, 1, 9, 7, 3}), a32(3), ops.Int32).Int32s(), []int{3, 1})
	out = argRun(NewArgMax(), tensorOf(ops.Int32, []int{1, 1, 2, 4}, []int32{1, 2, 7, 8, 1, 9, 7, 3}), a32(-2), ops.Int32)
	wantShape(t, out.Shape, []int{1, 1, 4})
	equalInts(t, "GetMaxArgNegativeAxis", out.Int32s(), []int{0, 1, 0, 0})
	equalInts(t, "GetMaxArgOutput64", argRun(NewArgMax(), tensorOf(ops.Int32, []int{1, 1, 2, 4}, []int32{10, 2, 7, 8, 1, 9, 7, 3}), tensorOf(ops.Int64, []int{1}, []int64{3}), ops.Int64).Int64s(), []int{0, 1})
	equalInts(t, "GetMinArgFloat", argRun(NewArgMin(), tensorOf(ops.Float32, []int{1, 1, 1, 4}, []float32{0.1, 0.9, 0.7, 0.3}), a32(3), ops.Int32).Int32s(), []int{0})
	equalInts(t, "GetMinArgMulDimensions", argRun(NewArgMin(), tensorOf(ops.Int32, []int{1, 1, 2, 4}, []int32{1, 2, 7, 8, 1, 0, 7, 3}), a32(3), ops.Int32).Int32s(), []int{0, 1})
	equalInts(t, "ties take the first index", argRun(NewArgMax(), tensorOf(ops.Float32, []int{2, 3}, []float32{5, 5, 1, 2, 7, 7}), a32(1), ops.Int32).Int32s(), []int{0, 1})
	equalInts(t, "bool", argRun(NewArgMax(), tensorOf(ops.Bool, []int{4}, []bool{false, false, true, true}), a32(0), ops.Int64).Int64s(), []int{2})
	// Errors.
	f := tensorOf(ops.Float32, []int{2, 3}, make([]float32, 6))
	wantPrepareError(t, NewArgMax(), node(&ArgMinMaxOptions{OutputType: ops.Int32}, []*ops.Tensor{f, constT(a32(2))}, outTensor(ops.Int32)), "axis 2")
	wantPrepareError(t, NewArgMax(), node(&ArgMinMaxOptions{OutputType: ops.Float32}, []*ops.Tensor{f, constT(a32(0))}, outTensor(ops.Float32)), "int32 or int64")
	wantPrepareError(t, NewArgMin(), node(&ArgMinMaxOptions{OutputType: ops.Int32}, []*ops.Tensor{tensorOf(ops.Float32, []int{0, 3}, []float32{}), constT(a32(0))}, outTensor(ops.Int32)), "empty")
	wantPrepareError(t, NewArgMin(), node(&ArgMinMaxOptions{OutputType: ops.Int32}, []*ops.Tensor{tensorOf(ops.Int16, []int{3}, []int16{1, 2, 3}), constT(a32(0))}, outTensor(ops.Int32)), "ARG_MIN")
}
