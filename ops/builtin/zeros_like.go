package builtin

import (
	"errors"

	"github.com/tflrun/tflrun/ops"
)

// ZerosLike is the kernel of TFLite's ZEROS_LIKE operator: zeros of input
// 0's shape and type (int32, int64 or float32, as TFLite's
// zeros_like.cc).
type ZerosLike struct {
	bytes int
}

// NewZerosLike returns a ZEROS_LIKE kernel for one node.
func NewZerosLike() ops.Kernel { return &ZerosLike{} }

func init() {
	register(ops.OpZerosLike, NewZerosLike, [2]int{1, 1})
}

// Prepare checks the types and sets the output shape.
func (k *ZerosLike) Prepare(n *ops.Node) error {
	*k = ZerosLike{}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Int32, ops.Int64, ops.Float32); err != nil {
		return err
	}
	k.bytes = in.Bytes()
	out.Shape = copyShape(in.Shape)
	return nil
}

// Eval zeroes the output.
func (k *ZerosLike) Eval(n *ops.Node) error {
	out := n.Output(0)
	if out == nil {
		return errors.New("ZEROS_LIKE: output missing at Eval")
	}
	if err := checkData(out); err != nil {
		return err
	}
	clear(out.Data[:k.bytes])
	return nil
}
