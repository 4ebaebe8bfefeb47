package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Split is the kernel of TFLite's SPLIT operator: input 1 cut along the
// axis given by input 0 (one int32 value, negative counting from the end;
// a constant tensor) into SplitOptions.NumSplits equal parts, one per
// output. The axis dimension must be divisible by the number of outputs.
// Any fixed-size element type; quantised outputs must share the input's
// scale and zero point. Matches TFLite's split.cc.
type Split struct{ splitter }

// NewSplit returns a SPLIT kernel for one node.
func NewSplit() ops.Kernel { return &Split{} }

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpSplit, NewSplit, [2]int{1, 5})
	registerOptions(schema.BuiltinOptionsSplitOptions, decodeSplitOptions)
}

// decodeSplitOptions decodes TFLite's SplitOptions table.
func decodeSplitOptions(t ops.OptionsTable) (any, error) {
	var o schema.SplitOptions
	initTable(&o, t)
	return &SplitOptions{NumSplits: int(o.NumSplits())}, nil
}

// Prepare validates the node and sets the output shapes.
func (k *Split) Prepare(n *ops.Node) error {
	k.splitter = splitter{}
	var opts SplitOptions
	if o, ok := n.Options.(*SplitOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *SplitOptions", n.Options)
	}
	if len(n.Inputs) != 2 {
		return fmt.Errorf("has %d inputs, needs 2 (axis, input)", len(n.Inputs))
	}
	at, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	in, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	axis, err := constAxis(at, "input 0 (axis)", in.Rank())
	if err != nil {
		return err
	}
	num := len(n.Outputs)
	if opts.NumSplits != num {
		return fmt.Errorf("options: num_splits %d, but the node has %d outputs", opts.NumSplits, num)
	}
	if num == 0 || in.Shape[axis]%num != 0 {
		return fmt.Errorf("input 1: dimension %d of size %d is not divisible into %d splits", axis, in.Shape[axis], num)
	}
	sizes := make([]int, num)
	for i := range sizes {
		sizes[i] = in.Shape[axis] / num
	}
	return k.prepare(n, in, axis, sizes)
}

// Eval copies the parts.
func (k *Split) Eval(n *ops.Node) error { return k.eval(n, n.Input(1)) }
