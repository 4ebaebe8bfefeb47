package flex

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// TensorListSetItem is the kernel of FlexTensorListSetItem: output 0 is
// the list input 0 with item index (input 1, int32 scalar) set to item
// (input 2). As TensorFlow's TensorListSetItem: the item's type must be
// the list's element_dtype and its shape compatible with the list's
// element shape; an index outside [0, length) is an error unless the
// attribute resize_if_index_out_of_bounds is set, which grows the list
// (a negative index is an error either way).
//
// The output is a new list value; the input list is written in place
// only when nothing else can see it: it was made by this same kernel (an
// earlier iteration of the loop around it), this node is its only
// reader, and the output is at most one of its subgraph's outputs (so a
// loop carries one copy). Otherwise the list is copied first.
type TensorListSetItem struct {
	dtype   ops.DataType
	resize  bool
	inPlace bool
}

func init() { register("FlexTensorListSetItem", func() ops.Kernel { return &TensorListSetItem{} }) }

// Prepare reads the attributes and checks the inputs.
func (k *TensorListSetItem) Prepare(n *ops.Node) error {
	nd, err := nodeDef(n, "TensorListSetItem")
	if err != nil {
		return err
	}
	if err := n.CheckIO(3, 3, 1); err != nil {
		return err
	}
	if k.dtype, err = typeAttr(nd, "element_dtype"); err != nil {
		return err
	}
	if k.resize, err = boolAttr(nd, "resize_if_index_out_of_bounds"); err != nil {
		return err
	}
	if err := checkVariantScalar(n.Input(0), "input 0 (handle)"); err != nil {
		return err
	}
	if err := checkIntScalar(n, 1, "index"); err != nil {
		return err
	}
	item := n.Input(2)
	if item == nil {
		return fmt.Errorf("input 2 (item) is missing")
	}
	if item.Type != k.dtype {
		return fmt.Errorf("input 2 (item): type %s, the op's element_dtype is %s", item.Type, k.dtype)
	}
	k.inPlace = false
	if n.Lists != nil {
		readers, outs := n.Lists.Uses(n.Input(0))
		_, outOuts := n.Lists.Uses(n.Output(0))
		k.inPlace = readers == 1 && outs == 0 && outOuts <= 1
	}
	return prepareListOutput(n)
}

// Eval sets the item.
func (k *TensorListSetItem) Eval(n *ops.Node) error {
	s, l, h, err := inputList(n, 0)
	if err != nil {
		return err
	}
	item := n.Input(2)
	if l.ElemType != item.Type {
		return fmt.Errorf("invalid data types; list elements %s but tried to set %s", l.ElemType, item.Type)
	}
	if !ops.CompatibleShapes(l.ElemShape, item.Shape) {
		return fmt.Errorf("tried to set a tensor with incompatible shape %v at a list index; item element shape: %s list shape: %s",
			item.Shape, shapeString(item.Shape), shapeString(l.ElemShape))
	}
	index, err := intScalar(n, 1)
	if err != nil {
		return err
	}
	if k.resize {
		if index < 0 {
			return fmt.Errorf("input 1 (index): %d is negative", index)
		}
	} else if index < 0 || index >= l.NumElements() {
		return fmt.Errorf("input 1 (index): trying to modify element %d in a list with %d elements", index, l.NumElements())
	}
	if !(k.inPlace && l.Owner == any(k)) {
		if h, l, err = s.Copy(h, k); err != nil {
			return err
		}
	}
	if index >= l.NumElements() {
		if err := s.Resize(l, index+1); err != nil {
			return err
		}
	}
	if err := s.SetItemShape(l, item.Shape); err != nil {
		return fmt.Errorf("input 2 (item): %w", err)
	}
	dst := l.Item(index)
	if len(item.Data) < len(dst) {
		return fmt.Errorf("input 2 (item): no data")
	}
	copy(dst, item.Data[:len(dst)])
	l.MarkSet(index)
	return writeHandle(n, h)
}
