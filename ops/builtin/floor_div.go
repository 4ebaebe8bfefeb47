package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// FloorDiv is the kernel of TFLite's FLOOR_DIV operator: out = ⌊a / b⌋
// element-wise with numpy-style broadcasting, the quotient computed in
// float64 and floored, then converted to the tensor type (TFLite's
// reference FloorDiv). Types: float32, int8, int16, int32. Eval fails when
// any divisor is 0, for every type, as TFLite's floor_div.cc does. The
// quotients out of range, −2^31 / −1 (int32) and −128 / −1 (int8) and
// −32768 / −1 (int16), wrap to the type's minimum as x86's conversion of
// the double does.
type FloorDiv struct {
	bc  broadcast
	typ ops.DataType
}

// NewFloorDiv returns a FLOOR_DIV kernel for one node.
func NewFloorDiv() ops.Kernel { return &FloorDiv{} }

func init() {
	register(ops.OpFloorDiv, NewFloorDiv, [2]int{1, 3})
}

// Prepare checks the types and sets the broadcast output shape.
func (k *FloorDiv) Prepare(n *ops.Node) error {
	*k = FloorDiv{}
	a, _, _, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	if err := requireType(a, "input 0", ops.Float32, ops.Int8, ops.Int16, ops.Int32); err != nil {
		return err
	}
	k.typ = a.Type
	return nil
}

// Eval computes the floored quotients.
func (k *FloorDiv) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("FLOOR_DIV: input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	switch k.typ {
	case ops.Float32:
		return floorDivide(k, a.Float32s(), b.Float32s(), out.Float32s(), b.NumElements())
	case ops.Int8:
		return floorDivide(k, a.Int8s(), b.Int8s(), out.Int8s(), b.NumElements())
	case ops.Int16:
		return floorDivide(k, a.Int16s(), b.Int16s(), out.Int16s(), b.NumElements())
	default:
		return floorDivide(k, a.Int32s(), b.Int32s(), out.Int32s(), b.NumElements())
	}
}

func floorDivide[T float32 | int8 | int16 | int32](k *FloorDiv, a, b, out []T, nb int) error {
	if i := indexOfZero(b[:nb]); i >= 0 {
		return fmt.Errorf("FLOOR_DIV: input 1: element %d is 0 (division by zero)", i)
	}
	if k.typ == ops.Float32 {
		broadcastMap(&k.bc, a, b, out, func(x, y T) T {
			return T(math.Floor(float64(x) / float64(y)))
		})
		return nil
	}
	// Integer quotients are integral doubles within ±2^31; converting
	// through int64 and truncating wraps the one out-of-range case as
	// x86's conversion does.
	broadcastMap(&k.bc, a, b, out, func(x, y T) T {
		return T(int64(math.Floor(float64(x) / float64(y))))
	})
	return nil
}
