package flex

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// TensorListGetItem is the kernel of FlexTensorListGetItem: output 0 is
// item index (input 1, int32 scalar) of the list input 0. As
// TensorFlow's TensorListGetItem: the op's element_dtype must be the
// list's, the index must be in [0, length), and an unset item reads as
// zeros of the element shape, merged from element_shape (input 2), the
// list's own and the items set so far, which must then be fully
// defined. The output is a dynamic tensor sized at every Eval.
type TensorListGetItem struct {
	dtype        ops.DataType
	shape, merge []int
}

func init() { register("FlexTensorListGetItem", func() ops.Kernel { return &TensorListGetItem{} }) }

// Prepare reads the attributes and checks the inputs.
func (k *TensorListGetItem) Prepare(n *ops.Node) error {
	nd, err := nodeDef(n, "TensorListGetItem")
	if err != nil {
		return err
	}
	if err := n.CheckIO(3, 3, 1); err != nil {
		return err
	}
	if k.dtype, err = typeAttr(nd, "element_dtype"); err != nil {
		return err
	}
	if err := checkVariantScalar(n.Input(0), "input 0 (handle)"); err != nil {
		return err
	}
	if err := checkIntScalar(n, 1, "index"); err != nil {
		return err
	}
	if err := checkShapeInput(n, 2); err != nil {
		return err
	}
	if out := n.Output(0); out == nil || out.Type != k.dtype {
		return fmt.Errorf("output 0 (item): need type %s (element_dtype)", k.dtype)
	}
	return n.SetOutputDynamic(0)
}

// Eval reads the item.
func (k *TensorListGetItem) Eval(n *ops.Node) error {
	_, l, _, err := inputList(n, 0)
	if err != nil {
		return err
	}
	if l.ElemType != k.dtype {
		return fmt.Errorf("invalid data types; op elements %s but list elements %s", k.dtype, l.ElemType)
	}
	index, err := intScalar(n, 1)
	if err != nil {
		return err
	}
	if index < 0 || index >= l.NumElements() {
		return fmt.Errorf("input 1 (index): trying to access element %d in a list with %d elements", index, l.NumElements())
	}
	shape := l.ItemShape
	if !l.IsSet(index) {
		if k.shape, err = shapeInput(n, 2, k.shape); err != nil {
			return err
		}
		if k.merge, err = elementShape(k.merge, k.shape, l); err != nil {
			return err
		}
		if !ops.FullyDefined(k.merge) {
			return fmt.Errorf("trying to read an uninitialized tensor but element_shape is not fully defined: %s and no list element is set", shapeString(k.merge))
		}
		if l.ItemShape != nil && !ops.SameShape(l.ItemShape, k.merge) {
			return fmt.Errorf("element shape %v differs from the list's items' %v", k.merge, l.ItemShape)
		}
		shape = k.merge
	}
	if err := n.ResizeOutput(0, shape); err != nil {
		return err
	}
	out := n.Output(0)
	if !l.IsSet(index) {
		clear(out.Data)
		return nil
	}
	copy(out.Data, l.Item(index))
	return nil
}

// elementShape merges the op's element_shape input with the list's own
// and, when that is not fully defined, with the shape of the items set
// so far (tflrun's lists give all their items one shape), into dst.
func elementShape(dst, input []int, l *ops.TensorList) ([]int, error) {
	dst, err := mergeShapes(dst, input, l.ElemShape)
	if err != nil {
		return nil, fmt.Errorf("element_shape: %w", err)
	}
	if ops.FullyDefined(l.ElemShape) || l.ItemShape == nil {
		return dst, nil
	}
	for i := 0; i < l.NumElements(); i++ {
		if l.IsSet(i) {
			merged, err := mergeShapes(dst, dst, l.ItemShape)
			if err != nil {
				return nil, fmt.Errorf("element_shape: %w", err)
			}
			return merged, nil
		}
	}
	return dst, nil
}
