package corpus

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/npy"
	"github.com/tflrun/tflrun/ops"
)

const updateEnv = "TFLRUN_CORPUS_UPDATE"

// TestTFLite runs every model of tflite.tsv found in $TFLRUN_TFLITE_CORPUS.
func TestTFLite(t *testing.T) {
	runCorpus(t, "tflite.tsv", "TFLRUN_TFLITE_CORPUS", false, checkTFLite)
}

// TestTF converts every model of tf.tsv found in $TFLRUN_TF_CORPUS.
func TestTF(t *testing.T) {
	runCorpus(t, "tf.tsv", "TFLRUN_TF_CORPUS", true, checkTF)
}

func runCorpus(t *testing.T, manifest, env string, tf bool, check func(path, ref string, row map[string]string) (Outcome, string)) {
	dir := os.Getenv(env)
	if dir == "" {
		t.Skipf("%s is not set: point it at a folder holding %s's models (see internal/corpus/README.md)", env, manifest)
	}
	m, err := ReadManifest(manifest)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := optest.Ref()
	update := os.Getenv(updateEnv) == "1"
	counts := map[string]int{}
	for r := range m.Rows {
		file := m.Get(r, "file")
		row := map[string]string{}
		for i, c := range m.Columns {
			row[c] = m.Rows[r][i]
		}
		t.Run(strings.TrimSuffix(file, "/"), func(t *testing.T) {
			p := filepath.Join(dir, file)
			if _, err := os.Stat(p); err != nil {
				t.Skipf("%s is not in %s", file, dir)
			}
			if sum, err := digest(p); err != nil {
				t.Fatal(err)
			} else if want := m.Get(r, "sha256"); sum != want {
				t.Fatalf("%s: sha256 %s, the manifest has %s (another file?)", file, sum, want)
			}
			want, err := ParseOutcome(m.Get(r, "expect"), tf)
			if err != nil {
				t.Fatalf("%s: %v", manifest, err)
			}
			refusionDetail = ""
			got, detail := check(p, ref, row)
			if refusionDetail != "" {
				detail = strings.TrimPrefix(detail+"; "+refusionDetail, "; ")
			}
			counts[got.Name(tf)]++
			// One line per model for run.sh's table.
			t.Logf("OUTCOME\t%s\t%s\t%s", file, got.Name(tf), detail)
			if !tf && ref == "" && want == Match {
				want = Runs
			}
			switch {
			case update:
				if !(ref == "" && got == Runs && m.Get(r, "expect") == "match") {
					m.Set(r, "expect", got.Name(tf))
				}
			case got < want:
				t.Errorf("%s: %s, recorded %s: %s", file, got.Name(tf), want.Name(tf), detail)
			case got > want:
				t.Logf("%s: %s, better than the recorded %s (%s=1 records it)", file, got.Name(tf), want.Name(tf), updateEnv)
			}
		})
	}
	t.Logf("outcomes: %v", counts)
	if update {
		if err := m.Write(); err != nil {
			t.Fatal(err)
		}
	}
}

// digest is a file's SHA-256; for a folder (a SavedModel), the SHA-256 of
// the concatenation, over its files sorted by relative path, of each path,
// a NUL byte and the file's own SHA-256.
func digest(p string) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		sum, err := fileSum(p)
		return hex.EncodeToString(sum), err
	}
	var files []string
	err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(p, q)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		sum, err := fileSum(filepath.Join(p, f))
		if err != nil {
			return "", err
		}
		h.Write([]byte(f + "\x00"))
		h.Write(sum)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func fileSum(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// checkTFLite runs a .tflite on seeded random inputs and, with TensorFlow
// Lite's runner, compares.
//
// A model whose recurrent layers are WHILE loops (operators column) is
// also re-fused (convert.ConvertTFLite): every loop fused or refused with
// a reason, and the re-fused model run on the same inputs agreeing with
// the unfused one (refuseTolerance); a disagreement makes the row
// Differs, and the re-fusion is in the detail.
func checkTFLite(path, ref string, row map[string]string) (Outcome, string) {
	if o, msg := prepare(path); o != Runs {
		return o, msg
	}
	ins, err := optest.RandomInputs(path, 1, nil, nil)
	if err != nil {
		return Fails, "inputs: " + err.Error()
	}
	c := &optest.Case{Model: path, Inputs: ins}
	got, err := optest.Run(c, nil)
	if err == nil && strings.Contains(row["operators"], "WHILE/") {
		o, detail := checkRefusion(path, row, ins, got)
		if o != Runs {
			return o, detail
		}
		refusionDetail = detail
	}
	if err != nil {
		// An Invoke that TensorFlow Lite refuses on the same inputs too (a
		// SCATTER_ND index out of range, say) agrees with it, but compares
		// no output: it stays a failure, the detail naming both reasons,
		// so that the count of matches means outputs compared.
		if ref != "" {
			if _, rerr := optest.Reference(ref, path, ins); rerr != nil {
				return Fails, "both refuse these inputs: " + firstLine(err) + "; TensorFlow Lite: " + firstLine(rerr)
			}
		}
		return Fails, firstLine(err)
	}
	if ref == "" {
		return Runs, ""
	}
	want, err := optest.Reference(ref, path, ins)
	if err != nil {
		return Runs, "TensorFlow Lite: " + firstLine(err)
	}
	return compare(c, got, want)
}

func compare(c *optest.Case, got, want []*npy.Array) (Outcome, string) {
	if len(got) != len(want) {
		return Differs, fmt.Sprintf("%d outputs, TensorFlow Lite %d", len(got), len(want))
	}
	for j := range got {
		if d := optest.Compare(c, j, got[j], want[j]); d != "" {
			return Differs, fmt.Sprintf("output %d: %s", j, d)
		}
	}
	return Match, ""
}

// refusionDetail is the re-fusion summary of the row checkTFLite just
// checked (runCorpus logs it).
var refusionDetail string

// refuseTolerance is the largest difference allowed between a re-fused
// model and its unfused self: 1e-5, or for a dynamic-range model 2e-3,
// because such a loop's outputs move by 1.4e-3 when its biases move by
// one ulp (convert's TestRefuseCorpusLoops measures it for each), and
// TensorFlow Lite's hybrid LSTM adds the bias in another order.
func refuseTolerance(row map[string]string) float64 {
	if strings.Contains(row["dtype_quantisation"], "dynamic-range") {
		return 2e-3
	}
	return 1e-5
}

// checkRefusion re-fuses the WHILE-loop model at path and runs it on ins,
// comparing with the unfused outputs got. It returns Runs and a summary
// ("re-fused N of M loops: ops after; max diff D"), or Differs or Fails
// with why.
func checkRefusion(path string, row map[string]string, ins, got []*npy.Array) (Outcome, string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Fails, err.Error()
	}
	res, err := convert.ConvertTFLite(data, convert.Options{})
	if err != nil {
		return Fails, "re-fusion: " + firstLine(err)
	}
	var why []string
	for _, e := range res.Report.Composites {
		if !e.Fused {
			if e.Reason == "" {
				return Fails, "re-fusion: loop " + e.Call + " not fused, with no reason"
			}
			why = append(why, e.Call+": "+strings.SplitN(e.Reason, "\n", 2)[0])
		}
	}
	summary := fmt.Sprintf("re-fused %d of %d loops", res.Report.Fused(), len(res.Report.Composites))
	if res.Report.Fused() == 0 {
		return Runs, summary + " (" + strings.Join(why, "; ") + ")"
	}
	tmp, err := os.CreateTemp("", "refused-*.tflite")
	if err != nil {
		return Fails, err.Error()
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(res.Model); err != nil {
		tmp.Close()
		return Fails, err.Error()
	}
	tmp.Close()
	fused, err := optest.Run(&optest.Case{Model: tmp.Name(), Inputs: ins}, nil)
	if err != nil {
		return Differs, summary + ", which does not run: " + firstLine(err)
	}
	if len(fused) != len(got) {
		return Differs, fmt.Sprintf("%s with %d outputs, unfused %d", summary, len(fused), len(got))
	}
	worst := 0.0
	for j := range got {
		a, b := float32s(got[j]), float32s(fused[j])
		if a == nil || b == nil || len(a) != len(b) {
			return Differs, fmt.Sprintf("%s: output %d not comparable (%v %v, %v %v)", summary, j, got[j].Type, got[j].Shape, fused[j].Type, fused[j].Shape)
		}
		for k := range a {
			worst = math.Max(worst, math.Abs(float64(a[k])-float64(b[k])))
		}
	}
	summary += fmt.Sprintf(", max |unfused - re-fused| %.3g", worst)
	if tol := refuseTolerance(row); worst > tol {
		return Differs, fmt.Sprintf("%s, above %g", summary, tol)
	}
	return Runs, summary
}

// float32s are a float32 array's values (nil for another type).
func float32s(a *npy.Array) []float32 {
	if a.Type != ops.Float32 {
		return nil
	}
	v := make([]float32, len(a.Data)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:]))
	}
	return v
}

// prepare classifies a model that does not get past AllocateTensors.
func prepare(path string) (Outcome, string) {
	m, err := interpreter.Load(path)
	if err != nil {
		return Refused, firstLine(err)
	}
	defer m.Close()
	it, err := interpreter.New(m, nil)
	if err != nil {
		return Refused, firstLine(err)
	}
	if err := it.AllocateTensors(); err != nil {
		return Refused, firstLine(err)
	}
	return Runs, ""
}

// recurrentLayers are the Keras layer names whose conversion must give a
// fused recurrent operator.
var recurrentLayers = []string{"LSTM", "GRU", "SimpleRNN"}

// checkTF converts a SavedModel or GraphDef with default options, then runs
// the result and looks at its operators. A model whose fusion report has a
// loop not fused (a recurrent layer left unrolled, such as a ConvLSTM2D,
// which has no fused TFLite operator) runs but is not Fused.
func checkTF(path, _ string, row map[string]string) (Outcome, string) {
	res, err := convert.Convert(path, convert.Options{})
	if err != nil {
		return Refused, firstLine(err)
	}
	out := filepath.Join(os.TempDir(), fmt.Sprintf("tflrun-corpus-%d.tflite", os.Getpid()))
	if err := os.WriteFile(out, res.Model, 0o644); err != nil {
		return Refused, err.Error()
	}
	defer os.Remove(out)
	if o, msg := prepare(out); o != Runs {
		return Converts, msg
	}
	ins, err := optest.RandomInputs(out, 1, wavRate(res.Entry.InputNames, res.Entry.Notes), nil)
	if err != nil {
		return Converts, "inputs: " + err.Error()
	}
	if _, err := optest.Run(&optest.Case{Model: out, Inputs: ins}, nil); err != nil {
		return Converts, firstLine(err)
	}
	m, err := interpreter.LoadBytes(res.Model)
	if err != nil {
		return Converts, firstLine(err)
	}
	hist := map[string]int{}
	for _, sg := range m.Subgraphs {
		for _, op := range sg.Operators {
			hist[op.Name]++
		}
	}
	fusedOps := hist["UNIDIRECTIONAL_SEQUENCE_LSTM"] + hist["BIDIRECTIONAL_SEQUENCE_LSTM"] + hist["LSTM"] +
		hist["UNIDIRECTIONAL_SEQUENCE_RNN"] + hist["BIDIRECTIONAL_SEQUENCE_RNN"] + hist["RNN"] + hist["UNIDIRECTIONAL_SEQUENCE_GRU"]
	summary := fmt.Sprintf("%d operators, %d fused recurrent", len(m.Subgraphs[0].Operators), fusedOps)
	if hist["WHILE"] > 0 {
		return Runs, summary + ", WHILE left"
	}
	for _, e := range res.Report.Composites {
		if !e.Fused && e.Attr == "loop" && len(e.FusedAfterUnrolling) == 0 {
			return Runs, summary + ": loop " + e.Call + " not fused: " + e.Reason
		}
	}
	if strings.Contains(row["features"], " Enter,") && fusedOps == 0 {
		return Runs, summary + ": the TF1 loop was unrolled, not fused"
	}
	for _, l := range kerasLayers(row["features"]) {
		for _, r := range recurrentLayers {
			if l == r && fusedOps == 0 {
				return Runs, summary + ": the model has " + l + " layers"
			}
		}
	}
	return Fused, summary
}

// wavRate draws inputs as optest.Uniform does, except that a DecodeWav
// sample-rate input (the converter makes one when it cuts a WAV string
// input away and says so in Result.Entry.Notes) gets 16000 Hz, the rate of the
// speech models that have one: Mfcc refuses a rate that is not positive.
func wavRate(inputNames, notes []string) optest.InputGen {
	rate := map[int]bool{}
	for i, name := range inputNames {
		for _, note := range notes {
			if strings.Contains(note, fmt.Sprintf("%q (sample rate in Hz", name)) {
				rate[i] = true
			}
		}
	}
	return func(r *rand.Rand, input int, typ ops.DataType) float64 {
		if rate[input] {
			return 16000
		}
		return optest.Uniform(r, input, typ)
	}
}

// kerasLayers reads the layer classes from a features value such as
// "TF 2.15.0; Keras 2.15.0 (keras_metadata.pb); layers: Dense, LSTM; …".
func kerasLayers(features string) []string {
	_, rest, ok := strings.Cut(features, "layers: ")
	if !ok {
		return nil
	}
	list, _, _ := strings.Cut(rest, ";")
	return strings.Split(list, ", ")
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
