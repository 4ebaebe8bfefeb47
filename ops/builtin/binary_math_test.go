package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, DIV, FLOOR_DIV, FLOOR_MOD
// and POW: TFLite's kernel test vectors (maximum_minimum_test.cc,
// squared_difference_test.cc, div_test.cc, floor_div_test.cc,
// floor_mod_test.cc, pow_test.cc), float64 references over broadcast
// shapes, the division-by-zero errors TFLite's Eval returns, and the
// dimension merging that lets high-rank operands broadcast.

// binRun prepares and runs a binary kernel, checks that Eval does not
// allocate, and returns the output tensor.
func binRun(t *testing.T, k ops.Kernel, opts any, a, b *ops.Tensor, outType ops.DataType) *ops.Tensor {
	t.Helper()
	n := binNode(opts, a, b, outTensor(outType))
	run(t, k, n)
	noAllocs(t, k, n)
	return n.Outputs[0]
}

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

func TestDiv(t *testing.T) {
	f := func(sh []int, v ...float32) *ops.Tensor { return tensorOf(ops.Float32, sh, v) }
	sh := []int{1, 2, 2, 1}
	// div_test.cc FloatDivOpTest NoActivation / ActivationRELU_N1_TO_1.
	nearFloats(t, "NoActivation", binRun(t, NewDiv(), nil, f(sh, -0.2, 0.2, -1.2, 0.8), f(sh, 0.5, 0.2, -1.5, 0.5), ops.Float32).Float32s(),
		[]float64{-0.4, 1, 0.8, 1.6}, 1e-6)
	nearFloats(t, "ActivationRELU_N1_TO_1", binRun(t, NewDiv(), &ops.DivOptions{Activation: ops.ActReluN1To1}, f(sh, -0.2, 0.2, -1.2, 0.8), f(sh, 0.1, 0.2, -1.5, 0.5), ops.Float32).Float32s(),
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
	equalInts(t, "IntegerDiv RELU_N1_TO_1", binRun(t, NewDiv(), &ops.DivOptions{Activation: ops.ActReluN1To1}, i(-2, 2, -12, 8), i(1, 2, -15, 5), ops.Int32).Int32s(), []int{-1, 1, 0, 1})
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

// TestBroadcastMergesDimensions checks operands of rank above six: equal
// shapes take the flat loop, and a broadcast whose pattern changes at most
// five times is merged into six loop dimensions, against a direct
// float64 index computation.
func TestBroadcastMergesDimensions(t *testing.T) {
	sa := []int{2, 1, 3, 3, 1, 2, 2, 1}
	sb := []int{1, 2, 3, 3, 2, 1, 1, 1}
	na, nb := 1, 1
	for j := range sa {
		na *= sa[j]
		nb *= sb[j]
	}
	av, bv := make([]float32, na), make([]float32, nb)
	for j := range av {
		av[j] = float32(j)
	}
	for j := range bv {
		bv[j] = float32(1000 * j)
	}
	out := binRun(t, NewAdd(), nil, tensorOf(ops.Float32, sa, av), tensorOf(ops.Float32, sb, bv), ops.Float32)
	os := []int{2, 2, 3, 3, 2, 2, 2, 1}
	wantShape(t, out.Shape, os)
	var want []float64
	forEach(os, func(idx []int) {
		ia, ib := 0, 0
		for d := range os {
			xa, xb := idx[d], idx[d]
			if sa[d] == 1 {
				xa = 0
			}
			if sb[d] == 1 {
				xb = 0
			}
			ia = ia*sa[d] + xa
			ib = ib*sb[d] + xb
		}
		want = append(want, float64(av[ia])+float64(bv[ib]))
	})
	nearFloats(t, "8-D broadcast", out.Float32s(), want, 0)
}
