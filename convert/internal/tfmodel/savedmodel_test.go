package tfmodel

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/ir"
)

// kwsDir is MLPerf Tiny's DS-CNN keyword spotter, a TensorFlow 2.3
// SavedModel, in the shared data.
var kwsDir = filepath.Join("..", "..", "..", "..", "shared", "savedmodels", "kws_dscnn", "kws_ref_model")

// sharedModel returns the path of a SavedModel under ../shared/savedmodels
// (relative to the repository root), skipping the test when it is absent.
func sharedModel(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "..", "shared", "savedmodels", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not present: %v", p, err)
	}
	return p
}

// kwsModel returns kwsDir, skipping the test when it is absent.
func kwsModel(t testing.TB) string {
	t.Helper()
	return sharedModel(t, "kws_dscnn/kws_ref_model")
}

// TestSavedModels reads every shared SavedModel and checks what it lists:
// TensorFlow version, signature, entry inputs and outputs, the number of
// functions and of composite (api_implements) functions with their
// distinct annotation values, and the variables the object graph maps.
func TestSavedModels(t *testing.T) {
	cases := []struct {
		path, tf     string
		fns          int
		in, out      string
		prefix       string
		composites   int
		distinct     int
		vars, objVar int
	}{
		{"kws_dscnn/kws_ref_model", "2.3.2", 197, "input_1=serving_default_input_1:0 float32[? 49 10 1]", "dense=StatefulPartitionedCall:0 [? 12]", "", 0, 0, 141, 56},
		{"iteam1_lstm/lstm_model", "2.6.0", 101, "input_6=serving_default_input_6:0 float32[? 5 1]", "dense_17=StatefulPartitionedCall:0 [? 1]", "lstm_", 44, 11, 36, 9},
		{"iteam1_gru/gru_model", "2.6.0", 101, "input_10=serving_default_input_10:0 float32[? 5 1]", "dense_29=StatefulPartitionedCall:0 [? 1]", "gru_", 44, 11, 36, 9},
		{"ditto_v1_lstm/HeyDittoNet-v1", "2.10.0", 249, "time_distributed_input=serving_default_time_distributed_input:0 float32[? 4 30 129 1]", "activation=StatefulPartitionedCall:0 [? 1]", "lstm_", 88, 22, 90, 30},
		{"ditto_v2_bilstm/HeyDittoNet-v2", "2.13.0", 284, "input_1=serving_default_input_1:0 float32[? 99 32 1]", "dense_2=StatefulPartitionedCall:0 [? 1]", "lstm_", 120, 30, 87, 30},
		{"dtln/dtln_saved_model", "2.2.0", 423, "input_1=serving_default_input_1:0 float32[1 512]", "conv1d_1=StatefulPartitionedCall:0 [1 1 512]", "lstm_", 208, 52, 28, 28},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			m, err := LoadSavedModel(sharedModel(t, c.path))
			if err != nil {
				t.Fatal(err)
			}
			if v := m.MetaGraph.GetMetaInfoDef().GetTensorflowVersion(); v != c.tf {
				t.Errorf("TensorFlow version %q, want %q", v, c.tf)
			}
			if s := m.Signatures(); len(s) != 1 || s[0] != "serving_default" {
				t.Errorf("signatures %v", s)
			}
			if n := len(m.Functions()); n != c.fns {
				t.Errorf("%d functions, want %d", n, c.fns)
			}
			e, err := m.Entry(EntryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p := e.Func.Params[0]
			if got := e.InputNames[0] + "=" + p.Name + " " + p.DType.String() + p.Shape.String(); got != c.in || len(e.Func.Params) != 1 {
				t.Errorf("input %q, want %q", got, c.in)
			}
			r := e.Func.Results[0]
			if got := e.OutputNames[0] + "=" + e.Func.ResultNames[0] + " " + r.Shape.String(); got != c.out || len(e.Func.Results) != 1 {
				t.Errorf("output %q, want %q", got, c.out)
			}
			comps := m.Composites()
			distinct := map[string]bool{}
			for _, f := range comps {
				if f.ImplementsAttr != "api_implements" || !strings.HasPrefix(f.Implements, c.prefix) {
					t.Errorf("composite %s: %s=%q, want api_implements=%s...", f.Name, f.ImplementsAttr, f.Implements, c.prefix)
				}
				distinct[f.Implements] = true
			}
			if len(comps) != c.composites || len(distinct) != c.distinct {
				t.Errorf("%d composite functions with %d distinct annotations, want %d and %d", len(comps), len(distinct), c.composites, c.distinct)
			}
			vars, err := m.Variables()
			if err != nil {
				t.Fatal(err)
			}
			if len(vars) != c.vars {
				t.Errorf("%d variables, want %d", len(vars), c.vars)
			}
			for _, v := range vars {
				if v.Key == "" || v.DType == ir.Invalid {
					t.Errorf("variable %s has no checkpoint entry", v.Node)
				}
			}
			// The two records agree wherever both map a variable, and the
			// object graph covers every variable the signature captures.
			obj, err := m.ObjectGraphKeys()
			if err != nil {
				t.Fatal(err)
			}
			rest, err := m.RestoreGraphKeys()
			if err != nil {
				t.Fatal(err)
			}
			if len(obj) != c.objVar {
				t.Errorf("object graph maps %d variables, want %d", len(obj), c.objVar)
			}
			for k, v := range obj {
				if rest[k] != v {
					t.Errorf("variable %s: object graph says %q, restore graph %q", k, v, rest[k])
				}
			}
			// Every variable the entry function reads is resolved.
			for _, n := range e.Func.Nodes {
				if n.Op == "VarHandleOp" && n.Outputs[0].Variable == nil {
					t.Errorf("entry variable %s unresolved", n.Name)
				}
			}
		})
	}
}

func TestKWSVariables(t *testing.T) {
	m, err := LoadSavedModel(kwsModel(t))
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.Entry(EntryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kernel *ir.Variable
	for _, n := range e.Func.Nodes {
		if n.Name == "conv2d/kernel" {
			kernel = n.Outputs[0].Variable
		}
	}
	if kernel == nil {
		t.Fatal("conv2d/kernel not in the entry function")
	}
	if kernel.Key != "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE" || !kernel.Value.Shape.Equal(ir.Shape{10, 4, 1, 64}) {
		t.Errorf("conv2d/kernel: key %q shape %s", kernel.Key, kernel.Value.Shape)
	}
	// First values of the kernel as TensorFlow stores them.
	if v := kernel.Value.Float32s(); v[0] != 0.03190818 || v[1] != -0.06820823 {
		t.Errorf("conv2d/kernel starts %v", v[:2])
	}
	if _, err := m.Entry(EntryOptions{Signature: "serve_me"}); err == nil || !strings.Contains(err.Error(), `no signature "serve_me" (signatures: serving_default)`) {
		t.Errorf("unknown signature: %v", err)
	}
	shapes, _ := ParseInputShapes("2,49,10,1")
	e, err = m.Entry(EntryOptions{InputShapes: shapes})
	if err != nil || !e.Func.Params[0].Shape.Equal(ir.Shape{2, 49, 10, 1}) {
		t.Errorf("input shapes: %v %v", err, e.Func.Params[0].Shape)
	}
	if _, err := m.Entry(EntryOptions{InputShapes: []ir.Shape{{1}, {2}}}); err == nil || !strings.Contains(err.Error(), "2 input shapes given for 1 inputs (input_1): InputShapes (--input_shapes on the command line) needs one shape per input") {
		t.Errorf("shape count: %v", err)
	}
	// Shapes contradicting the signature's [? 49 10 1] fail at the
	// entry, naming the input and both shapes; -1 keeps a declared size.
	for _, c := range []struct {
		given ir.Shape
		want  string
	}{
		{ir.Shape{1, 49, 10}, `input 0 "input_1": the given shape [1 49 10] (InputShapes; --input_shapes on the command line) has rank 3, but the input's declared shape [? 49 10 1] has rank 4`},
		{ir.Shape{1, 49, 10, 1, 1}, `has rank 5, but the input's declared shape [? 49 10 1] has rank 4`},
		{ir.Shape{1, 50, 10, 1}, `input 0 "input_1": the given shape [1 50 10 1] (InputShapes; --input_shapes on the command line) contradicts the input's declared shape [? 49 10 1]: dimension 1 is 49, not 50`},
	} {
		if _, err := m.Entry(EntryOptions{InputShapes: []ir.Shape{c.given}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("input shape %v: got %v, want %q", c.given, err, c.want)
		}
	}
	e, err = m.Entry(EntryOptions{InputShapes: []ir.Shape{{3, -1, 10, -1}}})
	if err != nil || !e.Func.Params[0].Shape.Equal(ir.Shape{3, 49, 10, 1}) {
		t.Errorf("partial input shape: %v %v", err, e.Func.Params[0].Shape)
	}
}

// copyModel copies the kws SavedModel into a temporary directory.
func copyModel(t *testing.T) string {
	t.Helper()
	kwsDir := kwsModel(t)
	dst := t.TempDir()
	err := filepath.Walk(kwsDir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(kwsDir, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		defer out.Close()
		_, err = io.Copy(out, in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestMalformedSavedModels(t *testing.T) {
	t.Run("truncated saved_model.pb", func(t *testing.T) {
		dir := copyModel(t)
		pb := filepath.Join(dir, "saved_model.pb")
		data, _ := os.ReadFile(pb)
		for _, cut := range []int{len(data) / 3, len(data) - 7, 1} {
			os.WriteFile(pb, data[:cut], 0o644)
			_, err := LoadSavedModel(dir)
			if err == nil || !strings.Contains(err.Error(), "saved_model.pb") {
				t.Errorf("cut at %d: %v", cut, err)
			}
		}
	})
	t.Run("missing variables shard", func(t *testing.T) {
		dir := copyModel(t)
		os.Remove(filepath.Join(dir, "variables", "variables.data-00000-of-00001"))
		_, err := LoadSavedModel(dir)
		if err == nil || !strings.Contains(err.Error(), "checkpoint data shard missing") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("index/data size mismatch", func(t *testing.T) {
		dir := copyModel(t)
		shard := filepath.Join(dir, "variables", "variables.data-00000-of-00001")
		data, _ := os.ReadFile(shard)
		os.WriteFile(shard, data[:len(data)/2], 0o644)
		_, err := LoadSavedModel(dir)
		if err == nil || !strings.Contains(err.Error(), "index and data do not match") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("corrupt index", func(t *testing.T) {
		dir := copyModel(t)
		idx := filepath.Join(dir, "variables", "variables.index")
		data, _ := os.ReadFile(idx)
		data[100] ^= 0xff
		os.WriteFile(idx, data, 0o644)
		_, err := LoadSavedModel(dir)
		if err == nil || !strings.Contains(err.Error(), "variables.index") || !strings.Contains(err.Error(), "checksum mismatch") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("no variables directory", func(t *testing.T) {
		dir := copyModel(t)
		os.RemoveAll(filepath.Join(dir, "variables"))
		m, err := LoadSavedModel(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Entry(EntryOptions{})
		if err == nil || !strings.Contains(err.Error(), "has no variables/variables.index") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("not a directory of a SavedModel", func(t *testing.T) {
		_, err := LoadSavedModel(t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "saved_model.pb") {
			t.Errorf("got %v", err)
		}
	})
}

func TestParseInputShapes(t *testing.T) {
	s, err := ParseInputShapes("1,49,10,1:?,5::-1")
	if err != nil || len(s) != 4 || !s[0].Equal(ir.Shape{1, 49, 10, 1}) || !s[1].Equal(ir.Shape{-1, 5}) || !s[2].Equal(ir.Shape{}) || !s[3].Equal(ir.Shape{-1}) {
		t.Fatalf("%v %v", s, err)
	}
	if _, err := ParseInputShapes("1,x"); err == nil {
		t.Error("accepted a bad dimension")
	}
	for _, bad := range []string{"0,5,1", "1,5:1,0", "-2,5", "1,-7"} {
		if _, err := ParseInputShapes(bad); err == nil || !strings.Contains(err.Error(), "is not a positive size") {
			t.Errorf("%q: err = %v, want a refusal of the non-positive dimension", bad, err)
		}
	}
	// Shapes given through the Go API (Options.InputShapes) are checked
	// the same way.
	if _, err := CheckInputShape(0, "x", ir.Shape{-1, 5}, ir.Shape{0, 5}); err == nil || !strings.Contains(err.Error(), `input 0 "x": the given shape [0 5]`) || !strings.Contains(err.Error(), "dimension 0 of 0, which is not a positive size") {
		t.Errorf("batch 0 through the API: err = %v", err)
	}
	if s, err := CheckInputShape(0, "x", ir.Shape{-1, 5}, ir.Shape{-1, 5}); err != nil || !s.Equal(ir.Shape{-1, 5}) {
		t.Errorf("an unknown dimension given as -1: %v, %v", s, err)
	}
}

// TestNotSavedModelDirectory: a directory without saved_model.pb is named
// as such, and a SavedModel one level below it is pointed out (model
// archives often unpack to a folder holding the SavedModel folder).
func TestNotSavedModelDirectory(t *testing.T) {
	empty := t.TempDir()
	if _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "not a SavedModel directory (no saved_model.pb)") {
		t.Fatalf("empty directory: err = %v", err)
	}
	kwsDir := kwsModel(t)
	parent := filepath.Dir(kwsDir)
	_, err := Load(parent)
	if err == nil {
		t.Fatalf("%s: no error", parent)
	}
	if want := "SavedModel found in " + kwsDir; !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to contain %q", err, want)
	}
}
