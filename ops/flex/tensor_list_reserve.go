package flex

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// TensorListReserve is the kernel of FlexTensorListReserve: a new list of
// num_elements (input 1, int32 scalar) unset items of type element_dtype
// (attribute) and element shape element_shape (input 0, int32 or int64:
// a vector with -1 for unknown dimensions, or the scalar -1 for an
// unknown rank). As TensorFlow's TensorListReserve, a negative
// num_elements is an error; a list larger than the memory bound is an
// error before anything is allocated.
type TensorListReserve struct {
	dtype ops.DataType
	shape []int
}

func init() { register("FlexTensorListReserve", func() ops.Kernel { return &TensorListReserve{} }) }

// Prepare reads the attributes and checks the inputs.
func (k *TensorListReserve) Prepare(n *ops.Node) error {
	nd, err := nodeDef(n, "TensorListReserve")
	if err != nil {
		return err
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	if k.dtype, err = typeAttr(nd, "element_dtype"); err != nil {
		return err
	}
	if err := checkShapeInput(n, 0); err != nil {
		return err
	}
	if err := checkIntScalar(n, 1, "num_elements"); err != nil {
		return err
	}
	return prepareListOutput(n)
}

// Eval makes the list.
func (k *TensorListReserve) Eval(n *ops.Node) error {
	s, err := store(n)
	if err != nil {
		return err
	}
	if k.shape, err = shapeInput(n, 0, k.shape); err != nil {
		return err
	}
	num, err := intScalar(n, 1)
	if err != nil {
		return err
	}
	if num < 0 {
		return fmt.Errorf("input 1 (num_elements): the num_elements to reserve must be a non negative number, but got %d", num)
	}
	h, _, err := s.New(k.dtype, k.shape, num, nil)
	if err != nil {
		return err
	}
	return writeHandle(n, h)
}
