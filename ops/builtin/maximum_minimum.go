package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
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
	typ ops.DataType
}

// NewMaximum returns a MAXIMUM kernel for one node.
func NewMaximum() ops.Kernel { return &MaximumMinimum{max: true} }

// NewMinimum returns a MINIMUM kernel for one node.
func NewMinimum() ops.Kernel { return &MaximumMinimum{} }

func (k *MaximumMinimum) name() string {
	if k.max {
		return "MAXIMUM"
	}
	return "MINIMUM"
}

// Prepare checks the types and sets the broadcast output shape.
func (k *MaximumMinimum) Prepare(n *ops.Node) error {
	isMax := k.max
	*k = MaximumMinimum{max: isMax}
	a, _, _, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	if err := requireType(a, "input 0", ops.Float32, ops.Int8, ops.Uint8, ops.Int16, ops.Int32, ops.Int64); err != nil {
		return fmt.Errorf("%v for %s", err, k.name())
	}
	k.typ = a.Type
	return nil
}

// Eval computes the element-wise maximum or minimum.
func (k *MaximumMinimum) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New(k.name() + ": input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	switch k.typ {
	case ops.Float32:
		maxMin(k, a.Float32s(), b.Float32s(), out.Float32s())
	case ops.Int8:
		maxMin(k, a.Int8s(), b.Int8s(), out.Int8s())
	case ops.Uint8:
		maxMin(k, a.Data, b.Data, out.Data)
	case ops.Int16:
		maxMin(k, a.Int16s(), b.Int16s(), out.Int16s())
	case ops.Int32:
		maxMin(k, a.Int32s(), b.Int32s(), out.Int32s())
	case ops.Int64:
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
