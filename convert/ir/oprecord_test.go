package ir

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// The importer reads op outputs from the registered records. Package
// tfops registers tflrun's, and this package's tests cannot import it
// (tfops imports ir), so they register the few ops their graphs use.
func init() {
	for _, r := range []OpRecord{
		{Name: "Placeholder", Outputs: "output:dtype"}, {Name: "Const", Outputs: "output:dtype"},
		{Name: "Relu", Outputs: "activations:T", MinInputs: 1}, {Name: "AddV2", Outputs: "z:T", MinInputs: 2},
		{Name: "Identity", Outputs: "output:T"}, {Name: "PartitionedCall", Outputs: "output:[Tout]"},
	} {
		RegisterOp(r)
	}
}

// TestRegisterOp: a record is found by name, names are listed sorted, and
// registering an op twice (or a record without a name) panics naming it.
func TestRegisterOp(t *testing.T) {
	if r, ok := LookupOp("Relu"); !ok || r.Outputs != "activations:T" || r.MinInputs != 1 {
		t.Errorf("LookupOp(Relu) = %+v, %v", r, ok)
	}
	if _, ok := LookupOp("Frobnicate"); ok {
		t.Error("LookupOp found an op nobody registered")
	}
	names := OpNames()
	if strings.Join(names, " ") != "AddV2 Const Identity PartitionedCall Placeholder Relu" {
		t.Errorf("OpNames = %v", names)
	}
	for _, c := range []struct {
		r    OpRecord
		want string
	}{
		{OpRecord{Name: "Relu", Outputs: "y:T"}, "op Relu is registered twice"},
		{OpRecord{Outputs: "y:T"}, "a record without a name"},
	} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(p.(string), c.want) {
					t.Errorf("RegisterOp(%+v) panicked with %v, want %q", c.r, p, c.want)
				}
			}()
			RegisterOp(c.r)
		}()
	}
	if r, _ := LookupOp("Relu"); r.Outputs != "activations:T" {
		t.Error("a refused registration replaced the record")
	}
}

// TestParseOutputs: every TYPE form of an Outputs spec, and the errors of
// malformed ones.
func TestParseOutputs(t *testing.T) {
	od, err := ParseOutputs("X", "a:=int32 b:T c:out_type=int64 d:T*num e:[Tout]")
	if err != nil {
		t.Fatal(err)
	}
	args := od.OutputArg
	if len(args) != 5 || args[0].Type != tfpb.DataType_DT_INT32 || args[1].TypeAttr != "T" || args[2].TypeAttr != "out_type" ||
		args[3].TypeAttr != "T" || args[3].NumberAttr != "num" || args[4].TypeListAttr != "Tout" {
		t.Errorf("parsed %v", args)
	}
	if len(od.Attr) != 1 || od.Attr[0].Name != "out_type" || od.Attr[0].DefaultValue.GetType() != tfpb.DataType_DT_INT64 {
		t.Errorf("attribute defaults %v", od.Attr)
	}
	if od, err := ParseOutputs("NoOp", ""); err != nil || len(od.OutputArg) != 0 {
		t.Errorf("empty spec: %v, %v", od, err)
	}
	for spec, want := range map[string]string{
		"a:=int33":   `op X: output "a:=int33": unknown dtype "int33"`,
		"a":          `output "a": is not name:TYPE`,
		"a:[T":       `output "a:[T": is not [listattr]`,
		"a:T=float9": `unknown dtype "float9"`,
	} {
		if _, err := ParseOutputs("X", spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseOutputs(%q) = %v, want %q", spec, err, want)
		}
	}
}
