package builtin_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
)

// Helpers of the golden-case tests of the detection, FFT, audio and
// sparse operators: each test builds small models (seeded data, written
// by optest.Builder), records TensorFlow Lite's outputs for random inputs
// once into testdata/<op>/<variant>/ (TestRecord…, gated on
// TFLRUN_RECORD=1 and a TFLITE_REF runner), and checks tflrun against
// them on every run (TestGolden…), so the suite stands alone.

// opCase is one model to record: its cases go to
// testdata/<op>/<variant>/run<k>.
type opCase struct {
	variant string
	model   []byte
	runs    int             // 0 means 3
	gen     optest.InputGen // nil means optest.Uniform
	tol     optest.Case     // exactness and tolerances
}

// checkOpCases runs every recorded case of op against the interpreter.
func checkOpCases(t *testing.T, op string) {
	t.Helper()
	optest.Check(t, filepath.Join("testdata", op), nil)
}

// recordOpCases rewrites testdata/<op> with TensorFlow Lite's outputs for
// the models. It skips unless TFLRUN_RECORD=1, saying how to run it.
func recordOpCases(t *testing.T, op string, cases []opCase) {
	t.Helper()
	if os.Getenv(optest.RecordEnv) != "1" {
		t.Skipf("recording skipped: run with %s=1 %s=/path/to/tflite_ref to rewrite testdata/%s", optest.RecordEnv, optest.RefEnv, op)
	}
	ref, err := optest.Ref()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("testdata", op)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, c := range cases {
		if seen[c.variant] {
			t.Fatalf("variant %q twice", c.variant)
		}
		seen[c.variant] = true
		runs := c.runs
		if runs == 0 {
			runs = 3
		}
		if err := optest.RecordCases(ref, filepath.Join(root, c.variant), c.model, runs, uint64(1000*i+7), c.gen, c.tol); err != nil {
			t.Fatalf("%s/%s: %v", op, c.variant, err)
		}
	}
}
