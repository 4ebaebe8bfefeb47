package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// ReadVariable is the kernel of TFLite's READ_VARIABLE operator: output 0
// is a copy of the resource variable whose id input 0 holds (see
// VarHandle), which must have been assigned and have the output's type.
// tflrun makes the output a dynamic tensor sized to the variable at each
// Eval (TFLite does so when the model declares no shape, and otherwise
// trusts the declared one; the results are the same).
type ReadVariable struct{}

// NewReadVariable returns a READ_VARIABLE kernel for one node.
func NewReadVariable() ops.Kernel { return &ReadVariable{} }

func init() {
	register(ops.OpReadVariable, NewReadVariable, [2]int{1, 1})
}

// Prepare validates the node.
func (k *ReadVariable) Prepare(n *ops.Node) error {
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	if err := checkResourceInput(n); err != nil {
		return err
	}
	if n.Output(0).Type.Size() == 0 {
		return fmt.Errorf("output 0: type %s is not supported", n.Output(0).Type)
	}
	return n.SetOutputDynamic(0)
}

// Eval copies the variable.
func (k *ReadVariable) Eval(n *ops.Node) error {
	id, err := resourceID(n.Input(0))
	if err != nil {
		return err
	}
	v := n.Resources.Variable(id)
	if v == nil {
		return fmt.Errorf("resource variable %d is read before anything assigns it", id)
	}
	out := n.Output(0)
	if v.Type != out.Type {
		return fmt.Errorf("output 0: type %s, resource variable %d holds %s", out.Type, id, v.Type)
	}
	if err := n.ResizeOutput(0, v.Shape); err != nil {
		return err
	}
	copy(out.Data, v.Data[:out.Bytes()])
	return nil
}
