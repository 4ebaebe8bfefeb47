package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// FloorMod is the kernel of TFLite's FLOOR_MOD operator: the remainder of
// floored division, with the sign of the divisor, element-wise with
// numpy-style broadcasting. As TFLite's reference FloorMod it takes the
// truncated remainder r (C's % for integers, fmodf for float32) and adds
// b when r is nonzero and its sign differs from b's. Types: int8, int16,
// int32, int64, float32. Eval fails when an integer divisor is 0 (as
// TFLite's floor_mod.cc); a float32 divisor 0 gives NaN.
type FloorMod struct {
	bc  broadcast
	typ ops.DataType
}

// NewFloorMod returns a FLOOR_MOD kernel for one node.
func NewFloorMod() ops.Kernel { return &FloorMod{} }

func init() {
	register(ops.OpFloorMod, NewFloorMod, [2]int{1, 2})
}

// Prepare checks the types and sets the broadcast output shape.
func (k *FloorMod) Prepare(n *ops.Node) error {
	*k = FloorMod{}
	a, _, _, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	if err := requireType(a, "input 0", ops.Float32, ops.Int8, ops.Int16, ops.Int32, ops.Int64); err != nil {
		return err
	}
	k.typ = a.Type
	return nil
}

// Eval computes the remainders.
func (k *FloorMod) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("FLOOR_MOD: input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	nb := b.NumElements()
	switch k.typ {
	case ops.Float32:
		broadcastMap(&k.bc, a.Float32s(), b.Float32s(), out.Float32s(), func(x, y float32) float32 {
			r := float32(math.Mod(float64(x), float64(y))) // fmod is exact
			if r != 0 && (y < 0) != (r < 0) {
				return r + y
			}
			return r
		})
		return nil
	case ops.Int8:
		return floorModInt(k, a.Int8s(), b.Int8s()[:nb], out.Int8s())
	case ops.Int16:
		return floorModInt(k, a.Int16s(), b.Int16s()[:nb], out.Int16s())
	case ops.Int32:
		return floorModInt(k, a.Int32s(), b.Int32s()[:nb], out.Int32s())
	default:
		return floorModInt(k, a.Int64s(), b.Int64s()[:nb], out.Int64s())
	}
}

func floorModInt[T int8 | int16 | int32 | int64](k *FloorMod, a, b, out []T) error {
	if i := indexOfZero(b); i >= 0 {
		return fmt.Errorf("FLOOR_MOD: input 1: element %d is 0 (division by zero)", i)
	}
	broadcastMap(&k.bc, a, b, out, func(x, y T) T {
		r := x % y
		if r != 0 && (y < 0) != (r < 0) {
			return r + y
		}
		return r
	})
	return nil
}
