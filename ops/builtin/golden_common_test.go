package builtin_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Helpers of the golden-case tests: each operator's test builds small
// single-operator models (seeded data, written by optest.Builder),
// records TensorFlow Lite's outputs for random inputs once into
// testdata/<op>/<variant>/ (TestRecord…, gated on TFLRUN_RECORD=1 and a
// TFLITE_REF runner), and checks tflrun against them on every run
// (TestGolden…). The recorded cases make the suite stand alone.

// gIn is one input of a single-operator model: an activation (data nil)
// that the recorder fills with random values, or a constant holding data.
type gIn struct {
	typ   schema.TensorType
	shape []int32
	q     *optest.Quant
	data  []byte
}

// gOut is one output of a single-operator model.
type gOut struct {
	typ   schema.TensorType
	shape []int32
	q     *optest.Quant
}

// act is an activation input.
func act(typ schema.TensorType, shape ...int32) gIn { return gIn{typ: typ, shape: shape} }

// actQ is a quantised activation input.
func actQ(typ schema.TensorType, q *optest.Quant, shape ...int32) gIn {
	return gIn{typ: typ, shape: shape, q: q}
}

// cst is a constant input.
func cst(typ schema.TensorType, data []byte, shape ...int32) gIn {
	return gIn{typ: typ, shape: shape, data: data}
}

// res is an output.
func res(typ schema.TensorType, shape ...int32) gOut { return gOut{typ: typ, shape: shape} }

// resQ is a quantised output.
func resQ(typ schema.TensorType, q *optest.Quant, shape ...int32) gOut {
	return gOut{typ: typ, shape: shape, q: q}
}

// opModel builds a model of one builtin operator: its activation inputs
// are the model's inputs (in order), its outputs the model's outputs. A
// gIn with a nil shape and no data is an omitted optional input (-1).
func opModel(code schema.BuiltinOperator, version int32, opts *schema.BuiltinOptionsT, ins []gIn, outs []gOut) []byte {
	b := optest.NewBuilder()
	var inIdx, modelIns, outIdx []int32
	for i, in := range ins {
		name := fmt.Sprintf("in%d", i)
		switch {
		case in.data != nil:
			inIdx = append(inIdx, b.Const(name, in.typ, in.shape, in.q, in.data))
		case in.shape == nil && in.typ == schema.TensorType(-1):
			inIdx = append(inIdx, -1)
		default:
			t := b.Tensor(name, in.typ, in.shape, in.q)
			inIdx = append(inIdx, t)
			modelIns = append(modelIns, t)
		}
	}
	for i, o := range outs {
		outIdx = append(outIdx, b.Tensor(fmt.Sprintf("out%d", i), o.typ, o.shape, o.q))
	}
	b.Op(code, version, inIdx, outIdx, opts)
	b.Inputs(modelIns...)
	b.Outputs(outIdx...)
	return b.Bytes()
}

// omitted is an omitted optional input.
var omitted = gIn{typ: schema.TensorType(-1)}

// goldenModel is one model to record: its cases go to
// testdata/<op>/<variant>/run<k>.
type goldenModel struct {
	variant string
	model   []byte
	runs    int             // 0 means 3
	gen     optest.InputGen // nil means optest.Uniform
	tol     optest.Case     // exactness and tolerances
}

// checkGolden runs every recorded case of op against the interpreter.
func checkGolden(t *testing.T, op string) {
	t.Helper()
	optest.Check(t, filepath.Join("testdata", op), nil)
}

// recordGolden rewrites testdata/<op> with TensorFlow Lite's outputs for
// the models. It skips unless TFLRUN_RECORD=1, saying how to run it.
func recordGolden(t *testing.T, op string, models []goldenModel) {
	t.Helper()
	recordGoldenFrom(t, op, models, 1)
}

// recordGoldenFrom is recordGolden with model i's inputs drawn from seed
// 1000·i + seed (the detection, FFT, audio and sparse cases were recorded
// with seed 7; keeping it lets them be re-recorded to the same bytes).
func recordGoldenFrom(t *testing.T, op string, models []goldenModel, seed uint64) {
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
	for i, m := range models {
		if seen[m.variant] {
			t.Fatalf("variant %q twice", m.variant)
		}
		seen[m.variant] = true
		runs := m.runs
		if runs == 0 {
			runs = 3
		}
		if err := optest.RecordCases(ref, filepath.Join(root, m.variant), m.model, runs, uint64(1000*i)+seed, m.gen, m.tol); err != nil {
			t.Fatalf("%s/%s: %v", op, m.variant, err)
		}
	}
}
