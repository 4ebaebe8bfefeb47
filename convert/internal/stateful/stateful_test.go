package stateful

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/passes"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
)

// graph builds: h = ReadVariableOp(state); y = x + h; AssignVariableOp(
// state, y); results [y]; the read happens inside a called function
// (the resource passed as an argument), as in Keras's stateful layers.
func graph(t *testing.T, updates int) (*ir.Function, *ir.Module, *ir.Variable) {
	t.Helper()
	init := ir.FromFloat32s(ir.Shape{2}, []float32{0.5, -1})
	v := &ir.Variable{Name: "lstm/Variable", Key: "k", Value: init}
	m := ir.NewModule(nil, nil)
	callee := ir.NewFunction("layer", m)
	res := callee.AddParam("res", ir.Resource, ir.Scalar())
	x := callee.AddParam("x", ir.Float32, ir.Shape{2})
	rd := callee.NewNode("read", "ReadVariableOp", []*ir.Value{res}, 1)
	rd.SetAttrType("dtype", ir.Float32)
	add := callee.NewNode("add", "AddV2", []*ir.Value{x, rd.Outputs[0]}, 1)
	add.SetAttrType("T", ir.Float32)
	callee.Results = []*ir.Value{add.Outputs[0]}
	callee.ResultNames = []string{"y"}
	if err := m.AddFunction(callee); err != nil {
		t.Fatal(err)
	}
	f := ir.NewFunction("main", m)
	in := f.AddParam("x", ir.Float32, ir.Shape{2})
	h := f.NewNode("lstm/Variable", "VarHandleOp", nil, 1)
	h.Outputs[0].DType, h.Outputs[0].Shape, h.Outputs[0].Variable = ir.Resource, ir.Scalar(), v
	call := f.NewNode("call", "PartitionedCall", []*ir.Value{h.Outputs[0], in}, 1)
	call.Attrs["f"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: "layer"}}}
	for i := 0; i < updates; i++ {
		a := f.NewNode("assign", "AssignVariableOp", []*ir.Value{h.Outputs[0], call.Outputs[0]}, 0)
		a.SetAttrType("dtype", ir.Float32)
	}
	f.Results = []*ir.Value{call.Outputs[0]}
	f.ResultNames = []string{"y"}
	return f, m, v
}

// inline inlines the single call of f, as the converter does.
func inline(t *testing.T, f *ir.Function, m *ir.Module) {
	t.Helper()
	call := f.Node("call")
	callee, err := m.Function("layer")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := passes.Specialize(callee, call)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Inline(call, spec); err != nil {
		t.Fatal(err)
	}
	if err := passes.Simplify(f); err != nil {
		t.Fatal(err)
	}
}

func TestStateBecomesInputAndOutput(t *testing.T) {
	f, m, v := graph(t, 1)
	marked, err := MarkState(f, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(marked) != 1 || marked[0] != v || !v.State {
		t.Fatalf("marked %v, want the assigned variable", marked)
	}
	inline(t, f, m)
	// The read must not have been folded to the checkpoint value, and the
	// update must have survived dead-node elimination.
	if f.Node("assign") == nil {
		t.Fatal("simplification dropped the state update")
	}
	states, err := Lower(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 1 || states[0].Input == nil || states[0].Output != 1 || states[0].Initial != v.Value {
		t.Fatalf("states %+v, want one input/output pair", states)
	}
	if len(f.Params) != 2 || f.Params[1].Name != "lstm/Variable" || len(f.Results) != 2 || f.ResultNames[1] != "lstm/Variable" {
		t.Fatalf("params %v results %v %v", f.Params, f.Results, f.ResultNames)
	}
	add := f.Results[0].Producer
	if add == nil || add.Op != "AddV2" || add.Inputs[1] != f.Params[1] {
		t.Fatalf("the add does not read the state input: %v", add)
	}
	if f.Results[1] != f.Results[0] {
		t.Fatalf("the state output is %v, want the assigned value %v", f.Results[1], f.Results[0])
	}
	for _, n := range f.Nodes {
		if n.Op == "ReadVariableOp" || n.Op == "AssignVariableOp" {
			t.Errorf("%s left in the graph", n)
		}
	}
}

func TestStateInVariableTensor(t *testing.T) {
	f, m, _ := graph(t, 1)
	if _, err := MarkState(f, m); err != nil {
		t.Fatal(err)
	}
	inline(t, f, m)
	// A fused operator keeping the state in a variable tensor makes the
	// update assign that tensor.
	vt := &ir.Value{Name: "op/state", DType: ir.Float32, Shape: ir.Shape{2}, IsVariableTensor: true}
	f.Node("assign").Inputs[1] = vt
	states, err := Lower(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 1 || states[0].VariableTensor != vt || states[0].Input != nil || states[0].Output != -1 {
		t.Fatalf("states %+v, want the variable tensor", states)
	}
	if len(f.Params) != 1 || len(f.Results) != 1 {
		t.Fatalf("params %v results %v: a variable-tensor state adds no input or output", f.Params, f.Results)
	}
	if add := f.Results[0].Producer; add.Inputs[1] != vt {
		t.Fatalf("the read was not redirected to the variable tensor: %v", add.Inputs)
	}
}

func TestStateUpdatedTwice(t *testing.T) {
	f, m, _ := graph(t, 2)
	if _, err := MarkState(f, m); err != nil {
		t.Fatal(err)
	}
	inline(t, f, m)
	_, err := Lower(f)
	if err == nil || !strings.Contains(err.Error(), "second time") || !strings.Contains(err.Error(), `"lstm/Variable"`) {
		t.Fatalf("err = %v, want the double update named", err)
	}
}

func TestUnmarkedVariableFolds(t *testing.T) {
	f, m, v := graph(t, 0)
	marked, err := MarkState(f, m)
	if err != nil || len(marked) != 0 {
		t.Fatalf("marked %v, %v: nothing updates the variable", marked, err)
	}
	inline(t, f, m)
	if v.State {
		t.Fatal("variable marked State")
	}
	add := f.Results[0].Producer
	if add == nil || add.Inputs[1].Const == nil {
		t.Fatalf("the read of a never-updated variable did not fold to its checkpoint value: %v", add)
	}
}
