package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

// Resource variables: a handle (VarHandleOp) whose checkpoint value package
// tfmodel resolves, its reads, and its updates.

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "VarHandleOp", Outputs: "resource:=resource", MinInputs: 0, Infer: inferVarHandle, Legalize: rule(legalizeVarHandle)})
	ir.RegisterOp(ir.OpRecord{Name: "ReadVariableOp", Outputs: "value:dtype", MinInputs: 1, Infer: inferReadVariable,
		NoLegalize: "a variable read: folded to the checkpoint value, or a state read lowered by package stateful"})
	for _, op := range []string{"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"} {
		ir.RegisterOp(ir.OpRecord{Name: op, Outputs: "", MinInputs: 2, NoLegalize: byState})
	}
	ir.RegisterOp(ir.OpRecord{Name: "VariableV2", Outputs: "ref:dtype", MinInputs: 0,
		NoLegalize: "a TF1 variable (frozen graphs hold constants instead): refused by the legalize pass"})
}

func inferVarHandle(n *ir.Node) error {
	setOut(n, 0, ir.Resource, ir.Scalar())
	return nil
}

// inferReadVariable: the read of a resolved variable is its checkpoint
// value, unless the model updates the variable.
func inferReadVariable(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	dt, err := n.AttrType("dtype")
	if err != nil {
		return err
	}
	var s ir.Shape
	if v := n.Inputs[0].Variable; v != nil {
		if v.Value.DType != dt {
			return fmt.Errorf("reads variable %q as %s, it holds %s", v.Name, dt, v.Value.DType)
		}
		s = v.Value.Shape.Clone()
		if !v.State { // an updated variable's reads are not constants
			n.Outputs[0].Const = v.Value
		}
	}
	setOut(n, 0, dt, s)
	return nil
}

// legalizeVarHandle leaves a handle whose every user is a ResourceGather
// (an embedding lookup with run-time ids): the gather, legalised after it
// in topological order, reads the checkpoint value as a constant GATHER
// table, and the handle is then unused and removed. Any other use is
// refused: every ReadVariableOp has been folded to its checkpoint value or
// lowered as state by now, so what is left cannot become a TFLite tensor.
func legalizeVarHandle(c *ctx) error {
	v := c.n.Outputs[0].Variable
	name := c.n.Name
	if v != nil {
		name = v.Name
	}
	users := c.f.Uses()[c.n.Outputs[0]]
	for _, u := range users {
		if u.Op == "ResourceGather" && u.TFL == nil && len(u.Inputs) > 0 && u.Inputs[0] == c.n.Outputs[0] {
			continue
		}
		return fmt.Errorf("variable %q is used by %s, which tflrun cannot turn into a TFLite tensor (it converts a variable only where it is read: a ReadVariableOp of an unmodified variable becomes its checkpoint value, a ResourceGather a GATHER from it)", name, u)
	}
	if len(users) == 0 || c.f.IsResult(c.n.Outputs[0]) {
		return fmt.Errorf("variable %q is a function result; a resource handle has no TFLite tensor (return the value read from it)", name)
	}
	return nil
}
