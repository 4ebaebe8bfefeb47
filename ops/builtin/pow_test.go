package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of POW: TFLite's kernel test vectors (pow_test.cc).

func TestPow(t *testing.T) {
	sh := []int{1, 2, 2, 1}
	i := func(v ...int32) *ops.Tensor { return tensorOf(ops.Int32, sh, v) }
	// pow_test.cc: Simple, NegativeAndZeroValue, Float, NegativeFloatTest,
	// BroadcastTest, FloatSingleIntegerExponentTest.
	equalInts(t, "Simple", binRun(t, NewPow(), nil, i(12, 2, 7, 8), i(1, 2, 3, 1), ops.Int32).Int32s(), []int{12, 4, 343, 8})
	equalInts(t, "NegativeAndZeroValue", binRun(t, NewPow(), nil, i(0, 2, -7, 8), i(1, 2, 3, 0), ops.Int32).Int32s(), []int{0, 4, -343, 1})
	f := func(v ...float32) *ops.Tensor { return tensorOf(ops.Float32, sh, v) }
	nearFloats(t, "Float", binRun(t, NewPow(), nil, f(0.3, 0.4, 0.7, 5.8), f(0.5, 2.7, 3.1, 3.2), ops.Float32).Float32s(),
		[]float64{0.5477226, 0.08424846, 0.33098164, 277.313}, 1e-3)
	got := binRun(t, NewPow(), nil, f(-0.3, -0.4, -0.7, -5.8), f(0.5, -2.7, 3.1, -3.2), ops.Float32).Float32s()
	for j, v := range got {
		if !math.IsNaN(float64(v)) {
			t.Fatalf("NegativeFloatTest: element %d = %v, want NaN", j, v)
		}
	}
	equalInts(t, "BroadcastTest", binRun(t, NewPow(), nil, i(12, 2, 7, 8), tensorOf(ops.Int32, []int{1}, []int32{4}), ops.Int32).Int32s(), []int{20736, 16, 2401, 4096})
	nearFloats(t, "FloatSingleIntegerExponentTest", binRun(t, NewPow(), nil, f(0.3, 0.4, 0.7, 5.8), tensorOf(ops.Float32, []int{1}, []float32{5}), ops.Float32).Float32s(),
		[]float64{0.00243, 0.01024, 0.16807, 6563.56768}, 2e-3)
	k := NewPow()
	n := binNode(nil, i(1, 2, 3, 4), i(1, -1, 1, 1), outTensor(ops.Int32))
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil || !contains(err.Error(), "exponents") {
		t.Fatalf("negative int32 exponent: err %v", err)
	}
}
