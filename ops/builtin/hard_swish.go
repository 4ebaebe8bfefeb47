package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// HardSwish is the kernel of TFLite's HARD_SWISH operator for float32:
// y = x·min(6, max(0, x + 3))/6 in float32, in TFLite's reference order
// of operations. Quantised HARD_SWISH is not supported.
type HardSwish struct{}

// NewHardSwish returns a HARD_SWISH kernel for one node.
func NewHardSwish() ops.Kernel { return &HardSwish{} }

func init() {
	register(ops.OpHardSwish, NewHardSwish, [2]int{1, 1})
}

// Prepare checks the types.
func (k *HardSwish) Prepare(n *ops.Node) error {
	in, _, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32); err != nil {
		return fmt.Errorf("%v; quantised HARD_SWISH is not supported", err)
	}
	return nil
}

// Eval applies the activation.
func (k *HardSwish) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("HARD_SWISH: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	o := out.Float32s()[:cnt]
	for i, x := range in.Float32s()[:cnt] {
		o[i] = x * min(6, max(0, x+3)) / 6
	}
	return nil
}
