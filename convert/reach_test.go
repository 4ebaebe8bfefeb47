package convert

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// TestUnreachedFunctionsAreNotConverted: the functions inference never
// calls (the saver's __inference__traced_save_* and
// __inference__traced_restore_*, here holding an op nobody knows, as a
// StringLookup's table import would be to tflrun) do not stop the
// conversion of the serving signature, which gives the same model as
// without the edit.
func TestUnreachedFunctionsAreNotConverted(t *testing.T) {
	want, err := Convert(kwsModel(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	edited := 0
	dir := editedKWS(t, func(sm *tfpb.SavedModel) {
		for _, f := range sm.MetaGraphs[0].GraphDef.Library.Function {
			name := f.Signature.Name
			if !strings.Contains(name, "traced_restore") && !strings.Contains(name, "traced_save") {
				continue
			}
			for _, n := range f.NodeDef {
				if n.Op == "Identity" || n.Op == "NoOp" {
					n.Op = "LookupTableImportV9000"
					edited++
				}
			}
		}
	})
	if edited == 0 {
		t.Fatal("the kws SavedModel has no saver functions to edit")
	}
	got, err := Convert(dir, Options{})
	if err != nil {
		t.Fatalf("an unknown op in the saver's functions stops the conversion: %v", err)
	}
	if len(got.Model) != len(want.Model) {
		t.Errorf("model of %d bytes, want %d as without the edit", len(got.Model), len(want.Model))
	}
}
