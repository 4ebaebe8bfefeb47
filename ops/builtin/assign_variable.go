package builtin

import (
	"github.com/tflrun/tflrun/ops"
)

// AssignVariable is the kernel of TFLite's ASSIGN_VARIABLE operator: the
// resource variable whose id input 0 holds (see VarHandle) becomes a copy
// of input 1 (type, shape and values), created at its first assignment.
// It has no outputs.
type AssignVariable struct{}

// NewAssignVariable returns an ASSIGN_VARIABLE kernel for one node.
func NewAssignVariable() ops.Kernel { return &AssignVariable{} }

func init() {
	register(ops.OpAssignVariable, NewAssignVariable, [2]int{1, 1})
}

// Prepare validates the node.
func (k *AssignVariable) Prepare(n *ops.Node) error {
	if err := n.CheckIO(2, 2, 0); err != nil {
		return err
	}
	if err := checkResourceInput(n); err != nil {
		return err
	}
	if _, err := n.RequireInput(1); err != nil {
		return err
	}
	if v := n.Input(1); v.Type.Size() == 0 {
		return errUnsupportedValueType(v)
	}
	return nil
}

// Eval assigns the value.
func (k *AssignVariable) Eval(n *ops.Node) error {
	id, err := resourceID(n.Input(0))
	if err != nil {
		return err
	}
	return n.Resources.AssignVariable(id, n.Input(1))
}
