package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of MAXIMUM and MINIMUM: TFLite's kernel test vectors
// (maximum_minimum_test.cc) and float64 references over broadcast shapes.

func TestMaximumMinimumTFLiteVectors(t *testing.T) {
	sh := []int{3, 1, 2}
	f := func(v ...float32) *ops.Tensor { return tensorOf(ops.Float32, sh, v) }
	a, b := f(1, 0, -1, 11, -2, -1.44), f(-1, 0, 1, 12, -3, -1.43)
	nearFloats(t, "FloatTest max", binRun(t, NewMaximum(), nil, a, b, ops.Float32).Float32s(), []float64{1, 0, 1, 12, -2, -1.43}, 1e-7)
	nearFloats(t, "FloatTest min", binRun(t, NewMinimum(), nil, a, b, ops.Float32).Float32s(), []float64{-1, 0, -1, 11, -3, -1.44}, 1e-7)
	u := func(v ...uint8) *ops.Tensor { return tensorOf(ops.Uint8, sh, v) }
	equalInts(t, "Uint8Test max", binRun(t, NewMaximum(), nil, u(1, 0, 2, 11, 2, 23), u(0, 0, 1, 12, 255, 1), ops.Uint8).Data, []int{1, 0, 2, 12, 255, 23})
	equalInts(t, "Uint8Test min", binRun(t, NewMinimum(), nil, u(1, 0, 2, 11, 2, 23), u(0, 0, 1, 12, 255, 1), ops.Uint8).Data, []int{0, 0, 1, 11, 2, 1})
	i16 := func(v ...int16) *ops.Tensor { return tensorOf(ops.Int16, sh, v) }
	equalInts(t, "Int16Test max", binRun(t, NewMaximum(), nil, i16(-32768, 0, 2, 11, 2, 23), i16(0, 0, 1, 32767, 123, 1), ops.Int16).Int16s(), []int{0, 0, 2, 32767, 123, 23})
	// WithBroadcastTest: [3,1,2] against [2].
	a = f(1, 0, -1, -2, -1.44, 11)
	bb := tensorOf(ops.Float32, []int{2}, []float32{0.5, 2})
	nearFloats(t, "WithBroadcastTest max", binRun(t, NewMaximum(), nil, a, bb, ops.Float32).Float32s(), []float64{1, 2, 0.5, 2, 0.5, 11}, 0)
	nearFloats(t, "WithBroadcastTest min", binRun(t, NewMinimum(), nil, a, bb, ops.Float32).Float32s(), []float64{0.5, 0, -1, -2, -1.44, 2}, 1e-7)
	// Int32WithBroadcastTest_ScalarY: a rank-0 operand.
	ai := tensorOf(ops.Int32, sh, []int32{1, 0, -1, -2, 3, 11})
	equalInts(t, "Int32 scalar max", binRun(t, NewMaximum(), nil, ai, tensorOf(ops.Int32, []int{}, []int32{2}), ops.Int32).Int32s(), []int{2, 2, 2, 2, 3, 11})
	equalInts(t, "Int32 scalar min", binRun(t, NewMinimum(), nil, ai, tensorOf(ops.Int32, []int{1}, []int32{2}), ops.Int32).Int32s(), []int{1, 0, -1, -2, 2, 2})
	// Int8Test8D: equal 8-D shapes.
	sh8 := []int{3, 1, 2, 1, 1, 1, 1, 1}
	out := binRun(t, NewMaximum(), nil, tensorOf(ops.Int8, sh8, []int8{1, 0, 2, 11, 2, 23}), tensorOf(ops.Int8, sh8, []int8{0, 0, 1, 12, 123, 1}), ops.Int8)
	equalInts(t, "Int8Test8D", out.Int8s(), []int{1, 0, 2, 12, 123, 23})
	wantShape(t, out.Shape, sh8)
	// NaN: the conditional selects the second operand.
	nan := float32(math.NaN())
	got := binRun(t, NewMaximum(), nil, tensorOf(ops.Float32, []int{2}, []float32{nan, 1}), tensorOf(ops.Float32, []int{2}, []float32{1, nan}), ops.Float32).Float32s()
	if got[0] != 1 || !math.IsNaN(float64(got[1])) {
		t.Fatalf("MAXIMUM with NaN: %v, want [1 NaN]", got)
	}
}
