package passes

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
)

func tAttr(d ir.DType) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: d.TF()}}
}

// TestSimplify: a variable read folds to its checkpoint value, identities
// disappear, Shape of a static tensor and arithmetic on constants fold,
// and what the result does not need is removed.
func TestSimplify(t *testing.T) {
	f := ir.NewFunction("f", nil)
	x := f.AddParam("x", ir.Float32, ir.Shape{2, 3})
	h := f.NewNode("v", "VarHandleOp", nil, 1)
	h.Outputs[0].DType = ir.Resource
	h.Outputs[0].Variable = &ir.Variable{Name: "v", Key: "k", Value: ir.FromFloat32s(ir.Shape{3}, []float32{1, 2, 3})}
	read := f.NewNode("read", "ReadVariableOp", []*ir.Value{h.Outputs[0]}, 1)
	read.Attrs["dtype"] = tAttr(ir.Float32)
	id := f.NewNode("id", "Identity", []*ir.Value{read.Outputs[0]}, 1)
	id.Attrs["T"] = tAttr(ir.Float32)
	double := f.NewNode("double", "AddV2", []*ir.Value{id.Outputs[0], id.Outputs[0]}, 1)
	double.Attrs["T"] = tAttr(ir.Float32)
	add := f.NewNode("add", "AddV2", []*ir.Value{x, double.Outputs[0]}, 1)
	add.Attrs["T"] = tAttr(ir.Float32)
	shape := f.NewNode("shape", "Shape", []*ir.Value{add.Outputs[0]}, 1)
	f.NewNode("unused", "Relu", []*ir.Value{x}, 1).Attrs["T"] = tAttr(ir.Float32)
	noop := f.NewNode("noop", "NoOp", nil, 0)
	_ = noop
	f.Results = []*ir.Value{add.Outputs[0], shape.Outputs[0]}
	if err := Simplify(f); err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, n := range f.Nodes {
		ops = append(ops, n.Op)
	}
	if strings.Join(ops, " ") != "Const AddV2 Const" {
		t.Fatalf("nodes after simplify: %v", ops)
	}
	c := f.Results[0].Producer.Inputs[1].Const
	if c == nil || c.Float32s()[2] != 6 {
		t.Errorf("variable read + add not folded: %v", c)
	}
	if s := f.Results[1].Const; s == nil || s.Ints()[0] != 2 || s.Ints()[1] != 3 {
		t.Errorf("Shape not folded: %v", s)
	}
	if !f.Results[0].Shape.Equal(ir.Shape{2, 3}) {
		t.Errorf("inferred shape %s", f.Results[0].Shape)
	}
}

func TestSpecializeAndStateWrites(t *testing.T) {
	callee := ir.NewFunction("callee", nil)
	p := callee.AddParam("a", ir.Int32, nil)
	callee.Results = []*ir.Value{p}
	f := ir.NewFunction("caller", nil)
	x := f.AddParam("x", ir.Float32, ir.Shape{1})
	call := f.NewNode("call", "PartitionedCall", []*ir.Value{x}, 1)
	if _, err := Specialize(callee, call); err == nil || !strings.Contains(err.Error(), `input 0 is float32, function callee declares argument "a" as int32`) {
		t.Errorf("type mismatch: %v", err)
	}
	call.Inputs = nil
	if _, err := Specialize(callee, call); err == nil || !strings.Contains(err.Error(), "calls callee with 0 inputs, the function takes 1") {
		t.Errorf("count mismatch: %v", err)
	}

	g := ir.NewFunction("stateful", nil)
	h := g.NewNode("state", "VarHandleOp", nil, 1)
	h.Outputs[0].Variable = &ir.Variable{Name: "lstm/state"}
	g.NewNode("assign", "AssignVariableOp", []*ir.Value{h.Outputs[0], g.AddParam("v", ir.Float32, nil)}, 0)
	err := CheckNoStateWrites(g)
	if err == nil || !strings.Contains(err.Error(), `node "assign" (op AssignVariableOp): updates variable "lstm/state"`) {
		t.Errorf("state write: %v", err)
	}
}
