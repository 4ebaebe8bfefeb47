package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertPrintPasses: --print-passes lists the pipeline without a
// model; --print-ir-after writes the IR after the named pass to stderr
// and refuses an unknown name as a usage error listing the passes.
func TestConvertPrintPasses(t *testing.T) {
	code, stdout, stderr := tflrun(t, "convert", "--print-passes")
	if code != 0 || stderr != "" {
		t.Fatalf("--print-passes: exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 15 || !strings.HasPrefix(lines[0], "functionalize-tf1-loops ") ||
		!strings.HasPrefix(lines[3], "  simplify ") || !strings.HasPrefix(lines[14], "quantize ") {
		t.Errorf("--print-passes printed\n%s", stdout)
	}

	out := filepath.Join(t.TempDir(), "m.tflite")
	graph := "../../convert/testdata/double_relu.pbtxt"
	code, _, stderr = tflrun(t, "convert", graph, "-o", out, "--output_arrays", "out", "--print-ir-after", "bogus")
	if code != 2 || !strings.Contains(stderr, `--print-ir-after: unknown pass "bogus"`) || !strings.Contains(stderr, "inline-call, fuse-loops") {
		t.Errorf("unknown pass: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr = tflrun(t, "convert", graph, "-o", out, "--output_arrays", "out", "--print-ir-after", "optimize")
	if code != 0 || !strings.HasPrefix(stderr, "// -----// IR after optimize //----- //\nfunc serving_default(") ||
		!strings.Contains(stderr, "tfl.ADD") || !strings.Contains(stdout, "wrote ") {
		t.Errorf("--print-ir-after optimize: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
