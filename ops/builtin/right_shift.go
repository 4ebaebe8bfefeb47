package builtin

import (
	"errors"

	"github.com/tflrun/tflrun/ops"
)

// RightShift is the kernel of TFLite's RIGHT_SHIFT operator: out[i] = a[i]
// >> b[i] with numpy-style broadcasting; the shift is clamped to [0,
// bits−1] as TFLite's right_shift.cc does to avoid undefined behaviour,
// and is arithmetic for signed types. Types: int8, uint8, int16, uint16,
// int32, uint32 (both inputs and the output of one type). Version 1, as
// TFLite's register.cc.
type RightShift struct {
	bc  broadcast
	typ ops.DataType
}

// NewRightShift returns a RIGHT_SHIFT kernel for one node.
func NewRightShift() ops.Kernel { return &RightShift{} }

func init() {
	register(ops.OpRightShift, NewRightShift, [2]int{1, 1})
}

// Prepare checks the types and the broadcast.
func (k *RightShift) Prepare(n *ops.Node) error {
	*k = RightShift{}
	a, _, _, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	if err := requireType(a, "input 0", ops.Int8, ops.Uint8, ops.Int16, ops.Uint16, ops.Int32, ops.Uint32); err != nil {
		return err
	}
	k.typ = a.Type
	return nil
}

// shiftRight is TFLite's RightShift for one element type: the shift
// clamped to [0, bits−1].
func shiftRight[T int8 | uint8 | int16 | uint16 | int32 | uint32](bits T) func(x, y T) T {
	return func(x, y T) T {
		if y < 0 {
			y = 0
		} else if y > bits-1 {
			y = bits - 1
		}
		return x >> y
	}
}

var (
	shiftRightI8  = shiftRight[int8](8)
	shiftRightU8  = shiftRight[uint8](8)
	shiftRightI16 = shiftRight[int16](16)
	shiftRightU16 = shiftRight[uint16](16)
	shiftRightI32 = shiftRight[int32](32)
	shiftRightU32 = shiftRight[uint32](32)
)

// Eval computes the shifts.
func (k *RightShift) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("RIGHT_SHIFT: input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	switch k.typ {
	case ops.Int8:
		broadcastApply(&k.bc, a.Int8s(), b.Int8s(), out.Int8s(), shiftRightI8)
	case ops.Uint8:
		broadcastApply(&k.bc, a.Uint8s(), b.Uint8s(), out.Uint8s(), shiftRightU8)
	case ops.Int16:
		broadcastApply(&k.bc, a.Int16s(), b.Int16s(), out.Int16s(), shiftRightI16)
	case ops.Uint16:
		broadcastApply(&k.bc, a.Uint16s(), b.Uint16s(), out.Uint16s(), shiftRightU16)
	case ops.Int32:
		broadcastApply(&k.bc, a.Int32s(), b.Int32s(), out.Int32s(), shiftRightI32)
	default:
		broadcastApply(&k.bc, a.Uint32s(), b.Uint32s(), out.Uint32s(), shiftRightU32)
	}
	return nil
}
