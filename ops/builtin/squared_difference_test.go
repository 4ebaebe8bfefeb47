package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SQUARED_DIFFERENCE: TFLite's kernel test vectors
// (squared_difference_test.cc) and float64 references over broadcast
// shapes.

func TestSquaredDifference(t *testing.T) {
	f := func(sh []int, v ...float32) *ops.Tensor { return tensorOf(ops.Float32, sh, v) }
	nearFloats(t, "FloatType_SameShape", binRun(t, NewSquaredDifference(), nil, f([]int{1, 2, 2, 1}, -0.2, 0.2, -1.2, 0.8), f([]int{1, 2, 2, 1}, 0.5, 0.2, -1.5, 0.5), ops.Float32).Float32s(),
		[]float64{0.49, 0, 0.09, 0.09}, 1e-6)
	for _, sh := range [][]int{{6}, {2, 3}, {2, 1, 3}, {1, 3, 1, 2}} {
		nearFloats(t, "FloatType_WithBroadcast", binRun(t, NewSquaredDifference(), nil, f(sh, -0.2, 0.2, 0.5, 0.8, 0.11, 1.1), f([]int{}, 0.1), ops.Float32).Float32s(),
			[]float64{0.09, 0.01, 0.16, 0.49, 0.0001, 1}, 1e-6)
		i := func(v ...int32) *ops.Tensor { return tensorOf(ops.Int32, sh, v) }
		equalInts(t, "IntegerType_VariousInputShapes", binRun(t, NewSquaredDifference(), nil, i(-20, 2, 3, 8, 11, -20), i(1, 2, 6, 5, -5, -20), ops.Int32).Int32s(), []int{441, 0, 9, 9, 256, 0})
		equalInts(t, "IntegerType_WithBroadcast", binRun(t, NewSquaredDifference(), nil, i(-20, 10, 7, 3, 1, 13), tensorOf(ops.Int32, []int{}, []int32{3}), ops.Int32).Int32s(), []int{529, 49, 16, 0, 4, 100})
	}
	// Quantized_*: TFLite checks the dequantised output within two steps
	// of the output scale.
	deq := func(o *ops.Tensor) []float32 {
		r := make([]float32, len(o.Int8s()))
		for i, v := range o.Int8s() {
			r[i] = (float32(v) - float32(o.ZeroPoint())) * o.Scale()
		}
		return r
	}
	check := func(what string, a, b *ops.Tensor, omin, omax float64, want []float64) {
		t.Helper()
		out := binNode(nil, a, b, quantOut(ops.Int8, omin, omax))
		k := NewSquaredDifference()
		run(t, k, out)
		noAllocs(t, k, out)
		nearFloats(t, what, deq(out.Outputs[0]), want, 2*(omax-omin)/255)
	}
	check("Quantized_SameShape", quantTensor(ops.Int8, []int{1, 2, 2, 1}, []float32{-0.2, 0.2, -1.2, 0.8}, -1.2, 0.8),
		quantTensor(ops.Int8, []int{1, 2, 2, 1}, []float32{0.5, 0.2, -1.5, 0.5}, -1.5, 0.5), 0, 0.5, []float64{0.49, 0, 0.09, 0.09})
	for _, sh := range [][]int{{6}, {2, 3}, {2, 1, 3}, {1, 3, 1, 2}} {
		check("Quantized_VariousInputShapes", quantTensor(ops.Int8, sh, []float32{-2, 0.2, 0.3, 0.8, 1.1, -2}, -2, 1.7),
			quantTensor(ops.Int8, sh, []float32{1, 0.2, 0.6, 0.4, -1, 0}, -1, 1), 0, 9, []float64{9, 0, 0.09, 0.16, 4.41, 4})
		check("Quantized_WithBroadcast", quantTensor(ops.Int8, sh, []float32{-0.2, 0.2, 0.5, 0.8, 0.11, 1.1}, -0.2, 1.1),
			quantTensor(ops.Int8, []int{}, []float32{0.1}, 0, 0.1), 0, 1, []float64{0.09, 0.01, 0.16, 0.49, 0.0001, 1})
	}
	// An output scale so small the multiplier reaches 1 is refused, as
	// TFLite's QuantizeMultiplierSmallerThanOneExp check aborts there.
	wantPrepareError(t, NewSquaredDifference(), binNode(nil, quantTensor(ops.Int8, []int{2}, []float32{0, 1}, -1, 1),
		quantTensor(ops.Int8, []int{2}, []float32{0, 1}, -1, 1), q(outTensor(ops.Int8), 1e-9, 0)), "multiplier")
}
