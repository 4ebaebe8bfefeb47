package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --quantize and --no-fuse on the command line.
func TestConvertQuantizeAndNoFuseFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "q.tflite")
	t.Run("kws", func(t *testing.T) {
		kwsSavedModel := shared(t, kwsSavedModel)
		if code, _, stderr := tflrun(t, "convert", kwsSavedModel, "-o", out, "--quantize", "int4"); code != 2 || !strings.Contains(stderr, `--quantize: unknown quantization "int4"`) {
			t.Errorf("bad --quantize: %d %s", code, stderr)
		}
		code, stdout, stderr := tflrun(t, "convert", kwsSavedModel, "-o", out, "--quantize", "dynamic")
		if code != 0 || !strings.Contains(stdout, "quantization dynamic: 5 weight tensors quantised") {
			t.Fatalf("dynamic: %d\n%s\n%s", code, stdout, stderr)
		}
		if code, stdout, stderr := tflrun(t, "run", out); code != 0 || !strings.Contains(stdout, "float32 [1 12]") {
			t.Errorf("run the quantised model: %d\n%s\n%s", code, stdout, stderr)
		}
		code, stdout, stderr = tflrun(t, "convert", kwsSavedModel, "-o", out, "--quantize", "float16")
		if code != 0 || !strings.Contains(stdout, "20 DEQUANTIZE") || !strings.Contains(stdout, "float16 via DEQUANTIZE") {
			t.Fatalf("float16: %d\n%s\n%s", code, stdout, stderr)
		}
		// The DEQUANTIZE outputs are computed once at allocation; inspect
		// reports their bytes.
		if code, stdout, stderr := tflrun(t, "inspect", out); code != 0 || !strings.Contains(stdout, "precomputed ") || !strings.Contains(stdout, "DEQUANTIZE of constants, run once") {
			t.Errorf("inspect the float16 model: %d\n%s\n%s", code, stdout, stderr)
		}
	})
	// A TF2 loop unrolled: 3 time steps.
	code, stdout, stderr := tflrun(t, "convert", "../../convert/internal/controlflow/testdata/while_rnn.pbtxt", "-o", out, "--output_arrays", "stack,last", "--no-fuse")
	if code != 0 || !strings.Contains(stdout, "3 TANH") {
		t.Fatalf("unrolled loop: %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	// --no-fuse: the fusion report says why each composite was not fused.
	code, stdout, stderr = tflrun(t, "convert", "../../convert/testdata/double_relu.pbtxt", "-o", out, "--output_arrays", "out", "--no-fuse", "--fusion-report", "-")
	if want := `- call: _implements="test.double_relu": not fused: --no-fuse (Options.NoFuse) lowers composites op by op`; code != 0 || !strings.Contains(stdout, want) || strings.Contains(stdout, "(no rule)") {
		t.Errorf("--no-fuse report: %d\n%s\n%s\nwant a line %q", code, stdout, stderr, want)
	}
}

// TestConvertCustomOpNoteAndJSONReport: a model with a custom operator
// (the fused GRU) gets a note saying stock TensorFlow Lite lacks it, and a
// report file ending in .JSON (any case) is written as JSON.
func TestConvertCustomOpNoteAndJSONReport(t *testing.T) {
	dir := t.TempDir()
	out, report := filepath.Join(dir, "gru.tflite"), filepath.Join(dir, "report.JSON")
	code, stdout, stderr := tflrun(t, "convert", "../../convert/fusion/testdata/gru.pbtxt", "-o", out, "--output_arrays", "last", "--fusion-report", report)
	if code != 0 || !strings.Contains(stdout, "note: custom operator(s) UNIDIRECTIONAL_SEQUENCE_GRU") {
		t.Fatalf("convert: %d\n%s\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("report.JSON is not JSON: %v\n%s", err, b)
	}
	// A model of builtin operators only gets no note.
	code, stdout, stderr = tflrun(t, "convert", "../../convert/testdata/double_relu.pbtxt", "-o", out, "--output_arrays", "out")
	if code != 0 || strings.Contains(stdout, "note: custom") {
		t.Fatalf("builtin-only model: %d\n%s\n%s", code, stdout, stderr)
	}
}
