package builtin

import "github.com/tflrun/tflrun/ops"
import "errors"

// Logical is the kernel of TFLite's LOGICAL_AND and LOGICAL_OR operators:
// out[i] = a[i] && b[i] (or ||) on bool tensors with numpy-style
// broadcasting, as TFLite's logical.cc.
type Logical struct {
	or bool
	bc broadcast
}

// NewLogicalAnd returns a LOGICAL_AND kernel for one node.
func NewLogicalAnd() ops.Kernel { return &Logical{} }

// NewLogicalOr returns a LOGICAL_OR kernel for one node.
func NewLogicalOr() ops.Kernel { return &Logical{or: true} }

// Prepare checks the types and sets the broadcast output shape.
func (k *Logical) Prepare(n *ops.Node) error {
	or := k.or
	*k = Logical{or: or}
	a, _, _, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	return requireType(a, "input 0", ops.Bool)
}

// Eval combines the inputs.
func (k *Logical) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("LOGICAL: input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	if k.or {
		broadcastMap(&k.bc, a.Bools(), b.Bools(), out.Bools(), func(x, y bool) bool { return x || y })
	} else {
		broadcastMap(&k.bc, a.Bools(), b.Bools(), out.Bools(), func(x, y bool) bool { return x && y })
	}
	return nil
}
