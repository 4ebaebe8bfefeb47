package corpus

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/npy"
)

// TestTFReference checks the TF corpus against independent references:
// each row of tfref.tsv names a model of tf.tsv and a .tflite that
// TensorFlow's own converter wrote for the same model (kept in the
// model's source repository), extracted under the row's file into
// $TFLRUN_TF_REFS, or when that is unset into $TFLRUN_TF_CORPUS beside the
// models. The model is converted with default options, the
// reference's declared inputs are drawn at random (seeded), fed to both
// (matched by name where the names agree, else by position), and every
// output compared: floats within 1e-5, or 1e-5 relative where the
// reference's value is above 4 in magnitude; integers exactly. The
// reference runs in TensorFlow Lite's builtin kernels when TFLITE_REF is
// set, else in tflrun's interpreter (the detail says which).
//
// Outcomes use the .tflite names: refused (the conversion failed), fails
// (the converted model does not run), runs (the reference did not run),
// differs, match.
func TestTFReference(t *testing.T) {
	dir := os.Getenv("TFLRUN_TF_CORPUS")
	if dir == "" {
		t.Skip("TFLRUN_TF_CORPUS is not set: point it at a folder holding tf.tsv's models and tfref.tsv's references (see internal/corpus/README.md)")
	}
	refDir := os.Getenv("TFLRUN_TF_REFS")
	if refDir == "" {
		refDir = dir
	}
	m, err := ReadManifest("tfref.tsv")
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := optest.Ref()
	update := os.Getenv(updateEnv) == "1"
	counts := map[string]int{}
	for r := range m.Rows {
		model, file := m.Get(r, "model"), m.Get(r, "file")
		t.Run(strings.TrimSuffix(model, "/"), func(t *testing.T) {
			mp, rp := filepath.Join(dir, model), filepath.Join(refDir, file)
			for _, p := range []string{mp, rp} {
				if _, err := os.Stat(p); err != nil {
					t.Skipf("%s is not in %s", filepath.Base(p), filepath.Dir(p))
				}
			}
			if sum, err := digest(rp); err != nil {
				t.Fatal(err)
			} else if want := m.Get(r, "sha256"); sum != want {
				t.Fatalf("%s: sha256 %s, tfref.tsv has %s (another file?)", file, sum, want)
			}
			want, err := ParseOutcome(m.Get(r, "expect"), false)
			if err != nil {
				t.Fatalf("tfref.tsv: %v", err)
			}
			got, detail := checkReference(mp, rp, ref)
			counts[got.Name(false)]++
			t.Logf("OUTCOME\t%s\t%s\t%s", model, got.Name(false), detail)
			switch {
			case update:
				m.Set(r, "expect", got.Name(false))
			case got < want:
				t.Errorf("%s: %s, recorded %s: %s", model, got.Name(false), want.Name(false), detail)
			case got > want:
				t.Logf("%s: %s, better than the recorded %s (%s=1 records it)", model, got.Name(false), want.Name(false), updateEnv)
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

// checkReference converts the TensorFlow model at model, runs it and the
// reference .tflite refModel on the same seeded inputs and compares.
func checkReference(model, refModel, ref string) (Outcome, string) {
	res, err := convert.Convert(model, convert.Options{})
	if err != nil {
		return Refused, firstLine(err)
	}
	out := filepath.Join(os.TempDir(), fmt.Sprintf("tflrun-tfref-%d.tflite", os.Getpid()))
	if err := os.WriteFile(out, res.Model, 0o644); err != nil {
		return Refused, err.Error()
	}
	defer os.Remove(out)
	refIns, err := optest.RandomInputs(refModel, 1, nil, nil)
	if err != nil {
		return Runs, "reference inputs: " + firstLine(err)
	}
	ins, err := matchInputs(out, refModel, refIns)
	if err != nil {
		return Fails, err.Error()
	}
	got, err := optest.Run(&optest.Case{Model: out, Inputs: ins}, nil)
	if err != nil {
		return Fails, firstLine(err)
	}
	var want []*npy.Array
	by := "TensorFlow Lite"
	if ref != "" {
		want, err = optest.Reference(ref, refModel, refIns)
	} else {
		by = "tflrun (TFLITE_REF unset)"
		want, err = optest.Run(&optest.Case{Model: refModel, Inputs: refIns}, nil)
	}
	if err != nil {
		return Runs, "reference in " + by + ": " + firstLine(err)
	}
	if len(got) != len(want) {
		return Differs, fmt.Sprintf("%d outputs, the reference %d", len(got), len(want))
	}
	worst := 0.0
	for j := range got {
		d, err := referenceDiff(got[j], want[j])
		if err != "" {
			return Differs, fmt.Sprintf("output %d: %s (reference run by %s)", j, err, by)
		}
		worst = math.Max(worst, d)
	}
	return Match, fmt.Sprintf("%d outputs, max |diff| %.3g, reference run by %s", len(got), worst, by)
}

// matchInputs orders the reference's inputs refIns as the converted
// model at out wants them: by tensor name (without a ":0" suffix or a
// "serving_default_" prefix) when every name pairs up, else by position.
// An input holding as many elements as the converted model's declared
// shape takes that shape (TensorFlow's converter writes [1, 1] where a
// SavedModel declares [1], say); other shapes are left to resize.
func matchInputs(out, refModel string, refIns []*npy.Array) ([]*npy.Array, error) {
	var shapes [][]int
	names := func(path string) ([]string, error) {
		m, err := interpreter.Load(path)
		if err != nil {
			return nil, err
		}
		defer m.Close()
		it, err := interpreter.New(m, nil)
		if err != nil {
			return nil, err
		}
		defer it.Close()
		var n []string
		for i := range it.InputCount() {
			s := strings.TrimPrefix(it.Input(i).Name, "serving_default_")
			s, _, _ = strings.Cut(s, ":")
			n = append(n, s)
			if path == out {
				shapes = append(shapes, it.Input(i).Shape)
			}
		}
		return n, nil
	}
	ours, err := names(out)
	if err != nil {
		return nil, err
	}
	theirs, err := names(refModel)
	if err != nil {
		return nil, fmt.Errorf("reference: %v", err)
	}
	if len(ours) != len(theirs) {
		return nil, fmt.Errorf("the converted model has %d inputs (%s), the reference %d (%s)", len(ours), strings.Join(ours, ", "), len(theirs), strings.Join(theirs, ", "))
	}
	pos := map[string]int{}
	for i, n := range theirs {
		pos[n] = i
	}
	ins := make([]*npy.Array, len(ours))
	for i, n := range ours {
		j, ok := pos[n]
		if !ok {
			ins = append(ins[:0], refIns...)
			break
		}
		ins[i] = refIns[j]
	}
	for i, a := range ins {
		if count(a.Shape) == count(shapes[i]) {
			b := *a
			b.Shape = shapes[i]
			ins[i] = &b
		}
	}
	return ins, nil
}

// count is the number of elements of a shape.
func count(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// referenceDiff is the largest |got - want| of two outputs, or why they
// are not within the tolerance (1e-5, relative above magnitude 4;
// integers exact).
func referenceDiff(got, want *npy.Array) (float64, string) {
	if got.Type != want.Type {
		return 0, fmt.Sprintf("type %v, the reference %v", got.Type, want.Type)
	}
	if len(got.Data) != len(want.Data) {
		return 0, fmt.Sprintf("shape %v, the reference %v", got.Shape, want.Shape)
	}
	g, w := float32s(got), float32s(want)
	if g == nil {
		for i := range got.Data {
			if got.Data[i] != want.Data[i] {
				return 0, fmt.Sprintf("byte %d is %d, the reference %d", i, got.Data[i], want.Data[i])
			}
		}
		return 0, ""
	}
	worst := 0.0
	for i := range g {
		if math.IsNaN(float64(g[i])) && math.IsNaN(float64(w[i])) || g[i] == w[i] {
			continue
		}
		d := math.Abs(float64(g[i]) - float64(w[i]))
		tol := 1e-5
		if a := math.Abs(float64(w[i])); a > 4 {
			tol = 1e-5 * a
		}
		if !(d <= tol) {
			return d, fmt.Sprintf("element %d is %v, the reference %v (diff %.3g > %.3g)", i, g[i], w[i], d, tol)
		}
		worst = math.Max(worst, d)
	}
	return worst, ""
}
