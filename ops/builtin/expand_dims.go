package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// ExpandDims is the kernel of TFLite's EXPAND_DIMS operator: input 0's data
// under its shape with a dimension of size 1 inserted at the position given
// by input 1 (one int32 or int64 value in [-(rank+1), rank], negative
// counting from the end of the output). Input 1 must be a constant tensor
// (tflrun sizes outputs at Prepare). Any fixed-size element type; the data
// is copied, unless the planner gave output and input one buffer. Matches
// TFLite's expand_dims.cc.
type ExpandDims struct{ bytes int }

// NewExpandDims returns an EXPAND_DIMS kernel for one node.
func NewExpandDims() ops.Kernel { return &ExpandDims{} }

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpExpandDims, NewExpandDims, [2]int{1, 1})
}

// Prepare validates the node and sets the output shape.
func (k *ExpandDims) Prepare(n *ops.Node) error {
	*k = ExpandDims{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	at, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	if at.NumElements() != 1 {
		return fmt.Errorf("input 1 (axis): %d elements, need 1", at.NumElements())
	}
	if at.Kind != ops.ConstTensor || len(at.Data) < at.Type.Size() {
		return ops.NotConstant("input 1 (axis)")
	}
	var axis int
	switch at.Type {
	case ops.Int32:
		axis = int(at.Int32s()[0])
	case ops.Int64:
		v := at.Int64s()[0]
		if v < -1<<31 || v >= 1<<31 {
			return fmt.Errorf("input 1 (axis): %d is out of range", v)
		}
		axis = int(v)
	default:
		return fmt.Errorf("input 1 (axis): type %s, need int32 or int64", at.Type)
	}
	rank := in.Rank()
	a := axis
	if a < 0 {
		a += rank + 1
	}
	if a < 0 || a > rank {
		return fmt.Errorf("input 1 (axis): %d is outside [%d, %d]", axis, -(rank + 1), rank)
	}
	shape := make([]int, 0, rank+1)
	shape = append(shape, in.Shape[:a]...)
	shape = append(shape, 1)
	shape = append(shape, in.Shape[a:]...)
	out.Shape = shape
	k.bytes = in.Bytes()
	return nil
}

// Eval copies the data.
func (k *ExpandDims) Eval(n *ops.Node) error { return copyEval(n, k.bytes) }
