package builtin

import (
	"errors"

	"github.com/tflrun/tflrun/ops"
)

// Rank is the kernel of TFLite's RANK operator: output 0, an int32 scalar,
// holds the number of dimensions of input 0 (of any type, including
// strings; its data is never read). TFLite computes the value at Prepare
// and makes the output a persistent read-only tensor, so that later
// operators can read it at their own Prepare; tflrun's interpreter has no
// such tensors for kernel outputs yet, so the value is written at Eval and
// is not a constant to the operators after it. Version 1, as TFLite's
// register.cc.
type Rank struct {
	rank int32
}

// NewRank returns a RANK kernel for one node.
func NewRank() ops.Kernel { return &Rank{} }

func init() {
	register(ops.OpRank, NewRank, [2]int{1, 1})
}

// Prepare validates the node and makes the output a scalar.
func (k *Rank) Prepare(n *ops.Node) error {
	*k = Rank{}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(out, "output 0", ops.Int32); err != nil {
		return err
	}
	k.rank = int32(in.Rank())
	out.Shape = []int{}
	return nil
}

// Eval writes the rank.
func (k *Rank) Eval(n *ops.Node) error {
	out := n.Output(0)
	if out == nil || len(out.Data) < 4 {
		return errors.New("RANK: output missing or not allocated at Eval")
	}
	out.Int32s()[0] = k.rank
	return nil
}
