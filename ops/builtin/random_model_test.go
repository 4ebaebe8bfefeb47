package builtin_test

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// Whole-model tests of RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL and
// MULTINOMIAL: the kernels as the interpreter runs them from a .tflite
// file. The streams are pinned by Random123's Philox known-answer vectors
// and the definition tests in package builtin, and checked against
// TensorFlow Lite's own outputs by the golden cases of
// random_golden_test.go (testdata/random).

func randomOpts(seed, seed2 int64) *schema.BuiltinOptionsT {
	return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsRandomOptions, Value: &schema.RandomOptionsT{Seed: seed, Seed2: seed2}}
}

func randomShapeModel(code schema.BuiltinOperator, seed, seed2 int64, shape ...int32) []byte {
	return opModel(code, 1, randomOpts(seed, seed2),
		[]gIn{cst(schema.TensorTypeINT32, optest.I32(shape...), int32(len(shape)))},
		[]gOut{res(schema.TensorTypeFLOAT32, shape...)})
}

// newRandomInterp loads a model and allocates its tensors.
func newRandomInterp(t *testing.T, m []byte) *interpreter.Interpreter {
	t.Helper()
	model, err := interpreter.LoadBytes(m)
	if err != nil {
		t.Fatal(err)
	}
	it, err := interpreter.New(model, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { it.Close() })
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	return it
}

// TestRandomModels runs the operators from .tflite files: the seeds come
// from the options table, equal seeds give equal streams in separate
// interpreters, a second Invoke continues the stream, and a run-time
// shape or sample count is sized at Invoke, its bad values refused with
// an error naming the operator.
func TestRandomModels(t *testing.T) {
	m := randomShapeModel(schema.BuiltinOperatorRANDOM_UNIFORM, 7, 11, 2, 3, 5)
	a, b := newRandomInterp(t, m), newRandomInterp(t, m)
	var first []float32
	for call := 0; call < 2; call++ {
		if err := a.Invoke(); err != nil {
			t.Fatal(err)
		}
		if err := b.Invoke(); err != nil {
			t.Fatal(err)
		}
		x, y := a.Output(0).Float32s(), b.Output(0).Float32s()
		if len(x) != 30 {
			t.Fatalf("output has %d elements, want 30", len(x))
		}
		for i := range x {
			if x[i] != y[i] || x[i] < 0 || x[i] >= 1 {
				t.Fatalf("call %d element %d: %v and %v", call, i, x[i], y[i])
			}
		}
		if call == 0 {
			first = append(first, x...)
		} else if first[0] == x[0] && first[1] == x[1] {
			t.Error("second Invoke repeated the first one's values")
		}
	}

	bd := optest.NewBuilder()
	s := bd.Tensor("shape", schema.TensorTypeINT32, []int32{2}, nil)
	o := bd.Tensor("out", schema.TensorTypeFLOAT32, []int32{1, 1}, nil)
	bd.Op(schema.BuiltinOperatorRANDOM_STANDARD_NORMAL, 1, []int32{s}, []int32{o}, randomOpts(1, 2))
	bd.Inputs(s)
	bd.Outputs(o)
	it := newRandomInterp(t, bd.Bytes())
	copy(it.Input(0).Int32s(), []int32{4, 5})
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if sh := it.Output(0).Shape; len(sh) != 2 || sh[0] != 4 || sh[1] != 5 {
		t.Fatalf("run-time shape [4 5]: output shape %v", sh)
	}
	copy(it.Input(0).Int32s(), []int32{-1, 5})
	if err := it.Invoke(); err == nil || !strings.Contains(err.Error(), "RANDOM_STANDARD_NORMAL") {
		t.Fatalf("shape [-1 5]: %v", err)
	}

	bd = optest.NewBuilder()
	l := bd.Tensor("logits", schema.TensorTypeFLOAT32, []int32{2, 3}, nil)
	ns := bd.Tensor("n", schema.TensorTypeINT32, []int32{}, nil)
	o = bd.Tensor("out", schema.TensorTypeINT64, []int32{2, 1}, nil)
	bd.Op(schema.BuiltinOperatorMULTINOMIAL, 1, []int32{l, ns}, []int32{o}, randomOpts(3, 4))
	bd.Inputs(l, ns)
	bd.Outputs(o)
	it = newRandomInterp(t, bd.Bytes())
	copy(it.Input(0).Float32s(), []float32{0, -1e30, -1e30, -1e30, -1e30, 0})
	it.Input(1).Int32s()[0] = 6
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	got := it.Output(0).Int64s()
	if sh := it.Output(0).Shape; len(sh) != 2 || sh[0] != 2 || sh[1] != 6 {
		t.Fatalf("num_samples 6: output shape %v", sh)
	}
	for j := 0; j < 6; j++ {
		if got[j] != 0 || got[6+j] != 2 {
			t.Fatalf("one-hot rows drew %v", got)
		}
	}
	it.Input(1).Int32s()[0] = -2
	if err := it.Invoke(); err == nil || !strings.Contains(err.Error(), "MULTINOMIAL") {
		t.Fatalf("num_samples -2: %v", err)
	}
}
