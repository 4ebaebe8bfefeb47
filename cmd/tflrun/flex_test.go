package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
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
	// Warm, the lists reuse their memory: Invoke allocates nothing.
	if n := testing.AllocsPerRun(5, func() { a.Invoke() }); n != 0 {
		t.Errorf("the unfused model's Invoke allocates %v times", n)
	}
}

func logit(p float32) float64 { return math.Log(float64(p)) - math.Log1p(-float64(p)) }

// TestFlexInspectAndHint checks that inspect lists a model's Flex
// operators and whether each runs, and that run and bench suggest
// tflrun convert for a model with recurrent WHILE loops, and for no
// other.
func TestFlexInspectAndHint(t *testing.T) {
	ditto := shared(t, "savedmodels/ditto_v2_bilstm/model.tflite")
	code, out, errs := tflrun(t, "inspect", ditto)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	for _, want := range []string{"FlexTensorListReserve x1: runs", "FlexTensorListSetItem x2: runs", "FlexTensorListStack x2: runs", "recurrent loops: 2", "unsupported operators: none"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect does not say %q:\n%s", want, out)
		}
	}
	hint := "hint: " + ditto + " has 2 WHILE loops that look like unfused recurrent layers"
	for _, args := range [][]string{{"run", ditto}, {"bench", ditto, "--num_runs", "1", "--warmup_runs", "0", "--min_secs", "0", "--warmup_min_secs", "0"}} {
		code, _, errs := tflrun(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, errs)
		}
		if strings.Count(errs, "hint: ") != 1 || !strings.Contains(errs, hint) {
			t.Errorf("%s: stderr lacks the hint %q:\n%s", args[0], hint, errs)
		}
	}
	if _, _, errs := tflrun(t, "run", shared(t, mnistFloatModel)); strings.Contains(errs, "hint:") {
		t.Errorf("a fused model gets a hint: %s", errs)
	}

	// A Flex operator tflrun has no kernel for is listed as not run.
	b := optest.NewBuilder()
	in := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{2}, nil)
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{2}, nil)
	b.Inputs(in)
	b.Outputs(y)
	b.Custom("FlexBogus", []int32{in}, []int32{y}, nil)
	path := filepath.Join(t.TempDir(), "bogus.tflite")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = tflrun(t, "inspect", path, "--json")
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	var rep struct {
		Flex []struct {
			Name   string
			Count  int
			Runs   bool
			Reason string
		} `json:"flex_operators"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Flex) != 1 || rep.Flex[0].Name != "FlexBogus" || rep.Flex[0].Runs || !strings.Contains(rep.Flex[0].Reason, "no kernel") {
		t.Errorf("flex_operators: %+v", rep.Flex)
	}
}
