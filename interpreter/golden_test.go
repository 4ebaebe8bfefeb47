package interpreter

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
)

// Golden cases hold inputs and the outputs native TensorFlow Lite computes
// for them (see ../shared/golden/README.md for the format). The cases of
// models generated for this project (the recurrent variants) are copied
// into ../testdata/golden; the cases of third-party models are read in
// place from ../../shared/golden, and their tests skip, naming the path,
// where it is absent.

// sharedGolden is the shared golden folder, beside the repository root.
var sharedGolden = filepath.Join("..", "..", "shared", "golden")

// sharedModel returns the path of ../../shared/models/rel, skipping the
// test, naming the path, when it is absent.
func sharedModel(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "models", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is absent: %v", p, err)
	}
	return p
}

// goldenCase is a case.json.
type goldenCase struct {
	Model string  `json:"model"`
	Atol  float64 `json:"atol"`
	Rtol  float64 `json:"rtol"`
	Exact bool    `json:"exact"`
}

// resolveGoldenModel maps a case's model path ("shared/models/X/Y", relative
// to the folder holding shared/) to a file: the model.tflite beside
// case.json for a generated case (also in the repository's testdata copy),
// else the file under the shared folder.
func resolveGoldenModel(caseDir, model string) string {
	if local := filepath.Join(caseDir, filepath.Base(model)); strings.HasPrefix(model, "shared/golden/") {
		if _, err := os.Stat(local); err == nil {
			return local
		}
	}
	return filepath.Join("..", "..", filepath.FromSlash(model))
}

// goldenCases lists the case folders under root, sorted.
func goldenCases(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "case.json" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		t.Skipf("golden cases missing: %v", err)
	}
	sort.Strings(dirs)
	return dirs
}

// runGoldenCase runs one case on a fresh interpreter and returns the
// largest absolute difference from TFLite's outputs, or an error when an
// output's shape or dtype differs or the difference exceeds the case's
// tolerance.
func runGoldenCase(dir string) (float64, error) {
	return runGoldenCaseThreads(dir, 1, nil)
}

// runGoldenCaseThreads is runGoldenCase on an interpreter of threads
// threads; outs, when not nil, receives a copy of every output's bytes.
func runGoldenCaseThreads(dir string, threads int, outs *[][]byte) (float64, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return 0, err
	}
	var c goldenCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return 0, fmt.Errorf("case.json: %v", err)
	}
	m, err := Load(resolveGoldenModel(dir, c.Model))
	if err != nil {
		return 0, err
	}
	defer m.Close()
	it, err := New(m, &Options{NumThreads: threads})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		return 0, err
	}
	for i := 0; i < it.InputCount(); i++ {
		a, err := npy.ReadFile(filepath.Join(dir, fmt.Sprintf("input_%d.npy", i)))
		if err != nil {
			return 0, err
		}
		in := it.Input(i)
		if a.Type != in.Type {
			return 0, fmt.Errorf("input %d: npy holds %s, the model wants %s", i, a.Type, in.Type)
		}
		if !ops.SameShape(a.Shape, in.Shape) {
			if err := it.ResizeInputTensor(i, a.Shape); err != nil {
				return 0, err
			}
			if err := it.AllocateTensors(); err != nil {
				return 0, err
			}
		}
		if err := it.Input(i).CopyFromBytes(a.Data); err != nil {
			return 0, err
		}
	}
	if err := it.Invoke(); err != nil {
		return 0, err
	}
	if outs != nil {
		*outs = (*outs)[:0]
		for j := 0; j < it.OutputCount(); j++ {
			*outs = append(*outs, append([]byte(nil), it.Output(j).Data...))
		}
	}
	worst := 0.0
	for j := 0; j < it.OutputCount(); j++ {
		want, err := npy.ReadFile(filepath.Join(dir, fmt.Sprintf("output_%d.npy", j)))
		if err != nil {
			return 0, err
		}
		got := it.Output(j)
		if got.Type != want.Type {
			return 0, fmt.Errorf("output %d: dtype %s, TFLite's is %s", j, got.Type, want.Type)
		}
		if got.NumElements()*got.Type.Size() != len(want.Data) {
			return 0, fmt.Errorf("output %d: shape %v, TFLite's is %v", j, got.Shape, want.Shape)
		}
		g, err := asFloat64(got.Type, got.Data)
		if err != nil {
			return 0, fmt.Errorf("output %d: %v", j, err)
		}
		w, err := asFloat64(want.Type, want.Data)
		if err != nil {
			return 0, fmt.Errorf("output %d: %v", j, err)
		}
		maxWant, diff := 0.0, 0.0
		for k := range w {
			diff = math.Max(diff, math.Abs(g[k]-w[k]))
			maxWant = math.Max(maxWant, math.Abs(w[k]))
		}
		worst = math.Max(worst, diff)
		tol := c.Atol + c.Rtol*maxWant
		if c.Exact {
			tol = 0
		}
		if diff > tol || math.IsNaN(diff) {
			return worst, fmt.Errorf("output %d: max |got-want| = %g > tolerance %g\n got  %v\n want %v", j, diff, tol, g, w)
		}
	}
	return worst, nil
}

// asFloat64 widens raw tensor bytes of a numeric type to float64. A type
// it does not handle is an error naming it, so a comparison can never pass
// on values it did not read.
func asFloat64(typ ops.DataType, data []byte) ([]float64, error) {
	size := typ.Size()
	switch typ {
	case ops.Float32, ops.Float64, ops.Int8, ops.Uint8, ops.Int16, ops.Int32, ops.Int64, ops.Bool:
	default:
		return nil, fmt.Errorf("asFloat64: dtype %s is not handled", typ)
	}
	if len(data)%size != 0 {
		return nil, fmt.Errorf("asFloat64: %d bytes is no whole number of %s elements", len(data), typ)
	}
	t := ops.Tensor{Type: typ, Data: data}
	out := make([]float64, len(data)/size)
	for i := range out {
		switch typ {
		case ops.Float32:
			out[i] = float64(t.Float32s()[i])
		case ops.Float64:
			out[i] = t.Float64s()[i]
		case ops.Int8:
			out[i] = float64(t.Int8s()[i])
		case ops.Uint8:
			out[i] = float64(data[i])
		case ops.Int16:
			out[i] = float64(t.Int16s()[i])
		case ops.Int32:
			out[i] = float64(t.Int32s()[i])
		case ops.Int64:
			out[i] = float64(t.Int64s()[i])
		case ops.Bool:
			if data[i] != 0 {
				out[i] = 1
			}
		}
	}
	return out, nil
}

// mustFloat64 is asFloat64 that fails the test on an unhandled dtype.
func mustFloat64(t testing.TB, typ ops.DataType, data []byte) []float64 {
	t.Helper()
	v, err := asFloat64(typ, data)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// testGoldenFolder runs every case under root, or only the cases whose
// folder name starts with one of prefixes when prefixes are given.
func testGoldenFolder(t *testing.T, root string, prefixes ...string) {
	dirs := goldenCases(t, root)
	if len(prefixes) > 0 {
		kept := dirs[:0]
		for _, d := range dirs {
			for _, p := range prefixes {
				if strings.HasPrefix(filepath.Base(d), p) {
					kept = append(kept, d)
					break
				}
			}
		}
		dirs = kept
	}
	if len(dirs) == 0 {
		t.Skipf("no golden cases under %s", root)
	}
	worst := 0.0
	for _, dir := range dirs {
		name, _ := filepath.Rel(root, dir)
		t.Run(name, func(t *testing.T) {
			d, err := runGoldenCase(dir)
			if err != nil {
				t.Fatal(err)
			}
			worst = math.Max(worst, d)
		})
	}
	t.Logf("%d cases, max |diff| %.3g", len(dirs), worst)
}

// TestGoldenMNISTLSTM: trained_lstm (float, within 1e-5) and
// trained_lstm_int8 (exact) on the ten sample digits, from
// ../shared/golden/mnist_lstm.
func TestGoldenMNISTLSTM(t *testing.T) {
	testGoldenFolder(t, filepath.Join(sharedGolden, "mnist_lstm"))
}

// TestGoldenDTLN: DTLN noise suppression (int8, two LSTM(128)), exactly
// TFLite's builtin-kernel output, from ../shared/golden/dtln.
func TestGoldenDTLN(t *testing.T) {
	testGoldenFolder(t, filepath.Join(sharedGolden, "dtln"))
}

// goldenRecurrentFamilies are the variants of ../shared/golden/recurrent
// (copied to ../testdata/golden/recurrent) whose kernels tflrun has; a
// family joins the list when its kernel lands. See that folder's README
// for what each case is.
var goldenRecurrentFamilies = []string{
	"usl_f32_",    // UNIDIRECTIONAL_SEQUENCE_LSTM float32
	"usl_int8_",   // UNIDIRECTIONAL_SEQUENCE_LSTM int8x8_16
	"usl_hybrid",  // UNIDIRECTIONAL_SEQUENCE_LSTM hybrid (int8 weights, float activations)
	"lstm_full_",  // LSTM kernel_type FULL: float32, hybrid, int8x8_16
	"lstm_basic_", // LSTM kernel_type BASIC: float32 and the legacy uint8 cell
	"bilstm_",     // BIDIRECTIONAL_SEQUENCE_LSTM float32 and hybrid
	"rnn_",        // RNN float32 and hybrid
	"usrnn_",      // UNIDIRECTIONAL_SEQUENCE_RNN float32 and hybrid
	"birnn_",      // BIDIRECTIONAL_SEQUENCE_RNN float32 and hybrid
	"svdf_",       // SVDF float32, hybrid and int8
	"gru_",        // custom UNIDIRECTIONAL_SEQUENCE_GRU float32
}

// TestGoldenRecurrent: the single-operator recurrent models, TFLite's
// outputs within the tolerance each case records (exact for integer).
func TestGoldenRecurrent(t *testing.T) {
	testGoldenFolder(t, filepath.Join("..", "testdata", "golden", "recurrent"), goldenRecurrentFamilies...)
}

// goldenSharedFolders are the other folders of ../shared/golden (real
// models, read in place) whose operators tflrun runs. kws_dscnn_hybrid is
// TensorFlow's float conversion of the DS-CNN keyword spotter, whose
// CONV_2D filters are int8 (the hybrid path), within 1e-5.
var goldenSharedFolders = []string{
	"coral_lstm_mnist_uint8",
	"micro_speech_lstm",
	"litert_rnn_testdata",
	"keyword_scrambled_svdf",
	"magic_wand",
	"vww_96",
	"mobilenet_v1_025_128_uint8",
	"micro_speech",
	"recommendation_rnn",
	"text_classifier",
	"kws_dscnn_hybrid",
}

// TestGoldenShared runs the real-model cases of goldenSharedFolders; it
// skips, naming the path, where ../shared is absent.
func TestGoldenShared(t *testing.T) {
	root := sharedGolden
	if _, err := os.Stat(root); err != nil {
		t.Skipf("%s is absent: %v", root, err)
	}
	for _, f := range goldenSharedFolders {
		t.Run(f, func(t *testing.T) { testGoldenFolder(t, filepath.Join(root, f)) })
	}
}

// TestAsFloat64RefusesUnhandledDtypes: a dtype the golden comparison does
// not read is an error naming it, never an empty or zero slice that would
// compare equal.
func TestAsFloat64RefusesUnhandledDtypes(t *testing.T) {
	for _, typ := range []ops.DataType{ops.Float16, ops.BFloat16, ops.String, ops.Complex64, ops.Uint16, ops.Uint32, ops.Uint64, ops.Int4} {
		v, err := asFloat64(typ, make([]byte, 16))
		if err == nil || !strings.Contains(err.Error(), typ.String()) {
			t.Errorf("%s: %v, %v; want an error naming the dtype", typ, v, err)
		}
	}
	if v, err := asFloat64(ops.Int16, []byte{1, 0, 0xff, 0xff}); err != nil || len(v) != 2 || v[0] != 1 || v[1] != -1 {
		t.Errorf("int16: %v, %v", v, err)
	}
	if _, err := asFloat64(ops.Int32, make([]byte, 6)); err == nil {
		t.Error("6 bytes of int32 accepted")
	}
}
