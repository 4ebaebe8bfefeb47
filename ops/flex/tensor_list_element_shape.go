package flex

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// TensorListElementShape is the kernel of FlexTensorListElementShape:
// output 0 (int32 or int64, the attribute shape_type) is the element
// shape of the list input 0 as TensorFlow's TensorListElementShape gives
// it: the scalar -1 for an unknown rank, else a vector with -1 for each
// unknown dimension. The output is a dynamic tensor sized at every Eval.
type TensorListElementShape struct {
	dims [1]int
}

func init() {
	register("FlexTensorListElementShape", func() ops.Kernel { return &TensorListElementShape{} })
}

// Prepare checks the input and output.
func (k *TensorListElementShape) Prepare(n *ops.Node) error {
	if _, err := nodeDef(n, "TensorListElementShape"); err != nil {
		return err
	}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	if err := checkVariantScalar(n.Input(0), "input 0 (handle)"); err != nil {
		return err
	}
	if out := n.Output(0); out.Type != ops.Int32 && out.Type != ops.Int64 {
		return fmt.Errorf("output 0 (shape): type %s, need int32 or int64", out.Type)
	}
	return n.SetOutputDynamic(0)
}

// Eval writes the shape.
func (k *TensorListElementShape) Eval(n *ops.Node) error {
	_, l, _, err := inputList(n, 0)
	if err != nil {
		return err
	}
	shape := k.dims[:0] // a scalar
	if l.ElemShape != nil {
		k.dims[0] = len(l.ElemShape)
		shape = k.dims[:]
	}
	if err := n.ResizeOutput(0, shape); err != nil {
		return err
	}
	out := n.Output(0)
	put := func(i, v int) {
		if out.Type == ops.Int64 {
			ops.View[int64](out.Data)[i] = int64(v)
		} else {
			ops.View[int32](out.Data)[i] = int32(v)
		}
	}
	if l.ElemShape == nil {
		put(0, -1)
		return nil
	}
	for i, d := range l.ElemShape {
		if d < 0 {
			d = -1
		}
		put(i, d)
	}
	return nil
}
