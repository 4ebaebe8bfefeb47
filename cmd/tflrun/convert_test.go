package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kwsSavedModel is MLPerf Tiny's DS-CNN keyword spotter (a TensorFlow 2.3
// SavedModel) under ../shared.
const kwsSavedModel = "savedmodels/kws_dscnn/kws_ref_model"

// TestConvertKWS converts the DS-CNN SavedModel with the command, then
// inspects and runs the result with tflrun itself.
func TestConvertKWS(t *testing.T) {
	kwsSavedModel := shared(t, kwsSavedModel)
	out := filepath.Join(t.TempDir(), "kws.tflite")
	code, stdout, stderr := tflrun(t, "convert", kwsSavedModel, "-o", out, "--fusion-report", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "wrote "+out) || !strings.Contains(stdout, "13 operators: 5 CONV_2D, 4 DEPTHWISE_CONV_2D, 1 AVERAGE_POOL_2D") ||
		!strings.Contains(stdout, "fusion report: 0 composite call(s), 0 fused") {
		t.Errorf("stdout:\n%s", stdout)
	}
	code, stdout, stderr = tflrun(t, "inspect", out, "--json")
	if code != 0 {
		t.Fatalf("inspect exit %d: %s", code, stderr)
	}
	var rep struct {
		Description string `json:"description"`
		Allocation  string `json:"allocation"`
		Signatures  []struct {
			Key string `json:"key"`
		} `json:"signatures"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Description, "tflrun ") || !strings.HasSuffix(rep.Description, " convert") || rep.Allocation != "ok" {
		t.Errorf("inspect: %+v", rep)
	}
	code, stdout, stderr = tflrun(t, "run", out, "--json")
	if code != 0 {
		t.Fatalf("run exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "StatefulPartitionedCall:0") {
		t.Errorf("run output names: %s", stdout)
	}
}

func TestConvertFlagsAndErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.tflite")
	t.Run("kws", func(t *testing.T) {
		kwsSavedModel := shared(t, kwsSavedModel)
		if code, _, stderr := tflrun(t, "convert", kwsSavedModel); code != 2 || !strings.Contains(stderr, "convert needs -o OUT.tflite") {
			t.Errorf("no -o: %d %s", code, stderr)
		}
		if code, _, stderr := tflrun(t, "convert", kwsSavedModel, "-o", out, "--input_shapes", "1,x"); code != 2 || !strings.Contains(stderr, "--input_shapes") {
			t.Errorf("bad shapes: %d %s", code, stderr)
		}
		if code, _, stderr := tflrun(t, "convert", kwsSavedModel, "-o", out, "--signature", "nope"); code != 1 || !strings.Contains(stderr, `no signature "nope"`) {
			t.Errorf("bad signature: %d %s", code, stderr)
		}
	})
	// A GraphDef without --output_arrays: its sink node is the output,
	// and a note on stderr says so, naming the flag.
	if code, _, stderr := tflrun(t, "convert", "../../convert/testdata/double_relu.pbtxt", "-o", out); code != 0 || !strings.Contains(stderr, "note: outputs inferred as the graph's sink nodes (the nodes whose outputs nothing reads): out; name others with --output_arrays") {
		t.Errorf("GraphDef without outputs: %d %s", code, stderr)
	}
	// --input_shapes contradicting the Placeholder's [? 3]: rank, a static
	// dimension, the number of shapes; each names the input and both shapes.
	for _, c := range []struct{ shapes, want string }{
		{"2,3,1", `input 0 "x": the given shape [2 3 1] (InputShapes; --input_shapes on the command line) has rank 3, but the input's declared shape [? 3] has rank 2`},
		{"2,4", `input 0 "x": the given shape [2 4] (InputShapes; --input_shapes on the command line) contradicts the input's declared shape [? 3]: dimension 1 is 3, not 4`},
		{"2,3:1", `2 input shapes given for 1 inputs (x)`},
	} {
		code, _, stderr := tflrun(t, "convert", "../../convert/testdata/double_relu.pbtxt", "-o", out, "--output_arrays", "out", "--input_shapes", c.shapes)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("--input_shapes %s: %d %s\nwant %q", c.shapes, code, stderr, c.want)
		}
	}
	// A GraphDef with input/output arrays and shapes, and a JSON report.
	report := filepath.Join(dir, "report.json")
	code, _, stderr := tflrun(t, "convert", "../../convert/testdata/double_relu.pbtxt", "-o", out, "--output_arrays", "out",
		"--input_shapes", "2,3", "--fusion-report", report)
	if code != 0 {
		t.Fatalf("pbtxt: %d %s", code, stderr)
	}
	data, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(data), `"implements": "test.double_relu"`) || !strings.Contains(string(data), `"fused": false`) {
		t.Errorf("report: %s %v", data, err)
	}
	code, stdout, _ := tflrun(t, "inspect", out)
	if code != 0 || !strings.Contains(stdout, "[2 3]") {
		t.Errorf("pinned input shape not in the model:\n%s", stdout)
	}
	// Conversion errors exit 1 and name the problem. A node of a
	// GraphDef is placed in "graph FILE" (a GraphDef has no function).
	frob := filepath.Join(dir, "frob.pbtxt")
	if err := os.WriteFile(frob, []byte(`node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 1 } } } } }
node { name: "y" op: "FrobnicateV7" input: "x" }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = tflrun(t, "convert", frob, "-o", out, "--output_arrays", "y")
	if want := "graph " + frob + `: node "y" (op FrobnicateV7): no TFLite legalisation for op FrobnicateV7`; code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "serving_default") {
		t.Errorf("unknown op in a GraphDef: %d %s\nwant %q", code, stderr, want)
	}
	if strings.Contains(stderr, "hint:") {
		t.Errorf("a cut was given, yet the error hints at one: %s", stderr)
	}
	// Without a cut (y is the inferred output), the error says how to go
	// around the op.
	code, _, stderr = tflrun(t, "convert", frob, "-o", out)
	if code != 1 || !strings.Contains(stderr, "no TFLite legalisation for op FrobnicateV7") || !strings.Contains(stderr, "hint: to convert the rest, cut the graph") {
		t.Errorf("unknown op without a cut: %d %s", code, stderr)
	}
	code, _, stderr = tflrun(t, "convert", "../../convert/testdata/cycle.pbtxt", "-o", out, "--output_arrays", "call")
	if code != 1 || !strings.Contains(stderr, "function calls form a cycle: ping → pong → ping") {
		t.Errorf("cycle: %d %s", code, stderr)
	}
}

// TestConvertLimitFlags checks that the limit flags reach the conversion
// and that a conversion stopped by one names the flag.
func TestConvertLimitFlags(t *testing.T) {
	kwsSavedModel := shared(t, kwsSavedModel)
	out := filepath.Join(t.TempDir(), "m.tflite")
	code, _, stderr := tflrun(t, "convert", kwsSavedModel, "-o", out, "--max-nodes", "10")
	if code != 1 || !strings.Contains(stderr, "past the node budget of 10 (Options.MaxNodes, --max-nodes)") {
		t.Errorf("--max-nodes: exit %d: %s", code, stderr)
	}
	code, _, stderr = tflrun(t, "convert", kwsSavedModel, "-o", out, "--max-constant-bytes", "20000")
	if code != 1 || !strings.Contains(stderr, "past the budget of 20000 (Options.MaxConstantBytes, --max-constant-bytes)") {
		t.Errorf("--max-constant-bytes: exit %d: %s", code, stderr)
	}
	code, _, stderr = tflrun(t, "convert", kwsSavedModel, "-o", out, "--max-tensor-bytes", "1000")
	if code != 1 || !strings.Contains(stderr, "(Options.MaxTensorBytes, --max-tensor-bytes)") {
		t.Errorf("--max-tensor-bytes: exit %d: %s", code, stderr)
	}
	for _, flag := range []string{"--max-nodes", "--max-constant-bytes", "--max-loop-iterations"} {
		if code, _, stderr := tflrun(t, "convert", kwsSavedModel, "-o", out, flag, "0"); code != 2 || !strings.Contains(stderr, flag+" must be positive") {
			t.Errorf("%s 0: exit %d: %s", flag, code, stderr)
		}
	}
	if code, _, stderr := tflrun(t, "convert", kwsSavedModel, "-o", out, "--max-nodes", "1000", "--max-constant-bytes", "100000000"); code != 0 {
		t.Errorf("generous limits: exit %d: %s", code, stderr)
	}
}
