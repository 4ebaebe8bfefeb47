package ops

import (
	"errors"
	"fmt"
)

// MaximumMinimum is the kernel of TFLite's MAXIMUM and MINIMUM operators:
// out[i] = a[i] > b[i] ? a[i] : b[i] (MAXIMUM) or a[i] < b[i] ? a[i] :
// b[i] (MINIMUM) with numpy-style broadcasting, as TFLite's
// maximum_minimum.cc. Inputs and output share one type: float32, int8,
// uint8, int16, int32 or int64. Quantised values are compared raw (TFLite
// does not rescale; the converter gives all three tensors one
// quantisation). With a NaN in either input the result is b's element,
// which is what the conditional selects.
type MaximumMinimum struct {
	max bool
	bc  broadcast
	typ DataType
}

// NewMaximum returns a MAXIMUM kernel for one node.
func NewMaximum() Kernel { return &MaximumMinimum{max: true} }

// NewMinimum returns a MINIMUM kernel for one node.
func NewMinimum() Kernel { return &MaximumMinimum{} }

func (k *MaximumMinimum) name() string {
	if k.max {
		return "MAXIMUM"
	}
	return "MINIMUM"
}

// Prepare checks the types and sets the broadcast output shape.
func (k *MaximumMinimum) Prepare(n *Node) error {
	isMax := k.max
	*k = MaximumMinimum{max: isMax}
	a, _, _, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	if err := requireType(a, "input 0", Float32, Int8, Uint8, Int16, Int32, Int64); err != nil {
		return fmt.Errorf("%v for %s", err, k.name())
	}
	k.typ = a.Type
	return nil
}

// Eval computes the element-wise maximum or minimum.
func (k *MaximumMinimum) Eval(n *Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New(k.name() + ": input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	switch k.typ {
	case Float32:
		maxMin(k, a.Float32s(), b.Float32s(), out.Float32s())
	case Int8:
		maxMin(k, a.Int8s(), b.Int8s(), out.Int8s())
	case Uint8:
		maxMin(k, a.Data, b.Data, out.Data)
	case Int16:
		maxMin(k, a.Int16s(), b.Int16s(), out.Int16s())
	case Int32:
		maxMin(k, a.Int32s(), b.Int32s(), out.Int32s())
	case Int64:
		maxMin(k, a.Int64s(), b.Int64s(), out.Int64s())
	}
	return nil
}

func maxMin[T float32 | int8 | uint8 | int16 | int32 | int64](k *MaximumMinimum, a, b, out []T) {
	if k.max {
		broadcastMap(&k.bc, a, b, out, func(x, y T) T {
			if x > y {
				return x
			}
			return y
		})
		return
	}
	broadcastMap(&k.bc, a, b, out, func(x, y T) T {
		if x < y {
			return x
		}
		return y
	})
}
