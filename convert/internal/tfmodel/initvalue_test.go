package tfmodel

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
)

// TestInitialValues: a GraphDef with TF1 variables and no checkpoint
// (mediapipe's tf_graph_def) reads each variable's constant initial
// value, with a note; a computed initialiser (random_uniform) is refused,
// saying what to do.
func TestInitialValues(t *testing.T) {
	const graph = `
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "Const" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 3 float_val: 4 } } } }
node { name: "a" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "a/Assign" op: "Assign" input: "a" input: "Const" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "a/read" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } } }
node { name: "r" op: "RandomUniform" input: "shape" attr { key: "T" value { type: DT_INT32 } } attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "b/Assign" op: "Assign" input: "b" input: "r" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "ya" op: "Mul" input: "x" input: "a/read" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "yb" op: "Mul" input: "x" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "init" op: "NoOp" input: "^a/Assign" input: "^b/Assign" }
`
	p := filepath.Join(t.TempDir(), "vars.pbtxt")
	if err := os.WriteFile(p, []byte(graph), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.Entry(EntryOptions{OutputArrays: []string{"ya"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Notes) != 1 || e.Notes[0] != `variable "a" has no checkpoint value: it takes its initial value, the constant "Const" its initialiser assigns` {
		t.Errorf("notes %q", e.Notes)
	}
	found := false
	for _, n := range e.Func.Nodes {
		for _, in := range n.Inputs {
			if in != nil && in.Const != nil && fmt.Sprint(in.Const.Float32s()) == "[3 4]" {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no node reads the constant [3 4]")
	}
	_, err = m.Entry(EntryOptions{OutputArrays: []string{"yb"}})
	if err == nil || !strings.Contains(err.Error(), `node "b" (op VariableV2): the model has no checkpoint value for this variable, and its initial value "r" is computed (op RandomUniform), not a constant`) {
		t.Errorf("random initialiser: %v", err)
	}
}

// TestSaverlessKeys: a model with a checkpoint but no saver in its graph
// (a TF1 Hub module) finds each variable under its own name, the key
// tf.train.Saver writes by default.
func TestSaverlessKeys(t *testing.T) {
	const graph = `
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "a" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } attr { key: "shared_name" value { s: "a" } } }
node { name: "read" op: "ReadVariableOp" input: "a" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Mul" input: "x" input: "read" attr { key: "T" value { type: DT_FLOAT } } }
`
	dir := t.TempDir()
	p := filepath.Join(dir, "g.pbtxt")
	if err := os.WriteFile(p, []byte(graph), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bundle, err = OpenBundle(writeBundle(t, dir, map[string]*ir.Tensor{"a": ir.FromFloat32s(ir.Shape{2}, []float32{5, 6})})); err != nil {
		t.Fatal(err)
	}
	e, err := m.Entry(EntryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got *ir.Variable
	for _, n := range e.Func.Nodes {
		for _, o := range n.Outputs {
			if o.Variable != nil {
				got = o.Variable
			}
		}
	}
	if got == nil || got.Key != "a" || fmt.Sprint(got.Value.Float32s()) != "[5 6]" {
		t.Fatalf("variable %+v, want key a holding [5 6]", got)
	}
}
