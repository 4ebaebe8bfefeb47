package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// BroadcastArgs is the kernel of TFLite's BROADCAST_ARGS operator: inputs
// 0 and 1 are shapes (int32 or int64 vectors of one type); output 0, a
// vector of that type and of the longer length, is the shape they
// broadcast to: aligned at the end, a missing or 1 size takes the other's,
// equal sizes stay, and any other pair fails (TFLite aborts on a
// TFLITE_CHECK there; tflrun's Eval returns an error, and Prepare already
// does when both inputs are constants). As TFLite's reference
// BroadcastArgs, sizes are compared as C int, so int64 sizes count by
// their low 32 bits.
//
// TFLite computes the output at Prepare when both inputs are constants
// and makes it a persistent read-only tensor that later operators read at
// their own Prepare; tflrun's interpreter has no such tensors for kernel
// outputs yet, so the value is written at Eval. Version 1, as TFLite's
// register.cc.
type BroadcastArgs struct {
	n1, n2, n int
	is64      bool
}

// NewBroadcastArgs returns a BROADCAST_ARGS kernel for one node.
func NewBroadcastArgs() ops.Kernel { return &BroadcastArgs{} }

func init() {
	register(ops.OpBroadcastArgs, NewBroadcastArgs, [2]int{1, 1})
}

// Prepare validates the node and sets the output length.
func (k *BroadcastArgs) Prepare(n *ops.Node) error {
	*k = BroadcastArgs{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	s1, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	s2, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(s1, "input 0", ops.Int32, ops.Int64); err != nil {
		return err
	}
	if s2.Type != s1.Type {
		return fmt.Errorf("input 1: type %s differs from input 0 type %s", s2.Type, s1.Type)
	}
	if out.Type != s1.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, s1.Type)
	}
	if s1.Rank() != 1 || s2.Rank() != 1 {
		return fmt.Errorf("inputs: shapes %v and %v, need two vectors", s1.Shape, s2.Shape)
	}
	k.n1, k.n2 = s1.Shape[0], s2.Shape[0]
	k.n = max(k.n1, k.n2)
	k.is64 = s1.Type == ops.Int64
	out.Shape = []int{k.n}
	if s1.IsConstant() && s2.IsConstant() {
		for i := 0; i < k.n; i++ {
			if a, b := k.size(s1, k.n1, i), k.size(s2, k.n2, i); a != 1 && b != 1 && a != b {
				return k.mismatch(s1, s2, i)
			}
		}
	}
	return nil
}

// size is element i from the end of a shape of length l, 1 past its
// start, truncated to a C int.
func (k *BroadcastArgs) size(t *ops.Tensor, l, i int) int32 {
	j := l - 1 - i
	if j < 0 {
		return 1
	}
	if k.is64 {
		return int32(t.Int64s()[j])
	}
	return t.Int32s()[j]
}

// broadcastArgsError reports two sizes that do not broadcast; a value
// type, so that returning it does not allocate.
type broadcastArgsError struct {
	fromEnd int
	a, b    int32
}

func (e broadcastArgsError) Error() string {
	return fmt.Sprintf("inputs: sizes %d and %d (position %d from the end) do not broadcast", e.a, e.b, e.fromEnd)
}

func (k *BroadcastArgs) mismatch(s1, s2 *ops.Tensor, i int) error {
	return broadcastArgsError{i, k.size(s1, k.n1, i), k.size(s2, k.n2, i)}
}

// Eval computes the broadcast shape.
func (k *BroadcastArgs) Eval(n *ops.Node) error {
	s1, s2, out := n.Input(0), n.Input(1), n.Output(0)
	if s1 == nil || s2 == nil || out == nil {
		return errors.New("BROADCAST_ARGS: input or output missing at Eval")
	}
	if err := checkData(s1, s2, out); err != nil {
		return err
	}
	for i := 0; i < k.n; i++ {
		a, b := k.size(s1, k.n1, i), k.size(s2, k.n2, i)
		v := a
		switch {
		case a == 1:
			v = b
		case b == 1:
		case a != b:
			return k.mismatch(s1, s2, i)
		}
		if k.is64 {
			out.Int64s()[k.n-1-i] = int64(v)
		} else {
			out.Int32s()[k.n-1-i] = v
		}
	}
	return nil
}
