package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// Bitcast is the kernel of TFLite's BITCAST operator: output 0 holds input
// 0's bytes unchanged, read as the output tensor's type. Elements of the
// same size keep the shape; a wider input gains a last dimension of
// size(in)/size(out) ([...] → [..., ratio]); a narrower input must end in
// a dimension of size(out)/size(in), which goes ([..., ratio] → [...]).
// Types: any of fixed size (bool, integers, float16, bfloat16, float32,
// float64, complex64, complex128), as TFLite's GetSizeOfType. Version 1,
// as TFLite's register.cc.
type Bitcast struct {
	bytes int
}

// NewBitcast returns a BITCAST kernel for one node.
func NewBitcast() ops.Kernel { return &Bitcast{} }

func init() {
	register(ops.OpBitcast, NewBitcast, [2]int{1, 1})
}

// Prepare validates the node and sets the output shape.
func (k *Bitcast) Prepare(n *ops.Node) error {
	*k = Bitcast{}
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
	si, so := in.Type.Size(), out.Type.Size()
	if si == 0 || in.Type == ops.Int4 {
		return fmt.Errorf("input 0: type %s has no fixed element size", in.Type)
	}
	if so == 0 || out.Type == ops.Int4 {
		return fmt.Errorf("output 0: type %s has no fixed element size", out.Type)
	}
	cnt, err := numElementsChecked(in, "input 0")
	if err != nil {
		return err
	}
	var shape []int
	switch {
	case si > so:
		shape = append(copyShape(in.Shape), si/so)
		if _, err := ops.ShapeElements(shape, so); err != nil {
			return fmt.Errorf("output 0: %v", err)
		}
	case si < so:
		r := in.Rank()
		if r == 0 || in.Shape[r-1] != so/si {
			return fmt.Errorf("input 0: shape %v must end in a dimension of %d to become %s", in.Shape, so/si, out.Type)
		}
		shape = copyShape(in.Shape[:r-1])
	default:
		shape = copyShape(in.Shape)
	}
	out.Shape = shape
	k.bytes = cnt * si
	return nil
}

// Eval copies the bytes.
func (k *Bitcast) Eval(n *ops.Node) error { return copyEval(n, k.bytes) }
