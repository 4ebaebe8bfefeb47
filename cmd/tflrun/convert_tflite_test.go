package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertTFLite re-fuses TensorFlow's unfused conversion of
// HeyDittoNet with tflrun convert, and rewrites it with --no-fuse; flags
// for TensorFlow models are refused.
func TestConvertTFLite(t *testing.T) {
	in := shared(t, "savedmodels/ditto_v2_bilstm/model.tflite")
	dir := t.TempDir()
	out := filepath.Join(dir, "fused.tflite")
	code, stdout, stderr := tflrun(t, "convert", in, "-o", out, "--fusion-report", "-", "--print-ir-after", "fuse-tflite-loops")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "fusion report: 2 composite call(s), 2 fused") || !strings.Contains(stdout, "1 BIDIRECTIONAL_SEQUENCE_LSTM") ||
		strings.Contains(stdout, "WHILE") || !strings.Contains(stderr, "IR after fuse-tflite-loops") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	code, stdout, stderr = tflrun(t, "convert", in, "-o", filepath.Join(dir, "same.tflite"), "--no-fuse", "--allow-custom-ops")
	if code != 0 || !strings.Contains(stdout, "2 WHILE") {
		t.Errorf("--no-fuse: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr = tflrun(t, "convert", in, "-o", filepath.Join(dir, "x.tflite"), "--input_shapes", "1,2"); code == 0 || !strings.Contains(stderr, "--input_shapes") {
		t.Errorf("--input_shapes on a .tflite: exit %d: %s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.tflite")
	data, _ := os.ReadFile(in)
	os.WriteFile(bad, data[:len(data)/3], 0o644)
	if code, _, stderr = tflrun(t, "convert", bad, "-o", filepath.Join(dir, "y.tflite")); code == 0 || !strings.Contains(stderr, "reading the .tflite model") {
		t.Errorf("truncated model: exit %d: %s", code, stderr)
	}
}
