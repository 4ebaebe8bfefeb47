package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// StablehloShiftLeft is the kernel of TFLite's STABLEHLO_SHIFT_LEFT
// operator: each element of input 0 shifted left by the matching element
// of input 1, as TFLite's stablehlo_shift_left.cc (C++'s shift of the
// value promoted to int, truncated back to the type). The inputs share a
// type, int8, int16 or int32, and a shape (TFLite reads input 1 by input
// 0's element count without checking its shape; tflrun requires equal
// shapes). Shift counts in [0, 31] are exact against TFLite; others are
// undefined behaviour in TFLite's C++ and give 0 here, StableHLO's
// definition for counts outside the type's width. Version 1, as TFLite's
// register.cc.
type StablehloShiftLeft struct {
	typ ops.DataType
}

// NewStablehloShiftLeft returns a STABLEHLO_SHIFT_LEFT kernel for one node.
func NewStablehloShiftLeft() ops.Kernel { return &StablehloShiftLeft{} }

func init() {
	register(ops.OpStablehloShiftLeft, NewStablehloShiftLeft, [2]int{1, 1})
}

// Prepare checks the types and shapes.
func (k *StablehloShiftLeft) Prepare(n *ops.Node) error {
	*k = StablehloShiftLeft{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	a, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	b, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(a, "input 0", ops.Int8, ops.Int16, ops.Int32); err != nil {
		return err
	}
	if b.Type != a.Type || out.Type != a.Type {
		return fmt.Errorf("input 1 and output 0: types %s and %s, need input 0's %s", b.Type, out.Type, a.Type)
	}
	if !ops.SameShape(a.Shape, b.Shape) {
		return fmt.Errorf("input 1: shape %v differs from input 0's %v", b.Shape, a.Shape)
	}
	if _, err := numElementsChecked(a, "input 0"); err != nil {
		return err
	}
	k.typ = a.Type
	out.Shape = copyShape(a.Shape)
	return nil
}

// shiftLeft is x << s of the int-promoted value, 0 for s outside [0, 31].
func shiftLeft(x, s int32) int32 {
	if s < 0 || s > 31 {
		return 0
	}
	return x << uint(s)
}

// Eval shifts every element.
func (k *StablehloShiftLeft) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("STABLEHLO_SHIFT_LEFT: input or output missing at Eval")
	}
	if a.Type != k.typ || b.Type != k.typ || out.Type != k.typ {
		return errors.New("STABLEHLO_SHIFT_LEFT: types changed since Prepare")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	c := out.NumElements()
	if a.NumElements() != c || b.NumElements() != c {
		return errors.New("STABLEHLO_SHIFT_LEFT: shapes changed since Prepare")
	}
	switch k.typ {
	case ops.Int8:
		x, s, o := a.Int8s()[:c], b.Int8s()[:c], out.Int8s()[:c]
		for i := range o {
			o[i] = int8(shiftLeft(int32(x[i]), int32(s[i])))
		}
	case ops.Int16:
		x, s, o := a.Int16s()[:c], b.Int16s()[:c], out.Int16s()[:c]
		for i := range o {
			o[i] = int16(shiftLeft(int32(x[i]), int32(s[i])))
		}
	default:
		x, s, o := a.Int32s()[:c], b.Int32s()[:c], out.Int32s()[:c]
		for i := range o {
			o[i] = shiftLeft(x[i], s[i])
		}
	}
	return nil
}
