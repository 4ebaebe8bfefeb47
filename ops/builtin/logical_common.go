package builtin

import (
	"errors"

	"github.com/tflrun/tflrun/ops"
)

// Logical is the kernel of TFLite's LOGICAL_AND and LOGICAL_OR operators:
// out[i] = a[i] && b[i] (or ||) on bool tensors with numpy-style
// broadcasting, as TFLite's logical.cc. The operator's file
// (logical_and.go, logical_or.go) gives the function.
type Logical struct {
	op *logicalOp
	bc broadcast
}

// logicalOp is what LOGICAL_AND or LOGICAL_OR adds to the shared kernel.
type logicalOp struct {
	f func(x, y bool) bool
}

// Prepare checks the types and sets the broadcast output shape.
func (k *Logical) Prepare(n *ops.Node) error {
	op := k.op
	*k = Logical{op: op}
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
	broadcastMap(&k.bc, a.Bools(), b.Bools(), out.Bools(), k.op.f)
	return nil
}
