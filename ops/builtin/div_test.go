package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of DIV: TFLite's kernel test vectors (div_test.cc), float64
// references over broadcast shapes and the division-by-zero errors
// TFLite's Eval returns.

func TestDiv(t *testing.T) {
	f := func(sh []int, v ...float32) *ops.Tensor { return tensorOf(ops.Float32, sh, v) }
	sh := []int{1, 2, 2, 1}
	// div_test.cc FloatDivOpTest NoActivation / ActivationRELU_N1_TO_1.
	nearFloats(t, "NoActivation", binRun(t, NewDiv(), nil, f(sh, -0.2, 0.2, -1.2, 0.8), f(sh, 0.5, 0.2, -1.5, 0.5), ops.Float32).Float32s(),
		[]float64{-0.4, 1, 0.8, 1.6}, 1e-6)
	nearFloats(t, "ActivationRELU_N1_TO_1", binRun(t, NewDiv(), &DivOptions{Activation: ops.ActReluN1To1}, f(sh, -0.2, 0.2, -1.2, 0.8), f(sh, 0.1, 0.2, -1.5, 0.5), ops.Float32).Float32s(),
		[]float64{-1, 1, 0.8, 1}, 1e-6)
	// WithBroadcast: scalar divisor.
	for _, s := range [][]int{{8}, {2, 4}, {2, 1, 4}, {1, 2, 2, 2}} {
		nearFloats(t, "WithBroadcast", binRun(t, NewDiv(), nil, f(s, -0.2, 0.2, 0.07, 0.08, 0.11, -0.123, -0.32, 0.54), f([]int{1}, 0.1), ops.Float32).Float32s(),
			[]float64{-2, 2, 0.7, 0.8, 1.1, -1.23, -3.2, 5.4}, 1e-6)
	}
	// Division by zero in float: ±Inf clamped to ±FLT_MAX, 0/0 NaN.
	got := binRun(t, NewDiv(), nil, f([]int{3}, 1, -1, 0), f([]int{3}, 0, 0, 0), ops.Float32).Float32s()
	if got[0] != math.MaxFloat32 || got[1] != -math.MaxFloat32 || !math.IsNaN(float64(got[2])) {
		t.Fatalf("float division by zero: %v, want [FLT_MAX -FLT_MAX NaN]", got)
	}
	// IntegerDivOpTest: truncating division, with RELU_N1_TO_1.
	i := func(v ...int32) *ops.Tensor { return tensorOf(ops.Int32, sh, v) }
	equalInts(t, "IntegerDiv", binRun(t, NewDiv(), nil, i(-2, 2, -15, 8), i(5, -2, -3, 5), ops.Int32).Int32s(), []int{0, -1, 5, 1})
	equalInts(t, "IntegerDiv RELU_N1_TO_1", binRun(t, NewDiv(), &DivOptions{Activation: ops.ActReluN1To1}, i(-2, 2, -12, 8), i(1, 2, -15, 5), ops.Int32).Int32s(), []int{-1, 1, 0, 1})
	equalInts(t, "IntegerDiv overflow wraps", binRun(t, NewDiv(), nil, tensorOf(ops.Int32, []int{1}, []int32{math.MinInt32}), tensorOf(ops.Int32, []int{1}, []int32{-1}), ops.Int32).Int32s(), []int{math.MinInt32})
	// Integer division by zero fails at Eval.
	k := NewDiv()
	n := binNode(nil, i(1, 2, 3, 4), i(1, 0, 1, 1), outTensor(ops.Int32))
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil || !contains(err.Error(), "element 1 is 0") {
		t.Fatalf("int32 division by zero: err %v", err)
	}
	wantPrepareError(t, NewDiv(), binNode(nil, quantTensor(ops.Uint8, []int{2}, []float32{0, 1}, -1, 1), quantTensor(ops.Uint8, []int{2}, []float32{0, 1}, -1, 1), quantOut(ops.Uint8, -1, 1)), "quantised DIV")
}
