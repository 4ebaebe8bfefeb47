package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Fill is the kernel of TFLite's FILL operator: an output of the shape held
// by input 0 (a constant int32 or int64 vector of non-negative sizes)
// with every element equal to input 1, a scalar (rank 0) whose type the
// output takes. As TFLite's fill.cc, a quantised int8 or int16 value must
// share the output's scale and zero point. Types: any fixed-size type.
type Fill struct {
	elem  int
	count int
	shape []int // Eval's shape buffer when the dims are not constant
}

// NewFill returns a FILL kernel for one node.
func NewFill() ops.Kernel { return &Fill{} }

func init() {
	register(ops.OpFill, NewFill, [2]int{1, 5})
}

// Prepare validates the node and sets the output shape.
func (k *Fill) Prepare(n *ops.Node) error {
	*k = Fill{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	dt, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	val, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if val.Rank() != 0 {
		return fmt.Errorf("input 1 (value): shape %v, need a scalar", val.Shape)
	}
	if val.Type.Size() == 0 {
		return fmt.Errorf("input 1 (value): type %s is not supported", val.Type)
	}
	if out.Type != val.Type {
		return fmt.Errorf("output 0: type %s differs from the value's %s", out.Type, val.Type)
	}
	if (val.Type == ops.Int8 || val.Type == ops.Int16) && isQuantized(val) &&
		(val.Scale() != out.Scale() || val.ZeroPoint() != out.ZeroPoint()) {
		return fmt.Errorf("output 0: quantization (scale %g, zero point %d) differs from the value's (%g, %d)",
			out.Scale(), out.ZeroPoint(), val.Scale(), val.ZeroPoint())
	}
	k.elem = val.Type.Size()
	if (dt.Type == ops.Int32 || dt.Type == ops.Int64) && dt.Rank() == 1 && dt.Kind != ops.ConstTensor {
		if dt.Shape[0] > maxDynamicRank {
			return fmt.Errorf("input 0 (dims): %d dimensions, at most %d are supported", dt.Shape[0], maxDynamicRank)
		}
		k.shape = make([]int, dt.Shape[0])
		return n.SetOutputDynamic(0)
	}
	dims, err := constIntVector(dt, "input 0 (dims)", -1)
	if err != nil {
		return err
	}
	shape := make([]int, len(dims))
	if err := fillShape(shape, dt, dims); err != nil {
		return err
	}
	if k.count, err = ops.ShapeElements(shape, k.elem); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	return nil
}

// maxDynamicRank bounds the rank of an output sized at Eval from a
// shape vector (TFLite's kernels accept any; 16 is far above what real
// models use and keeps Prepare's buffer small).
const maxDynamicRank = 16

// fillShape checks the dims (from dims, or read from t when dims is nil)
// and writes them into shape.
func fillShape(shape []int, t *ops.Tensor, dims []int64) error {
	for i := range shape {
		var d int64
		switch {
		case dims != nil:
			d = dims[i]
		case t.Type == ops.Int32:
			d = int64(t.Int32s()[i])
		default:
			d = t.Int64s()[i]
		}
		if d < 0 || d > math.MaxInt32 {
			return fmt.Errorf("input 0 (dims): entry %d is %d; sizes must be in [0, 2^31)", i, d)
		}
		shape[i] = int(d)
	}
	return nil
}

// Eval writes the value everywhere.
func (k *Fill) Eval(n *ops.Node) error {
	val, out := n.Input(1), n.Output(0)
	if val == nil || out == nil {
		return errors.New("FILL: input or output missing at Eval")
	}
	if k.shape != nil {
		dt := n.Input(0)
		if dt == nil || len(dt.Data) < len(k.shape)*dt.Type.Size() {
			return errors.New("input 0 (dims): data missing at Eval")
		}
		if err := fillShape(k.shape, dt, nil); err != nil {
			return err
		}
		var err error
		if k.count, err = ops.ShapeElements(k.shape, k.elem); err != nil {
			return fmt.Errorf("output 0: dims %v: %v", k.shape, err)
		}
		if err := n.ResizeOutput(0, k.shape); err != nil {
			return err
		}
	}
	if err := checkData(val, out); err != nil {
		return err
	}
	o := out.Data[:k.count*k.elem]
	if len(o) == 0 {
		return nil
	}
	copy(o, val.Data[:k.elem])
	for filled := k.elem; filled < len(o); filled *= 2 {
		copy(o[filled:], o[:filled])
	}
	return nil
}
