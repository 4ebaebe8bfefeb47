package flex

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// TensorListStack is the kernel of FlexTensorListStack: output 0 stacks
// the items of the list input 0 along a new first dimension, [length,
// element shape...], unset items as zeros. As TensorFlow's
// TensorListStack: the op's element_dtype must be the list's, the
// attribute num_elements (when not -1) must be the list's length, and
// the element shape, merged from element_shape (input 1), the list's own
// and its set items, must be fully defined. The output is a dynamic
// tensor sized at every Eval.
type TensorListStack struct {
	dtype        ops.DataType
	num          int64
	shape, merge []int
	outShape     []int
}

func init() { register("FlexTensorListStack", func() ops.Kernel { return &TensorListStack{} }) }

// Prepare reads the attributes and checks the inputs.
func (k *TensorListStack) Prepare(n *ops.Node) error {
	nd, err := nodeDef(n, "TensorListStack")
	if err != nil {
		return err
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	if k.dtype, err = typeAttr(nd, "element_dtype"); err != nil {
		return err
	}
	if k.num, err = intAttr(nd, "num_elements", -1); err != nil {
		return err
	}
	if err := checkVariantScalar(n.Input(0), "input 0 (handle)"); err != nil {
		return err
	}
	if err := checkShapeInput(n, 1); err != nil {
		return err
	}
	if out := n.Output(0); out == nil || out.Type != k.dtype {
		return fmt.Errorf("output 0 (tensor): need type %s (element_dtype)", k.dtype)
	}
	return n.SetOutputDynamic(0)
}

// Eval stacks the items.
func (k *TensorListStack) Eval(n *ops.Node) error {
	_, l, _, err := inputList(n, 0)
	if err != nil {
		return err
	}
	if l.ElemType != k.dtype {
		return fmt.Errorf("invalid data types; op elements %s but list elements %s", k.dtype, l.ElemType)
	}
	if k.num != -1 && int64(l.NumElements()) != k.num {
		return fmt.Errorf("operation expected a list with %d elements but got a list with %d elements", k.num, l.NumElements())
	}
	if k.shape, err = shapeInput(n, 1, k.shape); err != nil {
		return err
	}
	if k.merge, err = elementShape(k.merge, k.shape, l); err != nil {
		return err
	}
	if !ops.FullyDefined(k.merge) {
		if l.NumElements() == 0 {
			return fmt.Errorf("tried to stack elements of an empty list with non-fully-defined element_shape: %s", shapeString(k.merge))
		}
		return fmt.Errorf("tried to stack list which only contains uninitialized tensors and has a non-fully-defined element_shape: %s", shapeString(k.merge))
	}
	if l.ItemShape != nil && !ops.SameShape(l.ItemShape, k.merge) {
		return fmt.Errorf("element shape %v differs from the list's items' %v", k.merge, l.ItemShape)
	}
	k.outShape = append(append(k.outShape[:0], l.NumElements()), k.merge...)
	if err := n.ResizeOutput(0, k.outShape); err != nil {
		return err
	}
	out := n.Output(0)
	if l.NumElements() == 0 || len(out.Data) == 0 {
		return nil
	}
	size := len(out.Data) / l.NumElements()
	for i := 0; i < l.NumElements(); i++ {
		dst := out.Data[i*size : (i+1)*size]
		if l.IsSet(i) {
			copy(dst, l.Item(i))
		} else {
			clear(dst)
		}
	}
	return nil
}
