package builtin

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Cases follow TFLite's reshape_test.cc: SimpleTest, WithStretchDimension,
// MismatchedDimensions, TooManySpecialDimensions, ScalarOutput,
// LegacyScalarOutput; the shape given as a constant tensor, as options,
// and as a run-time tensor.

func int32Vec(v ...int32) *ops.Tensor { return constT(tensorOf(ops.Int32, []int{len(v)}, v)) }

func TestReshapeSimpleAndStretch(t *testing.T) {
	data := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	for _, tc := range []struct {
		name string
		n    *ops.Node
		want []int
	}{
		{"tensor", node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 4, 1}, data), int32Vec(2, 2, 2)}, outTensor(ops.Float32)), []int{2, 2, 2}},
		{"options", node(&ReshapeOptions{NewShape: []int{2, 2, 2}}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 4, 1}, data)}, outTensor(ops.Float32)), []int{2, 2, 2}},
		{"stretch", node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 4, 1}, data), int32Vec(2, 1, -1)}, outTensor(ops.Float32)), []int{2, 1, 4}},
		{"tensor wins over options", node(&ReshapeOptions{NewShape: []int{8}}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 4, 1}, data), int32Vec(4, 2)}, outTensor(ops.Float32)), []int{4, 2}},
		{"scalar shape tensor falls back to options", node(&ReshapeOptions{NewShape: []int{8}}, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 4, 1}, data), constT(tensorOf(ops.Int32, nil, []int32{8}))}, outTensor(ops.Float32)), []int{8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := NewReshape()
			run(t, k, tc.n)
			wantShape(t, tc.n.Outputs[0].Shape, tc.want)
			nearFloats(t, "output", tc.n.Outputs[0].Float32s(), []float64{1, 2, 3, 4, 5, 6, 7, 8}, 0)
			noAllocs(t, k, tc.n)
		})
	}
}

func TestReshapeScalar(t *testing.T) {
	for _, n := range []*ops.Node{
		node(&ReshapeOptions{NewShape: []int{0}}, []*ops.Tensor{tensorOf(ops.Int8, []int{1, 1}, []int8{-3})}, outTensor(ops.Int8)),
		node(&ReshapeOptions{NewShape: []int{}}, []*ops.Tensor{tensorOf(ops.Int8, []int{1}, []int8{-3})}, outTensor(ops.Int8)),
		node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{1}, []int8{-3}), constT(tensorOf(ops.Int32, []int{0}, []int32{}))}, outTensor(ops.Int8)),
	} {
		run(t, NewReshape(), n)
		wantShape(t, n.Outputs[0].Shape, []int{})
		equalInts(t, "output", n.Outputs[0].Int8s(), []int{-3})
	}
}

func TestReshapeZeroSized(t *testing.T) {
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{0, 4}, []float32{}), int32Vec(-1, 2)}, outTensor(ops.Float32))
	run(t, NewReshape(), n)
	wantShape(t, n.Outputs[0].Shape, []int{0, 2})
}

func TestReshapeDynamicShape(t *testing.T) {
	data := []int16{1, 2, 3, 4, 5, 6}
	shape := tensorOf(ops.Int32, []int{2}, []int32{0, 0})
	n := node(nil, []*ops.Tensor{tensorOf(ops.Int16, []int{6}, data), shape}, outTensor(ops.Int16))
	k := NewReshape()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if n.Outputs[0].Kind != ops.DynamicTensor || n.Outputs[0].Shape != nil {
		t.Fatalf("output after Prepare: kind %v shape %v, want a dynamic tensor without a shape", n.Outputs[0].Kind, n.Outputs[0].Shape)
	}
	copy(shape.Int32s(), []int32{3, -1})
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	wantShape(t, n.Outputs[0].Shape, []int{3, 2})
	equalInts(t, "output", n.Outputs[0].Int16s(), []int{1, 2, 3, 4, 5, 6})
	noAllocs(t, k, n)
	copy(shape.Int32s(), []int32{4, 2})
	if err := k.Eval(n); err == nil || !strings.Contains(err.Error(), "[4 2]") || !strings.Contains(err.Error(), "[6]") {
		t.Fatalf("Eval with a shape of 8 elements for a 6-element input: %v, want an error naming both shapes", err)
	}
}

func TestReshapeErrors(t *testing.T) {
	in := func() *ops.Tensor { return tensorOf(ops.Float32, []int{4, 1}, []float32{1, 2, 3, 4}) }
	for _, tc := range []struct {
		name  string
		n     *ops.Node
		frags []string
	}{
		{"mismatched", node(nil, []*ops.Tensor{in(), int32Vec(2, 1)}, outTensor(ops.Float32)), []string{"input 1 (shape)", "2 elements, input has 4"}},
		{"two stretch", node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 4, 1}, make([]float32, 8)), int32Vec(-1, -1, 2, 4)}, outTensor(ops.Float32)), []string{"more than one dimension is -1"}},
		{"negative", node(&ReshapeOptions{NewShape: []int{-2, -2}}, []*ops.Tensor{in()}, outTensor(ops.Float32)), []string{"options", "-2"}},
		{"type change", node(nil, []*ops.Tensor{in(), int32Vec(4)}, outTensor(ops.Int32)), []string{"output 0", "int32"}},
		{"three inputs", node(nil, []*ops.Tensor{in(), int32Vec(4), int32Vec(4)}, outTensor(ops.Float32)), []string{"inputs"}},
	} {
		t.Run(tc.name, func(t *testing.T) { wantPrepareError(t, NewReshape(), tc.n, tc.frags...) })
	}
}
