package builtin

import (
	"math"
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Test vectors from TFLite's comparisons_test.cc (EqualBool, EqualFloat,
// EqualInt, EqualBroadcast, NotEqual*, Greater*, GreaterEqual*, Less*,
// LessEqual*, QuantizedEqual/NotEqual/Greater/... with uint8 and int8
// including different input scales) plus float NaN semantics.

func cmpRun(t *testing.T, k ops.Kernel, a, b *ops.Tensor) []bool {
	t.Helper()
	n := node(nil, []*ops.Tensor{a, b}, outTensor(ops.Bool))
	run(t, k, n)
	noAllocs(t, k, n)
	return n.Outputs[0].Bools()
}

func wantBools(t *testing.T, what string, got []bool, want ...bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
	}
}

func TestComparisonsTFLiteVectors(t *testing.T) {
	T, F := true, false
	f := func(v ...float32) *ops.Tensor { return tensorOf(ops.Float32, []int{1, 1, 1, 4}, v) }
	i := func(v ...int32) *ops.Tensor { return tensorOf(ops.Int32, []int{1, 1, 1, 4}, v) }
	a, b := f(0.1, 0.9, 0.7, 0.3), f(0.1, 0.2, 0.6, 0.5)
	wantBools(t, "EqualFloat", cmpRun(t, NewEqual(), a, b), T, F, F, F)
	wantBools(t, "NotEqualFloat", cmpRun(t, NewNotEqual(), a, b), F, T, T, T)
	wantBools(t, "GreaterFloat", cmpRun(t, NewGreater(), a, b), F, T, T, F)
	wantBools(t, "GreaterEqualFloat", cmpRun(t, NewGreaterEqual(), a, b), T, T, T, F)
	wantBools(t, "LessFloat", cmpRun(t, NewLess(), a, b), F, F, F, T)
	wantBools(t, "LessEqualFloat", cmpRun(t, NewLessEqual(), a, b), T, F, F, T)
	ai, bi := i(-1, 9, 7, 3), i(1, 2, 7, 5)
	wantBools(t, "EqualInt", cmpRun(t, NewEqual(), ai, bi), F, F, T, F)
	wantBools(t, "LessInt", cmpRun(t, NewLess(), ai, bi), T, F, F, T)
	wantBools(t, "GreaterEqualInt", cmpRun(t, NewGreaterEqual(), ai, bi), F, T, T, F)
	// EqualBroadcast / LessBroadcast: a [1,1,1,4] against a scalar-like [1].
	wantBools(t, "EqualBroadcast", cmpRun(t, NewEqual(), ai, tensorOf(ops.Int32, []int{1}, []int32{7})), F, F, T, F)
	wantBools(t, "LessBroadcast", cmpRun(t, NewLess(), ai, tensorOf(ops.Int32, []int{1}, []int32{7})), T, F, F, T)
	// BroadcastTwoD: [1,1,2,4] against [1,1,1,4].
	a2 := tensorOf(ops.Int32, []int{1, 1, 2, 4}, []int32{-1, 9, 7, 3, 2, 4, 2, 8})
	wantBools(t, "NotEqualBroadcastTwoD", cmpRun(t, NewNotEqual(), a2, tensorOf(ops.Int32, []int{1, 1, 1, 4}, []int32{7, 1, 2, 4})), T, T, T, T, T, T, F, T)
	bb := func(v ...bool) *ops.Tensor { return tensorOf(ops.Bool, []int{1, 1, 1, 4}, v) }
	wantBools(t, "EqualBool", cmpRun(t, NewEqual(), bb(T, F, T, F), bb(T, T, F, F)), T, F, F, T)
	wantBools(t, "NotEqualBool", cmpRun(t, NewNotEqual(), bb(T, F, T, F), bb(T, T, F, F)), F, T, T, F)
	i64 := func(v ...int64) *ops.Tensor { return tensorOf(ops.Int64, []int{4}, v) }
	wantBools(t, "LessEqualInt64", cmpRun(t, NewLessEqual(), i64(-1, 9, 7, 3), i64(1, 2, 7, 5)), T, F, T, T)
	nan := float32(math.NaN())
	wantBools(t, "NaN", cmpRun(t, NewEqual(), f(nan, 1, 2, 3), f(nan, 1, 0, 3)), F, T, F, T)
	wantBools(t, "NaN!=", cmpRun(t, NewNotEqual(), f(nan, 1, 2, 3), f(nan, 1, 0, 3)), T, F, T, F)
}

func TestComparisonsQuantized(t *testing.T) {
	T, F := true, false
	// As TFLite's Quantized* comparison tests: uint8 inputs quantised over
	// [-1, 1]; the comparison follows the real values.
	u8 := func(v ...float32) *ops.Tensor { return quantTensor(ops.Uint8, []int{1, 2, 2, 1}, v, -1, 1) }
	a, b := u8(0.5, -0.3, 0.7, 0.1), u8(0.5, 0.2, 0.7, -0.5)
	wantBools(t, "QuantizedEqual", cmpRun(t, NewEqual(), a, b), T, F, T, F)
	wantBools(t, "QuantizedGreater", cmpRun(t, NewGreater(), a, b), F, F, F, T)
	wantBools(t, "QuantizedLessEqual", cmpRun(t, NewLessEqual(), a, b), T, T, T, F)
	// Different scales: int8 over [-2, 2] against int8 over [-1, 1]; the
	// rescaling makes equal reals compare equal.
	x := quantTensor(ops.Int8, []int{4}, []float32{0.5, -0.25, 1, 0}, -2, 2)
	y := quantTensor(ops.Int8, []int{4}, []float32{0.5, -0.25, 0.75, 0}, -1, 1)
	got := cmpRun(t, NewEqual(), x, y)
	if got[2] {
		t.Fatalf("QuantizedEqualDifferentScales: 1 and 0.75 compared equal: %v", got)
	}
	wantBools(t, "QuantizedLessDifferentScales", cmpRun(t, NewLess(), x, y), F, F, F, F)
	wantBools(t, "QuantizedGreaterDifferentScales", cmpRun(t, NewGreater(), x, y)[2:3], T)
	// Quantised int16 EQUAL rescales; LESS compares raw values.
	p := q(tensorOf(ops.Int16, []int{2}, []int16{100, 200}), 0.01, 0)
	r := q(tensorOf(ops.Int16, []int{2}, []int16{200, 200}), 0.005, 0)
	wantBools(t, "Int16EqualScaled", cmpRun(t, NewEqual(), p, r), T, F)
	wantBools(t, "Int16LessRaw", cmpRun(t, NewLess(), p, r), T, F)
}

func TestComparisonsErrors(t *testing.T) {
	a := tensorOf(ops.Float32, []int{2}, []float32{1, 2})
	wantPrepareError(t, NewEqual(), node(nil, []*ops.Tensor{a, tensorOf(ops.Int32, []int{2}, []int32{1, 2})}, outTensor(ops.Bool)), "differs")
	wantPrepareError(t, NewEqual(), node(nil, []*ops.Tensor{a, a}, outTensor(ops.Float32)), "need bool")
	wantPrepareError(t, NewLess(), node(nil, []*ops.Tensor{tensorOf(ops.Bool, []int{1}, []bool{true}), tensorOf(ops.Bool, []int{1}, []bool{true})}, outTensor(ops.Bool)), "LESS")
	wantPrepareError(t, NewEqual(), node(nil, []*ops.Tensor{a, tensorOf(ops.Float32, []int{3}, []float32{1, 2, 3})}, outTensor(ops.Bool)), "broadcastable")
}

// TestComparisonHalfTypes compares float16 (every operator) and bfloat16
// (LESS and GREATER) inputs by their float32 values, with broadcasting.
func TestComparisonHalfTypes(t *testing.T) {
	// float16: 1, -2, 0.5, NaN against the scalar 0.5.
	a := tensorOf(ops.Float16, []int{4}, []uint16{0x3c00, 0xc000, 0x3800, 0x7e00})
	b := tensorOf(ops.Float16, []int{1}, []uint16{0x3800})
	for _, c := range []struct {
		newK func() ops.Kernel
		want []bool
	}{
		{NewEqual, []bool{false, false, true, false}},
		{NewNotEqual, []bool{true, true, false, true}},
		{NewLess, []bool{false, true, false, false}},
		{NewLessEqual, []bool{false, true, true, false}},
		{NewGreater, []bool{true, false, false, false}},
		{NewGreaterEqual, []bool{true, false, true, false}},
	} {
		k := c.newK()
		out := binRun(t, k, nil, a, b, ops.Bool)
		if got := out.Bools(); !slices.Equal(got, c.want) {
			t.Errorf("%s float16: %v, want %v", k.(*Comparison).op.name, got, c.want)
		}
	}
	// bfloat16: 1.5, -3 against 1.5.
	x := tensorOf(ops.BFloat16, []int{2}, []uint16{0x3fc0, 0xc040})
	y := tensorOf(ops.BFloat16, []int{2}, []uint16{0x3fc0, 0x3fc0})
	if got := binRun(t, NewLess(), nil, x, y, ops.Bool).Bools(); !slices.Equal(got, []bool{false, true}) {
		t.Errorf("LESS bfloat16: %v", got)
	}
	if got := binRun(t, NewGreater(), nil, y, x, ops.Bool).Bools(); !slices.Equal(got, []bool{false, true}) {
		t.Errorf("GREATER bfloat16: %v", got)
	}
	for _, newK := range []func() ops.Kernel{NewEqual, NewLessEqual, NewGreaterEqual, NewNotEqual} {
		wantPrepareError(t, newK(), binNode(nil, x, y, outTensor(ops.Bool)), "bfloat16")
	}
}
