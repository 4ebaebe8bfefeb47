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
