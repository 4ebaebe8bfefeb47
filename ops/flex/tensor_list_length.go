package flex

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// TensorListLength is the kernel of FlexTensorListLength: output 0, an
// int32 scalar, is the length of the list input 0 (TensorFlow's
// TensorListLength).
type TensorListLength struct{}

func init() { register("FlexTensorListLength", func() ops.Kernel { return &TensorListLength{} }) }

// Prepare checks the input and output.
func (k *TensorListLength) Prepare(n *ops.Node) error {
	if _, err := nodeDef(n, "TensorListLength"); err != nil {
		return err
	}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	if err := checkVariantScalar(n.Input(0), "input 0 (handle)"); err != nil {
		return err
	}
	out := n.Output(0)
	if out.Type != ops.Int32 {
		return fmt.Errorf("output 0 (length): type %s, need int32", out.Type)
	}
	out.Shape = []int{}
	return nil
}

// Eval writes the length.
func (k *TensorListLength) Eval(n *ops.Node) error {
	_, l, _, err := inputList(n, 0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if len(out.Data) < 4 {
		return fmt.Errorf("output 0 (length): no data")
	}
	ops.View[int32](out.Data)[0] = int32(l.NumElements())
	return nil
}
