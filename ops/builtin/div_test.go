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
}

// TestDivQuantized runs TFLite's QuantizedNoActivation and
// QuantizedActivationRELU_N1_TO_1 vectors (within their tolerance of two
// steps plus a step squared) for every quantised type, and checks the
// divisor-equals-zero-point error.
func TestDivQuantized(t *testing.T) {
	tol := float64(2*(2.0/255) + (2.0/255)*(2.0/255))
	sh := []int{1, 2, 2, 1}
	for _, typ := range []ops.DataType{ops.Uint8, ops.Int8, ops.Int16} {
		for _, c := range []struct {
			act  ops.Activation
			a, b []float32
			want []float64
		}{
			{ops.ActNone, []float32{-0.8, -0.2, 0.3, 0.7}, []float32{-0.8, 0.4, 0.8, 1.0}, []float64{1.0, -0.5, 0.375, 0.7}},
			{ops.ActReluN1To1, []float32{-0.8, 0.2, 0.9, 0.7}, []float32{0.6, 0.4, 0.9, -0.8}, []float64{-1.0, 0.5, 1.0, -0.875}},
			{ops.ActReluN1To1, []float32{-0.5, 0.2, 0.6, 0.3}, []float32{0.6, 0.5, -0.8, 0.5}, []float64{-0.833, 0.4, -0.75, 0.6}},
		} {
			n := binNode(&DivOptions{Activation: c.act}, quantTensor(typ, sh, c.a, -1, 1), quantTensor(typ, sh, c.b, -1, 1), quantOut(typ, -1, 1))
			k := NewDiv()
			run(t, k, n)
			noAllocs(t, k, n)
			o := n.Outputs[0]
			got := make([]float32, 4)
			for i := range got {
				got[i] = o.Scale() * float32(loadInt(o, i)-o.ZeroPoint())
			}
			nearFloats(t, typ.String()+" quantised DIV", got, c.want, tol)
		}
	}
	// A divisor equal to its zero point (a real zero) fails Eval.
	n := binNode(nil, quantTensor(ops.Int8, []int{2}, []float32{0.5, 0.5}, -1, 1), quantTensor(ops.Int8, []int{2}, []float32{0.5, 0}, -1, 1), quantOut(ops.Int8, -1, 1))
	k := NewDiv()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil || !contains(err.Error(), "element 1 equals the zero point") {
		t.Fatalf("division by a quantised zero: %v", err)
	}
}

// TestDivRoundingPOT checks the shifts outside [0, 31] against the x86
// semantics spelled out: mask from a 64-bit shift, sar by e mod 32.
func TestDivRoundingPOT(t *testing.T) {
	for _, c := range []struct {
		x    int32
		e    int
		want int32
	}{
		{100, 3, 13}, {-100, 3, -13}, {5, 31, 0},
		{5, 32, 6},   // mask −1, threshold −1: 5 + 1
		{-5, 32, -5}, // threshold 0, remainder −5
		{1 << 20, 40, 1<<12 + 1},
		{7, -1, 1}, // mask −1 (1<<63 − 1), sar by 31 gives 0, plus 1
	} {
		if got := divRoundingPOT(c.x, c.e); got != c.want {
			t.Errorf("divRoundingPOT(%d, %d) = %d, want %d", c.x, c.e, got, c.want)
		}
	}
}
