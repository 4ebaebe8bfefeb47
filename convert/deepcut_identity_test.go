package convert

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfmodel"
)

// TestDeepCutAtBypassedIdentity cuts a Keras 2 SavedModel with an
// Embedding at ".../embedding_lookup/Identity", the name TensorFlow
// prints for the layer's output: simplification of the function body
// bypasses that Identity before inlining, and the cut follows it to the
// ResourceGather it passes on (same model as cutting at
// ".../embedding_lookup"). It reads legobridge_gru_embed_tf28 from the
// TF corpus in $TFLRUN_TF_CORPUS.
func TestDeepCutAtBypassedIdentity(t *testing.T) {
	dir := os.Getenv("TFLRUN_TF_CORPUS")
	if dir == "" {
		t.Skip("TFLRUN_TF_CORPUS not set (the TF corpus directory)")
	}
	path := filepath.Join(dir, "legobridge_gru_embed_tf28")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s: %v", path, err)
	}
	conv := func(out string) string {
		t.Helper()
		m, err := tfmodel.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ConvertModel(m, Options{OutputArrays: []string{out}})
		if err != nil {
			t.Fatalf("cut at %s: %v", out, err)
		}
		return opList(res)
	}
	want := conv("sequential_1/embedding/embedding_lookup")
	for _, name := range []string{"sequential_1/embedding/embedding_lookup/Identity", "embedding/embedding_lookup/Identity"} {
		if got := conv(name); got != want {
			t.Errorf("cut at %s: operators %s, want %s (as at the lookup)", name, got, want)
		}
	}
}

// TestDeepCutAtSignatureNames cuts ../shared's iteam1 LSTM SavedModel
// (signature serving_default: input_6 → dense_17) with the names its
// signature shows: the output key alone, input and output keys, and the
// input key with a tensor inside the model. Each gives the model that the
// main graph's tensor names (or the plain conversion) give.
func TestDeepCutAtSignatureNames(t *testing.T) {
	path := sharedSavedModels + "iteam1_lstm/lstm_model"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s: %v", path, err)
	}
	conv := func(opts Options) (string, *Result) {
		t.Helper()
		m, err := tfmodel.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ConvertModel(m, opts)
		if err != nil {
			t.Fatalf("cut %q → %q: %v", opts.InputArrays, opts.OutputArrays, err)
		}
		return opList(res), res
	}
	whole, _ := conv(Options{})
	inner, _ := conv(Options{OutputArrays: []string{"sequential_5/dense_15/Relu"}})
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{OutputArrays: []string{"dense_17"}}, whole},
		{Options{InputArrays: []string{"input_6"}, OutputArrays: []string{"dense_17"}}, whole},
		{Options{InputArrays: []string{"input_6"}, OutputArrays: []string{"sequential_5/dense_15/Relu"}}, inner},
	} {
		got, res := conv(c.opts)
		if got != c.want {
			t.Errorf("cut %q → %q: operators %s, want %s", c.opts.InputArrays, c.opts.OutputArrays, got, c.want)
		}
		if len(c.opts.InputArrays) > 0 && len(res.Entry.InputNames) != 1 {
			t.Errorf("cut %q → %q: inputs %q", c.opts.InputArrays, c.opts.OutputArrays, res.Entry.InputNames)
		}
	}
	if inner == whole {
		t.Fatalf("the inner cut gives the whole model: %s", whole)
	}
}
