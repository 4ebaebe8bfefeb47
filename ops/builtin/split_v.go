package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// SplitV is the kernel of TFLite's SPLIT_V operator: input 0 cut along the
// axis given by input 2 (one int32 value, negative counting from the end)
// into parts whose sizes input 1 lists (int32 or int64, one per output; at
// most one entry may be -1 and takes what remains). Inputs 1 and 2 must be
// constant tensors; SplitOptions.NumSplits must equal the number of
// outputs. Any fixed-size element type; quantised outputs must share the
// input's scale and zero point. Matches TFLite's split_v.cc.
type SplitV struct{ splitter }

// NewSplitV returns a SPLIT_V kernel for one node.
func NewSplitV() ops.Kernel { return &SplitV{} }

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpSplitV, NewSplitV, [2]int{1, 3})
	registerOptions(schema.BuiltinOptionsSplitVOptions, decodeSplitVOptions)
}

// decodeSplitVOptions decodes TFLite's SplitVOptions table.
func decodeSplitVOptions(t ops.OptionsTable) (any, error) {
	var o schema.SplitVOptions
	initTable(&o, t)
	return &SplitOptions{NumSplits: int(o.NumSplits())}, nil
}

// Prepare validates the sizes and sets the output shapes.
func (k *SplitV) Prepare(n *ops.Node) error {
	k.splitter = splitter{}
	var opts SplitOptions
	if o, ok := n.Options.(*SplitOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *SplitOptions", n.Options)
	}
	if len(n.Inputs) != 3 {
		return fmt.Errorf("has %d inputs, needs 3 (input, size_splits, axis)", len(n.Inputs))
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	st, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	at, err := n.RequireInput(2)
	if err != nil {
		return err
	}
	axis, err := constAxis(at, "input 2 (axis)", in.Rank())
	if err != nil {
		return err
	}
	num := len(n.Outputs)
	if opts.NumSplits != num {
		return fmt.Errorf("options: num_splits %d, but the node has %d outputs", opts.NumSplits, num)
	}
	if st.Rank() != 1 || st.Shape[0] != num {
		return fmt.Errorf("input 1 (size_splits): shape %v, need [%d]", st.Shape, num)
	}
	if st.Type != ops.Int32 && st.Type != ops.Int64 {
		return fmt.Errorf("input 1 (size_splits): type %s, need int32 or int64", st.Type)
	}
	if st.Kind != ops.ConstTensor || len(st.Data) < st.Bytes() {
		return ops.NotConstant("input 1 (size_splits)")
	}
	sizes := make([]int, num)
	infer, sum := -1, int64(0)
	for i := range sizes {
		var v int64
		if st.Type == ops.Int32 {
			v = int64(st.Int32s()[i])
		} else {
			v = st.Int64s()[i]
		}
		switch {
		case v == -1 && infer == -1:
			infer = i
			continue
		case v == -1:
			return errors.New("input 1 (size_splits): more than one entry is -1")
		case v < 0 || v > int64(in.Shape[axis]):
			return fmt.Errorf("input 1 (size_splits): entry %d is %d, outside [0, %d]", i, v, in.Shape[axis])
		}
		sizes[i] = int(v)
		sum += v
	}
	dim := int64(in.Shape[axis])
	if infer >= 0 {
		if sum > dim {
			return fmt.Errorf("input 1 (size_splits): sizes add up to %d, more than dimension %d of size %d", sum, axis, dim)
		}
		sizes[infer] = int(dim - sum)
	} else if sum != dim {
		return fmt.Errorf("input 1 (size_splits): sizes add up to %d, dimension %d has size %d", sum, axis, dim)
	}
	return k.prepare(n, in, axis, sizes)
}

// Eval copies the parts.
func (k *SplitV) Eval(n *ops.Node) error { return k.eval(n, n.Input(0)) }
