package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// PRelu is the kernel of TFLite's PRELU operator for float32: y = x for
// x ≥ 0, alpha·x otherwise, with alpha (input 1) broadcast against the
// input numpy-style (TFLite's BroadcastPrelu4DSlow; up to 6 merged
// dimensions here). Quantised PRELU is not supported.
type PRelu struct {
	bc broadcast
}

// NewPRelu returns a PRELU kernel for one node.
func NewPRelu() ops.Kernel { return &PRelu{} }

func init() {
	register(ops.OpPRelu, NewPRelu, [2]int{1, 1})
}

// Prepare checks the types and sets the broadcast output shape.
func (k *PRelu) Prepare(n *ops.Node) error {
	*k = PRelu{}
	a, _, _, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	if err := requireType(a, "input 0", ops.Float32); err != nil {
		return fmt.Errorf("%v; quantised PRELU is not supported", err)
	}
	return nil
}

// Eval applies the activation.
func (k *PRelu) Eval(n *ops.Node) error {
	x, alpha, out := n.Input(0), n.Input(1), n.Output(0)
	if x == nil || alpha == nil || out == nil {
		return errors.New("PRELU: input or output missing at Eval")
	}
	if err := checkData(x, alpha, out); err != nil {
		return err
	}
	broadcastMap(&k.bc, x.Float32s(), alpha.Float32s(), out.Float32s(), func(v, a float32) float32 {
		if v >= 0 {
			return v
		}
		return v * a
	})
	return nil
}
