package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of FLOOR_DIV and FLOOR_MOD: TFLite's kernel test vectors
// (floor_div_test.cc, floor_mod_test.cc) and the division-by-zero errors
// TFLite's Eval returns.

func TestFloorDivFloorMod(t *testing.T) {
	sh := []int{1, 2, 2, 1}
	i := func(v ...int32) *ops.Tensor { return tensorOf(ops.Int32, sh, v) }
	// floor_div_test.cc: Simple, NegativeValue, BroadcastFloorDiv,
	// FloatSimple, FloatBroadcastFloorDiv, Int16/Int8 variants.
	equalInts(t, "FloorDiv Simple", binRun(t, NewFloorDiv(), nil, i(10, 9, 11, 3), i(2, 2, 3, 4), ops.Int32).Int32s(), []int{5, 4, 3, 0})
	equalInts(t, "FloorDiv NegativeValue", binRun(t, NewFloorDiv(), nil, i(10, -9, -11, 7), i(2, 2, -3, -4), ops.Int32).Int32s(), []int{5, -5, 3, -2})
	equalInts(t, "FloorDiv Broadcast", binRun(t, NewFloorDiv(), nil, i(10, -9, -11, 7), tensorOf(ops.Int32, []int{1}, []int32{-3}), ops.Int32).Int32s(), []int{-4, 3, 3, -3})
	equalInts(t, "FloorDiv Int16", binRun(t, NewFloorDiv(), nil, tensorOf(ops.Int16, sh, []int16{10, -9, -11, 7}), tensorOf(ops.Int16, sh, []int16{2, 2, -3, -4}), ops.Int16).Int16s(), []int{5, -5, 3, -2})
	equalInts(t, "FloorDiv Int8 wraps", binRun(t, NewFloorDiv(), nil, tensorOf(ops.Int8, []int{2}, []int8{-128, 7}), tensorOf(ops.Int8, []int{2}, []int8{-1, 2}), ops.Int8).Int8s(), []int{-128, 3})
	f := func(v ...float32) *ops.Tensor { return tensorOf(ops.Float32, sh, v) }
	nearFloats(t, "FloorDiv FloatSimple", binRun(t, NewFloorDiv(), nil, f(10.05, 9.09, 11.9, 3.01), f(2.05, 2.03, 3.03, 4.03), ops.Float32).Float32s(), []float64{4, 4, 3, 0}, 0)
	nearFloats(t, "FloorDiv FloatBroadcast", binRun(t, NewFloorDiv(), nil, f(10.03, -9.9, -11, 7), tensorOf(ops.Float32, []int{1}, []float32{2.1}), ops.Float32).Float32s(), []float64{4, -5, -6, 3}, 0)
	// floor_mod_test.cc: Simple, NegativeValue, BroadcastFloorMod,
	// Int64WithBroadcast, FloatSimple, FloatNegativeValue, FloatBroadcast.
	equalInts(t, "FloorMod Simple", binRun(t, NewFloorMod(), nil, i(10, 9, 11, 3), i(2, 2, 3, 4), ops.Int32).Int32s(), []int{0, 1, 2, 3})
	equalInts(t, "FloorMod NegativeValue", binRun(t, NewFloorMod(), nil, i(10, -9, -11, 7), i(2, 2, -3, -4), ops.Int32).Int32s(), []int{0, 1, -2, -1})
	equalInts(t, "FloorMod Broadcast", binRun(t, NewFloorMod(), nil, i(10, -9, -11, 7), tensorOf(ops.Int32, []int{1}, []int32{-3}), ops.Int32).Int32s(), []int{-2, 0, -2, -2})
	equalInts(t, "FloorMod Int64WithBroadcast", binRun(t, NewFloorMod(), nil, tensorOf(ops.Int64, sh, []int64{10, -9, -11, 1 << 34}), tensorOf(ops.Int64, []int{1}, []int64{-1 << 33}), ops.Int64).Int64s(),
		[]int64{-8589934582, -9, -11, 0})
	nearFloats(t, "FloorMod FloatSimple", binRun(t, NewFloorMod(), nil, f(10, 9, 11, 3), f(2, 2, 3, 4), ops.Float32).Float32s(), []float64{0, 1, 2, 3}, 0)
	nearFloats(t, "FloorMod FloatNegativeValue", binRun(t, NewFloorMod(), nil, f(10, -9, -11, 7), f(2, 2, -3, -4), ops.Float32).Float32s(), []float64{0, 1, -2, -1}, 0)
	nearFloats(t, "FloorMod FloatBroadcast", binRun(t, NewFloorMod(), nil, f(10, -9, -11, 7), tensorOf(ops.Float32, []int{1}, []float32{-3}), ops.Float32).Float32s(), []float64{-2, 0, -2, -2}, 0)
	// Zero divisors: an Eval error for integers (both operators) and for
	// float FLOOR_DIV; float FLOOR_MOD gives NaN.
	for _, tc := range []struct {
		name string
		k    ops.Kernel
		a, b *ops.Tensor
	}{
		{"FLOOR_DIV int32", NewFloorDiv(), i(1, 2, 3, 4), i(1, 1, 0, 1)},
		{"FLOOR_DIV float32", NewFloorDiv(), f(1, 2, 3, 4), f(1, 1, 0, 1)},
		{"FLOOR_MOD int32", NewFloorMod(), i(1, 2, 3, 4), i(1, 1, 0, 1)},
	} {
		n := binNode(nil, tc.a, tc.b, outTensor(tc.a.Type))
		if err := prepare(tc.k, n); err != nil {
			t.Fatal(err)
		}
		if err := tc.k.Eval(n); err == nil || !contains(err.Error(), "element 2 is 0") {
			t.Errorf("%s by zero: err %v", tc.name, err)
		}
	}
	got := binRun(t, NewFloorMod(), nil, f(1, 2, 3, 4), f(1, 1, 0, 1), ops.Float32).Float32s()
	if !math.IsNaN(float64(got[2])) {
		t.Fatalf("float FLOOR_MOD by zero: %v, want NaN at 2", got)
	}
	// float64 reference over a broadcast.
	r := lcg(7)
	av, bv := make([]float32, 24), make([]float32, 4)
	for j := range av {
		av[j] = r.float(-20, 20)
	}
	for j := range bv {
		bv[j] = r.float(0.5, 4) * float32(1-2*(j%2))
	}
	want := make([]float64, 24)
	for j := range want {
		x, y := float64(av[j]), float64(bv[j%4])
		want[j] = math.Floor(x / y)
	}
	nearFloats(t, "FloorDiv reference", binRun(t, NewFloorDiv(), nil, tensorOf(ops.Float32, []int{2, 3, 4}, av), tensorOf(ops.Float32, []int{4}, bv), ops.Float32).Float32s(), want, 0)
	for j := range want {
		x, y := float64(av[j]), float64(bv[j%4])
		want[j] = x - math.Floor(x/y)*y
	}
	nearFloats(t, "FloorMod reference", binRun(t, NewFloorMod(), nil, tensorOf(ops.Float32, []int{2, 3, 4}, av), tensorOf(ops.Float32, []int{4}, bv), ops.Float32).Float32s(), want, 1e-5)
}
