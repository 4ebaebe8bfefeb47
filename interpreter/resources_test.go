package interpreter_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Resource variables: a CALL_ONCE init subgraph assigns [1, 2] to a
// variable; each Invoke returns y = x + state and stores y as the new
// state (the pattern TensorFlow's converter writes for tf.Variable
// state). Recorded against TensorFlow Lite (one Invoke from fresh state)
// under testdata/resources.
func accumulatorModel() []byte {
	b := optest.NewBuilder()
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{2}, nil)
	h := b.Tensor("handle", schema.TensorTypeRESOURCE, []int32{}, nil)
	v := b.Tensor("state", schema.TensorTypeFLOAT32, []int32{2}, nil)
	y := b.Tensor("y", schema.TensorTypeFLOAT32, []int32{2}, nil)
	b.Inputs(x)
	b.Outputs(y)
	varOpts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsVarHandleOptions, Value: &schema.VarHandleOptionsT{Container: "c", SharedName: "acc"}}
	init := b.AddSubgraph("init")
	ih := b.Tensor("handle", schema.TensorTypeRESOURCE, []int32{}, nil)
	c := b.Const("start", schema.TensorTypeFLOAT32, []int32{2}, nil, optest.F32(1, 2))
	b.Op(schema.BuiltinOperatorVAR_HANDLE, 1, []int32{}, []int32{ih}, varOpts)
	b.Op(schema.BuiltinOperatorASSIGN_VARIABLE, 1, []int32{ih, c}, []int32{}, nil)
	b.UseSubgraph(0)
	b.Op(schema.BuiltinOperatorCALL_ONCE, 1, []int32{}, []int32{}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsCallOnceOptions, Value: &schema.CallOnceOptionsT{InitSubgraphIndex: init}})
	b.Op(schema.BuiltinOperatorVAR_HANDLE, 1, []int32{}, []int32{h}, varOpts)
	b.Op(schema.BuiltinOperatorREAD_VARIABLE, 1, []int32{h}, []int32{v}, nil)
	addOp(b, x, v, y)
	b.Op(schema.BuiltinOperatorASSIGN_VARIABLE, 1, []int32{h, y}, []int32{}, nil)
	return b.Bytes()
}

func TestRecordResources(t *testing.T) {
	if os.Getenv(optest.RecordEnv) != "1" {
		t.Skipf("recording golden cases: run with %s=1 and %s=/path/to/tflite_ref", optest.RecordEnv, optest.RefEnv)
	}
	ref, err := optest.Ref()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("testdata", "resources")
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := optest.RecordCases(ref, filepath.Join(root, "accumulator"), accumulatorModel(), 2, 5, nil, optest.Case{Atol: 1e-5, Rtol: 1e-5}); err != nil {
		t.Fatal(err)
	}
}

func TestResourcesGolden(t *testing.T) {
	root := filepath.Join("testdata", "resources")
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("no recorded cases under %s: %v", root, err)
	}
	optest.Check(t, root, nil)
}

// TestResourceState: the variable carries over between invokes and
// AllocateTensors, CALL_ONCE runs its init subgraph once, and steady
// invokes allocate nothing.
func TestResourceState(t *testing.T) {
	it := loadBytes(t, accumulatorModel(), nil)
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{2, 3}, {3, 4}, {4, 5}}
	for run, w := range want {
		copy(it.Input(0).Float32s(), []float32{1, 1})
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		if got := it.Output(0).Float32s(); got[0] != w[0] || got[1] != w[1] {
			t.Fatalf("run %d: y = %v, want %v", run, got, w)
		}
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	copy(it.Input(0).Float32s(), []float32{1, 1})
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if got := it.Output(0).Float32s(); got[0] != 5 || got[1] != 6 {
		t.Fatalf("after AllocateTensors: y = %v, want [5 6] (the state and the init status persist)", got)
	}
	if a := testing.AllocsPerRun(20, func() {
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Fatalf("Invoke allocates %v times", a)
	}
}

// TestResourceHostile: a variable read before any assignment, and a
// resource id from a model input that names no variable, are errors.
func TestResourceHostile(t *testing.T) {
	b := optest.NewBuilder()
	h := b.Tensor("handle", schema.TensorTypeRESOURCE, []int32{}, nil)
	v := b.Tensor("state", schema.TensorTypeFLOAT32, []int32{2}, nil)
	b.Op(schema.BuiltinOperatorVAR_HANDLE, 1, []int32{}, []int32{h}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsVarHandleOptions, Value: &schema.VarHandleOptionsT{SharedName: "never"}})
	b.Op(schema.BuiltinOperatorREAD_VARIABLE, 1, []int32{h}, []int32{v}, nil)
	b.Outputs(v)
	it := loadBytes(t, b.Bytes(), nil)
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err == nil || !strings.Contains(err.Error(), "READ_VARIABLE") || !strings.Contains(err.Error(), "before anything assigns it") {
		t.Fatalf("read before assignment: %v", err)
	}

	b = optest.NewBuilder()
	id := b.Tensor("id", schema.TensorTypeINT32, []int32{}, nil)
	x := b.Tensor("x", schema.TensorTypeFLOAT32, []int32{2}, nil)
	b.Op(schema.BuiltinOperatorASSIGN_VARIABLE, 1, []int32{id, x}, []int32{}, nil)
	b.Inputs(id, x)
	it = loadBytes(t, b.Bytes(), nil)
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	it.Input(0).Int32s()[0] = 1 << 30
	if err := it.Invoke(); err == nil || !strings.Contains(err.Error(), "ASSIGN_VARIABLE") || !strings.Contains(err.Error(), "1073741824") {
		t.Fatalf("assignment to a bogus id: %v", err)
	}
}
