package main

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/interpreter"
)

// TestFlexDittoMatchesConversion runs TensorFlow's own, unfused
// conversion of the ditto wake-word SavedModel (WHILE loops over Flex
// TensorList operators, ../shared/savedmodels/ditto_v2_bilstm/
// model.tflite) as it is, and compares it with tflrun's fused conversion
// of the same SavedModel on random inputs: the outputs agree within
// 1e-5.
func TestFlexDittoMatchesConversion(t *testing.T) {
	dir := shared(t, "savedmodels/ditto_v2_bilstm/HeyDittoNet-v2")
	unfused, err := os.ReadFile(shared(t, "savedmodels/ditto_v2_bilstm/model.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := convert.Convert(dir, convert.Options{})
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	run := func(model []byte) *interpreter.Interpreter {
		m, err := interpreter.LoadBytes(model)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		it, err := interpreter.New(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { it.Close() })
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
		return it
	}
	a, b := run(unfused), run(res.Model)
	if a.Input(0).NumElements() != b.Input(0).NumElements() {
		t.Fatalf("inputs differ: %v and %v", a.Input(0).Shape, b.Input(0).Shape)
	}
	r := rand.New(rand.NewPCG(15, 1))
	in := make([]float32, a.Input(0).NumElements())
	for run := range 6 {
		scale := float32(1 + run)
		for i := range in {
			in[i] = scale * (2*r.Float32() - 1)
		}
		for _, it := range []*interpreter.Interpreter{a, b} {
			it.ResetVariableTensors() // the fused LSTMs' state: each run is a new sequence
			if err := it.Input(0).CopyFrom(in); err != nil {
				t.Fatal(err)
			}
			if err := it.Invoke(); err != nil {
				t.Fatalf("run %d: %v", run, err)
			}
		}
		got, want := a.Output(0).Float32s(), b.Output(0).Float32s()
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("run %d: outputs of %d and %d values", run, len(got), len(want))
		}
		for i := range got {
			if d := math.Abs(float64(got[i] - want[i])); d > 1e-5 {
				t.Errorf("run %d output[%d]: unfused %g, fused %g", run, i, got[i], want[i])
			}
			// The output is a sigmoid, often tiny: its logits agree too.
			if d := math.Abs(logit(got[i]) - logit(want[i])); d > 1e-3 {
				t.Errorf("run %d output[%d]: unfused %g, fused %g: logits differ by %g", run, i, got[i], want[i], d)
			}
		}
		t.Logf("run %d: unfused %v fused %v", run, got, want)
	}
}

func logit(p float32) float64 { return math.Log(float64(p)) - math.Log1p(-float64(p)) }
