package interpreter

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// twoSignatureModel is fcModel (subgraph 0, signature "fc": x → y) with a
// second subgraph, signature "add": a + b → sum over float32 [-1]
// vectors (shape [2], resizable), as a model with two entry points has.
func twoSignatureModel() *schema.ModelT {
	m := fcModel()
	m.OperatorCodes = append(m.OperatorCodes, &schema.OperatorCodeT{BuiltinCode: schema.BuiltinOperatorADD, DeprecatedBuiltinCode: 0, Version: 1})
	vec := func(name string) *schema.TensorT {
		return &schema.TensorT{Name: name, Shape: []int32{2}, ShapeSignature: []int32{-1}, Type: schema.TensorTypeFLOAT32}
	}
	m.Subgraphs = append(m.Subgraphs, &schema.SubGraphT{
		Name:    "add",
		Tensors: []*schema.TensorT{vec("add_a:0"), vec("add_b:0"), vec("Identity:0")},
		Inputs:  []int32{0, 1},
		Outputs: []int32{2},
		Operators: []*schema.OperatorT{{
			OpcodeIndex: 1, Inputs: []int32{0, 1}, Outputs: []int32{2},
			BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}},
		}},
	})
	m.SignatureDefs = []*schema.SignatureDefT{
		{SignatureKey: "fc", SubgraphIndex: 0, Inputs: []*schema.TensorMapT{{Name: "x", TensorIndex: 0}}, Outputs: []*schema.TensorMapT{{Name: "y", TensorIndex: 3}}},
		// The signature lists b before a: names, not positions, decide.
		{SignatureKey: "add", SubgraphIndex: 1,
			Inputs:  []*schema.TensorMapT{{Name: "b", TensorIndex: 1}, {Name: "a", TensorIndex: 0}},
			Outputs: []*schema.TensorMapT{{Name: "sum", TensorIndex: 2}}},
	}
	return m
}

func TestSignatureRunner(t *testing.T) {
	m := mustLoad(t, twoSignatureModel())
	if got := strings.Join(m.SignatureKeys(), ","); got != "fc,add" {
		t.Fatalf("SignatureKeys = %s", got)
	}

	add, err := NewSignatureRunner(m, "add", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer add.Close()
	if add.Key() != "add" || add.Subgraph() != 1 || strings.Join(add.InputNames(), ",") != "b,a" || strings.Join(add.OutputNames(), ",") != "sum" {
		t.Fatalf("runner: key %q subgraph %d inputs %v outputs %v", add.Key(), add.Subgraph(), add.InputNames(), add.OutputNames())
	}
	if err := add.ResizeInput("a", []int{3}); err != nil {
		t.Fatal(err)
	}
	if err := add.ResizeInputStrict("b", []int{3}); err != nil {
		t.Fatal(err)
	}
	if err := add.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	a, err := add.Input("a")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := add.Input("b")
	if a.Name != "add_a:0" || b.Name != "add_b:0" {
		t.Fatalf("inputs a, b are %s, %s", a, b)
	}
	if err := a.CopyFrom([]float32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyFrom([]float32{10, 20, 30}); err != nil {
		t.Fatal(err)
	}
	if err := add.Invoke(); err != nil {
		t.Fatal(err)
	}
	sum, err := add.Output("sum")
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 3)
	if err := sum.CopyTo(got); err != nil {
		t.Fatal(err)
	}
	if got[0] != 11 || got[1] != 22 || got[2] != 33 {
		t.Errorf("sum = %v, want [11 22 33]", got)
	}

	fc, err := NewSignatureRunner(m, "fc", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	if err := fc.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	x, _ := fc.Input("x")
	if err := x.CopyFrom([]float32{1, 0, 0, 1}); err != nil {
		t.Fatal(err)
	}
	if err := fc.Invoke(); err != nil {
		t.Fatal(err)
	}
	y, _ := fc.Output("y")
	if w := fcWant([4]float32{1, 0, 0, 1}); y.Float32s()[2] != w[2] {
		t.Errorf("fc y = %v, want %v", y.Float32s(), w)
	}
	if fc.Interpreter().Input(0) != x {
		t.Error("Interpreter().Input(0) is not the signature's input x")
	}
}

func TestSignatureRunnerMisuse(t *testing.T) {
	m := mustLoad(t, twoSignatureModel())
	if _, err := NewSignatureRunner(m, "nope", nil); err == nil || !strings.Contains(err.Error(), `["fc" "add"]`) {
		t.Errorf("unknown key: %v, want the keys listed", err)
	}
	if _, err := NewSignatureRunner(nil, "fc", nil); err == nil {
		t.Error("nil model: no error")
	}
	r, err := NewSignatureRunner(m, "add", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Input("add_a:0"); err == nil || !strings.Contains(err.Error(), `["b" "a"]`) {
		t.Errorf("a tensor name instead of the signature name: %v", err)
	}
	if _, err := r.Output("a"); err == nil || !strings.Contains(err.Error(), `["sum"]`) {
		t.Errorf("unknown output: %v", err)
	}
	if err := r.ResizeInput("c", []int{1}); err == nil {
		t.Error("ResizeInput of an unknown name: no error")
	}
	if err := r.ResizeInput("a", []int{-1}); err == nil || !strings.Contains(err.Error(), `input "a"`) {
		t.Errorf("negative dimension: %v", err)
	}
	if err := r.ResizeInputStrict("a", []int{2, 2}); err == nil {
		t.Error("strict resize to another rank: no error")
	}
	if err := r.Invoke(); !errors.Is(err, ErrNotAllocated) {
		t.Errorf("Invoke before AllocateTensors: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Invoke(); !errors.Is(err, ErrClosed) {
		t.Errorf("Invoke after Close: %v", err)
	}

	// A signature whose input is not an input of its subgraph.
	bad := twoSignatureModel()
	bad.SignatureDefs[1].Inputs[0].TensorIndex = 2
	if _, err := NewSignatureRunner(mustLoad(t, bad), "add", nil); err == nil || !strings.Contains(err.Error(), "not an input of subgraph 1") {
		t.Errorf("signature input that is a graph output: %v", err)
	}
	if _, err := newInterpreter(m, 2, nil); err == nil {
		t.Error("entry subgraph out of range: no error")
	}
}

// TestSignatureRunnerSharedModels runs the serving_default signature of
// the shared models that have one, by its input and output names.
func TestSignatureRunnerSharedModels(t *testing.T) {
	for _, c := range []struct{ path, in, out string }{
		{"../../shared/models/mnist_lstm/trained_lstm.tflite", "fixed_input", "sequential"},
		{"../../shared/models/dtln/dtln_noise_suppression.tflite", "input_7", "activation_20"},
	} {
		if _, err := os.Stat(c.path); err != nil {
			t.Skipf("shared model %s absent: %v", c.path, err)
		}
		m, err := Load(c.path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewSignatureRunner(m, "serving_default", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
		in, err := r.Input(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if in != r.Interpreter().Input(0) {
			t.Errorf("%s: signature input %q is %s, not the graph's input 0", c.path, c.in, in)
		}
		if err := r.Invoke(); err != nil {
			t.Fatal(err)
		}
		out, err := r.Output(c.out)
		if err != nil {
			t.Fatal(err)
		}
		if out != r.Interpreter().Output(0) {
			t.Errorf("%s: signature output %q is %s, not the graph's output 0", c.path, c.out, out)
		}
		r.Close()
		m.Close()
	}
}

// twoSignaturesFile is twoSignatureModel packed, for ExampleNewSignatureRunner.
const twoSignaturesFile = "testdata/two_signatures.tflite"

// TestTwoSignaturesFile keeps testdata/two_signatures.tflite equal to
// twoSignatureModel; TFLRUN_TESTDATA_UPDATE=1 rewrites it.
func TestTwoSignaturesFile(t *testing.T) {
	want := pack(twoSignatureModel())
	if os.Getenv("TFLRUN_TESTDATA_UPDATE") == "1" {
		if err := os.WriteFile(twoSignaturesFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(twoSignaturesFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from twoSignatureModel: regenerate it with TFLRUN_TESTDATA_UPDATE=1 go test ./interpreter -run TestTwoSignaturesFile", twoSignaturesFile)
	}
}
