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

	"github.com/tflrun/tflrun/internal/npy"
	"github.com/tflrun/tflrun/ops"
)

// Golden cases hold inputs and the outputs native TensorFlow Lite computes
// for them (see ../shared/golden/README.md for the format). The cases the
// foundation needs are copied into ../testdata/golden so the repository
// stands alone; the rest are read from ../../shared/golden when present.

// goldenCase is a case.json.
type goldenCase struct {
	Model string  `json:"model"`
	Atol  float64 `json:"atol"`
	Rtol  float64 `json:"rtol"`
	Exact bool    `json:"exact"`
}

// resolveGoldenModel maps a case's model path ("shared/models/X/Y", relative
// to the folder holding shared/) to a file: the repository's testdata copy
// when the case lives in testdata, else the shared folder.
func resolveGoldenModel(caseDir, model string) string {
	// Generated cases carry their own model.tflite beside case.json.
	if local := filepath.Join(caseDir, filepath.Base(model)); strings.HasPrefix(model, "shared/golden/") {
		if _, err := os.Stat(local); err == nil {
			return local
		}
	}
	if rest, ok := strings.CutPrefix(model, "shared/models/"); ok {
		local := filepath.Join("..", "testdata", filepath.FromSlash(rest))
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
	it, err := New(m, nil)
	if err != nil {
		return 0, err
	}
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
		g, w := asFloat64(got.Type, got.Data), asFloat64(want.Type, want.Data)
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

// asFloat64 widens raw tensor bytes of a numeric type to float64.
func asFloat64(typ ops.DataType, data []byte) []float64 {
	t := ops.Tensor{Type: typ, Data: data}
	n := len(data) / typ.Size()
	out := make([]float64, n)
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
	return out
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
// trained_lstm_int8 (exact) on the ten sample digits.
func TestGoldenMNISTLSTM(t *testing.T) {
	testGoldenFolder(t, filepath.Join("..", "testdata", "golden", "mnist_lstm"))
}

// TestGoldenDTLN: DTLN noise suppression (int8, two LSTM(128)), exactly
// TFLite's builtin-kernel output.
func TestGoldenDTLN(t *testing.T) {
	testGoldenFolder(t, filepath.Join("..", "testdata", "golden", "dtln"))
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

// goldenSharedFolders are the folders of ../shared/golden (read in place,
// not copied: they hold larger real models) whose operators tflrun runs.
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
}

// TestGoldenShared runs the real-model cases of ../shared/golden that are
// too large to copy; it skips, naming the path, where ../shared is absent.
func TestGoldenShared(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "golden")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("%s is absent: %v", root, err)
	}
	for _, f := range goldenSharedFolders {
		t.Run(f, func(t *testing.T) { testGoldenFolder(t, filepath.Join(root, f)) })
	}
}
