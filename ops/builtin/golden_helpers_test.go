package builtin_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Helpers of the golden-case tests of this package (files
// *_golden_test.go): each operator describes its single-operator models
// as goldVariants; with TFLRUN_RECORD=1 and TFLITE_REF set, the record
// test writes them and TensorFlow Lite's outputs under
// testdata/<op>/<variant>/, and the check test runs every recorded case
// through the interpreter with optest.Check.

// goldVariant is one model of an operator's golden cases.
type goldVariant struct {
	name  string
	model func() []byte
	runs  int // random input sets (default 3)
	gen   optest.InputGen
	tol   optest.Case // Exact / Atol / Rtol
}

// goldRecord writes the variants' models and TensorFlow Lite's outputs
// under testdata/<op>/ when TFLRUN_RECORD=1, and skips otherwise saying
// how to run it.
func goldRecord(t *testing.T, op string, seed uint64, variants []goldVariant) {
	t.Helper()
	if os.Getenv(optest.RecordEnv) != "1" {
		t.Skipf("recording golden cases: run with %s=1 and %s=/path/to/tflite_ref", optest.RecordEnv, optest.RefEnv)
	}
	ref, err := optest.Ref()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("testdata", op)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	for i, v := range variants {
		runs := v.runs
		if runs == 0 {
			runs = 3
		}
		if err := optest.RecordCases(ref, filepath.Join(root, v.name), v.model(), runs, seed+uint64(100*i), v.gen, v.tol); err != nil {
			t.Fatalf("%s/%s: %v", op, v.name, err)
		}
	}
}

// goldRNG returns the deterministic generator of a model's weights.
func goldRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x676f6c64)) }

// goldF32 draws n floats in [lo, hi).
func goldF32(r *rand.Rand, n int, lo, hi float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(lo + (hi-lo)*r.Float64())
	}
	return v
}

// goldI8 draws n int8 values in [lo, hi].
func goldI8(r *rand.Rand, n, lo, hi int) []int8 {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(lo + r.IntN(hi-lo+1))
	}
	return v
}

// goldI16 draws n int16 values in [lo, hi].
func goldI16(r *rand.Rand, n, lo, hi int) []int16 {
	v := make([]int16, n)
	for i := range v {
		v[i] = int16(lo + r.IntN(hi-lo+1))
	}
	return v
}

// goldI32 draws n int32 values in [lo, hi].
func goldI32(r *rand.Rand, n, lo, hi int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(lo + r.IntN(hi-lo+1))
	}
	return v
}

func goldU8Bytes(v []uint8) []byte { return append([]byte(nil), v...) }

// goldPerChannel is a per-channel quantisation along dim with the given
// scales and zero points 0.
func goldPerChannel(scales []float32, dim int32) *optest.Quant {
	return &optest.Quant{Scale: scales, ZeroPoint: make([]int64, len(scales)), Dim: dim}
}

// goldScales draws n scales in [lo, hi).
func goldScales(r *rand.Rand, n int, lo, hi float64) []float32 { return goldF32(r, n, lo, hi) }

// goldStd is the standard deviation of a sum of k products of
// independent values uniform over ±a and ±b: √k·a·b/3.
func goldStd(k int, a, b float64) float64 { return math.Sqrt(float64(k)) * a * b / 3 }

// goldSingleOp builds a model of one builtin operator: inputs (tensor
// indices, -1 omitted) feeding outputs, with the subgraph inputs given.
func goldSingleOp(b *optest.Builder, code schema.BuiltinOperator, version int32, ins, outs, graphIns []int32, opts *schema.BuiltinOptionsT) []byte {
	b.Op(code, version, ins, outs, opts)
	b.Inputs(graphIns...)
	b.Outputs(outs...)
	return b.Bytes()
}

// goldCheckOrSmoke replays testdata/<op> when TensorFlow Lite's outputs
// have been recorded there; until then it runs every variant's model
// through the interpreter on random inputs, so the models at least load,
// prepare and run (the kernels' arithmetic is checked against plain
// transcriptions of TFLite's kernels by the package's own tests).
func goldCheckOrSmoke(t *testing.T, op string, variants []goldVariant) {
	t.Helper()
	root := filepath.Join("testdata", op)
	if _, err := os.Stat(root); err == nil {
		optest.Check(t, root, nil)
		return
	}
	t.Logf("no recorded cases in %s yet: running the models only", root)
	dir := t.TempDir()
	for i, v := range variants {
		path := filepath.Join(dir, v.name+".tflite")
		if err := os.WriteFile(path, v.model(), 0o644); err != nil {
			t.Fatal(err)
		}
		ins, err := optest.RandomInputs(path, uint64(i), v.gen, nil)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if _, err := optest.Run(&optest.Case{Model: path, Inputs: ins}, nil); err != nil {
			t.Errorf("%s: %v", v.name, err)
		}
	}
}
