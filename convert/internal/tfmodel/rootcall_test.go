package tfmodel

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// rootCallModel is a SavedModel of a tf.Module whose signatures are a
// training step ("train") and a getter ("w"), and whose __call__ method
// doubles its input x of shape [?, 3].
const rootCallModel = `
meta_graphs {
  meta_info_def { tags: "serve" }
  graph_def {
    node { name: "train_x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "train_out" op: "Identity" input: "train_x" attr { key: "T" value { type: DT_FLOAT } } }
    library { function {
      signature { name: "__inference___call___7" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "identity" type: DT_FLOAT } }
      node_def { name: "two" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
      node_def { name: "mul" op: "Mul" input: "x" input: "two:output:0" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "identity" value: "mul:z:0" }
    } }
  }
  signature_def { key: "train" value {
    inputs { key: "x" value { name: "train_x:0" dtype: DT_FLOAT } }
    outputs { key: "y" value { name: "train_out:0" dtype: DT_FLOAT } } } }
  signature_def { key: "w" value {
    outputs { key: "w" value { name: "train_out:0" dtype: DT_FLOAT } } } }
  object_graph_def {
    nodes { children { node_id: 1 local_name: "__call__" } user_object { identifier: "_generic_user_object" } }
    nodes { function { concrete_functions: "__inference___call___7" } }
    concrete_functions { key: "__inference___call___7" value {
      canonicalized_input_signature { tuple_value {
        values { tuple_value { values { tensor_spec_value { name: "x" shape { dim { size: -1 } dim { size: 3 } } dtype: DT_FLOAT } } } }
        values { dict_value {} } } }
    } }
  }
}
`

// TestRootCallEntry: without serving_default, the entry is the root
// object's __call__ method (its one concrete function), inputs named and
// shaped by its input signature, with a note; an explicit --signature
// still picks a signature.
func TestRootCallEntry(t *testing.T) {
	sm := &tfpb.SavedModel{}
	if err := prototext.Unmarshal([]byte(rootCallModel), sm); err != nil {
		t.Fatal(err)
	}
	data, err := proto.Marshal(sm)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseSavedModel("module", data)
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.Entry(EntryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.InputNames) != 1 || e.InputNames[0] != "x" || len(e.OutputNames) != 1 || e.OutputNames[0] != "output_0" {
		t.Fatalf("inputs %v outputs %v, want [x] [output_0]", e.InputNames, e.OutputNames)
	}
	if got := e.Func.Params[0].Shape; !got.Equal(ir.Shape{-1, 3}) {
		t.Errorf("x has shape %v, want [? 3]", got)
	}
	calls := 0
	for _, n := range e.Func.Nodes {
		if n.Op == "StatefulPartitionedCall" {
			if f, _ := n.AttrFunc("f"); f == "__inference___call___7" {
				calls++
			}
		}
	}
	if calls != 1 {
		t.Errorf("%d calls of __inference___call___7 in the entry, want 1", calls)
	}
	if !strings.Contains(strings.Join(e.Notes, "\n"), "no serving_default signature: converted the root object's __call__ method") {
		t.Errorf("notes %q do not say so", e.Notes)
	}
	e, err = m.Entry(EntryOptions{Signature: "train"})
	if err != nil || e.InputNames[0] != "x" || e.OutputNames[0] != "y" {
		t.Fatalf("--signature train: %v", err)
	}
	if _, err := m.Entry(EntryOptions{Signature: "serving_default"}); err == nil || !strings.Contains(err.Error(), `no signature "serving_default" (signatures: train, w)`) {
		t.Errorf("an explicit serving_default: %v", err)
	}
}

// TestRootCallEntryTwice: two entries of one Model are the same (the
// __call__ is added to the main graph once).
func TestRootCallEntryTwice(t *testing.T) {
	sm := &tfpb.SavedModel{}
	if err := prototext.Unmarshal([]byte(rootCallModel), sm); err != nil {
		t.Fatal(err)
	}
	data, err := proto.Marshal(sm)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseSavedModel("module", data)
	if err != nil {
		t.Fatal(err)
	}
	e1, err := m.Entry(EntryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(m.Graph.GetNode())
	e2, err := m.Entry(EntryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Graph.GetNode()) != n || e1.Func.Params[0].Name != e2.Func.Params[0].Name {
		t.Errorf("second entry: %d graph nodes (was %d), input %q (was %q)", len(m.Graph.GetNode()), n, e2.Func.Params[0].Name, e1.Func.Params[0].Name)
	}
}
