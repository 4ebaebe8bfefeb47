package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// AddN is the kernel of TFLite's ADD_N operator: the element-wise sum of
// all its inputs, which share one shape and type (float32 or int32,
// wrapping), accumulated input by input in order as TFLite's AddN.
type AddN struct {
	typ   ops.DataType
	count int
}

// NewAddN returns an ADD_N kernel for one node.
func NewAddN() ops.Kernel { return &AddN{} }

func init() {
	register(ops.OpAddN, NewAddN, [2]int{1, 1})
}

// Prepare checks that the inputs agree and sets the output shape.
func (k *AddN) Prepare(n *ops.Node) error {
	*k = AddN{}
	if len(n.Inputs) < 2 {
		return fmt.Errorf("has %d inputs, needs at least 2", len(n.Inputs))
	}
	if err := n.CheckIO(len(n.Inputs), len(n.Inputs), 1); err != nil {
		return err
	}
	first, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	if err := requireType(first, "input 0", ops.Float32, ops.Int32); err != nil {
		return err
	}
	for i := 1; i < len(n.Inputs); i++ {
		t, err := n.RequireInput(i)
		if err != nil {
			return err
		}
		if t.Type != first.Type {
			return fmt.Errorf("input %d: type %s differs from input 0 type %s", i, t.Type, first.Type)
		}
		if !ops.SameShape(t.Shape, first.Shape) {
			return fmt.Errorf("input %d: shape %v differs from input 0 shape %v", i, t.Shape, first.Shape)
		}
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if out.Type != first.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, first.Type)
	}
	if k.count, err = numElementsChecked(first, "input 0"); err != nil {
		return err
	}
	k.typ = first.Type
	out.Shape = copyShape(first.Shape)
	return nil
}

// Eval sums the inputs.
func (k *AddN) Eval(n *ops.Node) error {
	out := n.Output(0)
	if out == nil {
		return errors.New("ADD_N: output missing at Eval")
	}
	for i := range n.Inputs {
		t := n.Input(i)
		if t == nil {
			return fmt.Errorf("ADD_N: input %d missing at Eval", i)
		}
		if err := checkData(t); err != nil {
			return err
		}
	}
	if err := checkData(out); err != nil {
		return err
	}
	if k.typ == ops.Float32 {
		addN(n, out.Float32s()[:k.count], k.count, (*ops.Tensor).Float32s)
	} else {
		addN(n, out.Int32s()[:k.count], k.count, (*ops.Tensor).Int32s)
	}
	return nil
}

func addN[T float32 | int32](n *ops.Node, o []T, cnt int, view func(*ops.Tensor) []T) {
	// The output may alias no input (the arena gives it its own memory), so
	// summing into it input by input keeps TFLite's order.
	copy(o, view(n.Input(0))[:cnt])
	for i := 1; i < len(n.Inputs); i++ {
		for j, v := range view(n.Input(i))[:cnt] {
			o[j] += v
		}
	}
}
