package flex

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// TensorListFromTensor is the kernel of FlexTensorListFromTensor: a new
// list whose items are the slices of input 0 along its first dimension,
// with element shape element_shape (input 1). As TensorFlow's
// TensorListFromTensor: input 0 must be at least a vector of the op's
// element_dtype, and element_shape must be compatible with its slices'
// shape.
type TensorListFromTensor struct {
	dtype ops.DataType
	shape []int
}

func init() {
	register("FlexTensorListFromTensor", func() ops.Kernel { return &TensorListFromTensor{} })
}

// Prepare reads the attributes and checks the inputs.
func (k *TensorListFromTensor) Prepare(n *ops.Node) error {
	nd, err := nodeDef(n, "TensorListFromTensor")
	if err != nil {
		return err
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	if k.dtype, err = typeAttr(nd, "element_dtype"); err != nil {
		return err
	}
	t := n.Input(0)
	if t == nil {
		return fmt.Errorf("input 0 (tensor) is missing")
	}
	if t.Type != k.dtype {
		return fmt.Errorf("input 0 (tensor): type %s, the op's element_dtype is %s", t.Type, k.dtype)
	}
	if t.Shape != nil && len(t.Shape) < 1 {
		return fmt.Errorf("input 0 (tensor): tensor must be at least a vector, but saw shape %v", t.Shape)
	}
	if err := checkShapeInput(n, 1); err != nil {
		return err
	}
	return prepareListOutput(n)
}

// Eval makes the list.
func (k *TensorListFromTensor) Eval(n *ops.Node) error {
	s, err := store(n)
	if err != nil {
		return err
	}
	if k.shape, err = shapeInput(n, 1, k.shape); err != nil {
		return err
	}
	t := n.Input(0)
	if len(t.Shape) < 1 {
		return fmt.Errorf("input 0 (tensor): tensor must be at least a vector, but saw shape %v", t.Shape)
	}
	if !ops.CompatibleShapes(k.shape, t.Shape[1:]) {
		return fmt.Errorf("specified a list with shape %s from a tensor with shape %s", shapeString(k.shape), shapeString(t.Shape[1:]))
	}
	h, l, err := s.New(k.dtype, k.shape, 0, nil)
	if err != nil {
		return err
	}
	if err := s.SetItemShape(l, t.Shape[1:]); err != nil {
		return err
	}
	if err := s.Resize(l, t.Shape[0]); err != nil {
		return err
	}
	if len(t.Data) < t.Bytes() {
		return fmt.Errorf("input 0 (tensor): no data")
	}
	for i := 0; i < l.NumElements(); i++ {
		copy(l.Item(i), t.Data[i*l.ItemBytes():])
		l.MarkSet(i)
	}
	return writeHandle(n, h)
}
