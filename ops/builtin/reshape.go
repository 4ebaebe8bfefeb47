package builtin

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Reshape is the kernel of TFLite's RESHAPE operator: the output holds the
// input's elements, in order, under a new shape.
//
// Inputs: 0 the data (any fixed-size element type), 1 the new shape
// (optional). As in TFLite's reshape.cc, the shape comes from input 1 when
// it is present and is a 1-D int32 tensor; otherwise from
// ReshapeOptions.NewShape, where the legacy value [0] means a scalar (no
// options at all also give a scalar). One dimension may be -1 and is
// inferred; the output must have as many elements as the input, else
// Prepare (or Eval) fails.
//
// When input 1 is not a constant tensor its values are only known at
// Eval: as TFLite's reshape.cc (SetTensorToDynamic), Prepare makes the
// output a dynamic tensor and Eval resolves the shape into a buffer the
// kernel allocated at Prepare and resizes the output to it
// (Node.ResizeOutput), so the operators that read it are prepared with
// the real shape. Eval copies the data, unless the interpreter's planner
// gave the output its input's buffer (the operator being the input's last
// reader), when there is nothing to copy.
type Reshape struct {
	dynamic  bool
	shapeBuf []int
}

// NewReshape returns a RESHAPE kernel for one node.
func NewReshape() ops.Kernel { return &Reshape{} }

// ReshapeOptions is TFLite's ReshapeOptions. NewShape is nil when the
// model does not give the field.
type ReshapeOptions struct {
	NewShape []int
}

func init() {
	register(ops.OpReshape, NewReshape, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsReshapeOptions, decodeReshapeOptions)
}

// maxReshapeDims is the most dimensions ReshapeOptions.new_shape may have
// (TFLite's TFLITE_RESHAPE_PARAMS_MAX_DIMENSION_COUNT).
const maxReshapeDims = 8

// decodeReshapeOptions decodes TFLite's ReshapeOptions table.
func decodeReshapeOptions(t ops.OptionsTable) (any, error) {
	var o schema.ReshapeOptions
	initTable(&o, t)
	r := &ReshapeOptions{}
	if n := o.NewShapeLength(); n > maxReshapeDims {
		// TFLite's parser copies new_shape into a fixed array of 8.
		return nil, fmt.Errorf("new_shape has %d dimensions, at most %d are allowed", n, maxReshapeDims)
	}
	if o.NewShapeLength() > 0 {
		r.NewShape = intList(o.NewShapeLength(), o.NewShape)
	}
	return r, nil
}

// Prepare validates the node and sets the output shape (see Reshape).
func (k *Reshape) Prepare(n *ops.Node) error {
	*k = Reshape{}
	if err := n.CheckIO(1, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if in.Type.Size() == 0 {
		return fmt.Errorf("input 0: type %s has no fixed element size", in.Type)
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	inElems, err := numElementsChecked(in, "input 0")
	if err != nil {
		return err
	}
	if shape := n.Input(1); shape != nil && shape.Rank() == 1 && shape.Type == ops.Int32 {
		dims := shape.Shape[0]
		if dims > 16 {
			return fmt.Errorf("input 1 (shape): %d dimensions is more than the 16 supported", dims)
		}
		if shape.Kind != ops.ConstTensor {
			k.dynamic = true
			k.shapeBuf = make([]int, dims)
			return n.SetOutputDynamic(0)
		}
		if len(shape.Data) < 4*dims {
			return fmt.Errorf("input 1 (shape): constant data has %d bytes, need %d", len(shape.Data), 4*dims)
		}
		newShape := make([]int, dims)
		for i, v := range shape.Int32s()[:dims] {
			newShape[i] = int(v)
		}
		if err := resolveReshape(newShape, inElems); err != nil {
			return fmt.Errorf("input 1 (shape) %v: %v", shape.Int32s()[:dims], err)
		}
		out.Shape = newShape
		return nil
	}
	var newShape []int
	if o, ok := n.Options.(*ReshapeOptions); ok && o != nil {
		newShape = copyShape(o.NewShape)
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *ReshapeOptions", n.Options)
	}
	if len(newShape) == 1 && newShape[0] == 0 {
		// Legacy converters wrote [0] for a scalar.
		newShape = newShape[:0]
	}
	if err := resolveReshape(newShape, inElems); err != nil {
		return fmt.Errorf("options new_shape %v: %v", newShape, err)
	}
	out.Shape = newShape
	return nil
}

// resolveReshape fills in the -1 dimension of dims (in place) and checks
// the element count against inElems, with TFLite's rules: zero-sized
// dimensions are left out of the inference, and a -1 becomes 0 when the
// input is empty but the rest of the shape is not.
func resolveReshape(dims []int, inElems int) error {
	stretch := -1
	nonZeroOut, outElems := int64(1), int64(1)
	for i, d := range dims {
		switch {
		case d == -1:
			if stretch != -1 {
				return errors.New("more than one dimension is -1")
			}
			stretch = i
			continue
		case d < -1:
			return fmt.Errorf("dimension %d is %d", i, d)
		case d != 0:
			nonZeroOut *= int64(d)
		}
		outElems *= int64(d)
		if outElems > math.MaxInt32 || nonZeroOut > math.MaxInt32 {
			return errors.New("shape has more than 2^31-1 elements")
		}
	}
	if stretch != -1 {
		nonZeroIn := int64(1)
		// The input element count is known; its non-zero product equals it
		// unless it is 0, in which case TFLite infers 0.
		if inElems == 0 && outElems != 0 {
			dims[stretch] = 0
		} else {
			if inElems != 0 {
				nonZeroIn = int64(inElems)
			}
			dims[stretch] = int(nonZeroIn / nonZeroOut)
		}
		outElems *= int64(dims[stretch])
	}
	if outElems != int64(inElems) {
		return fmt.Errorf("%v has %d elements, input has %d", dims, outElems, inElems)
	}
	return nil
}

// Eval copies the data (nothing when output and input share a buffer),
// first resolving the shape when it comes from a non-constant tensor.
func (k *Reshape) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("RESHAPE: input or output missing at Eval")
	}
	nbytes := in.Bytes()
	if k.dynamic {
		shape := n.Input(1)
		if shape == nil || len(shape.Data) < 4*len(k.shapeBuf) {
			return errors.New("input 1 (shape): data missing at Eval")
		}
		for i, v := range shape.Int32s()[:len(k.shapeBuf)] {
			k.shapeBuf[i] = int(v)
		}
		if err := resolveReshape(k.shapeBuf, in.NumElements()); err != nil {
			return fmt.Errorf("input 1 (shape) %v for input 0 of shape %v: %v", shape.Int32s()[:len(k.shapeBuf)], in.Shape, err)
		}
		if err := n.ResizeOutput(0, k.shapeBuf); err != nil {
			return err
		}
	}
	if len(in.Data) < nbytes || len(out.Data) < nbytes {
		return errShortData
	}
	if nbytes > 0 && unsafe.SliceData(out.Data) == unsafe.SliceData(in.Data) {
		return nil // in place (the planner gave both the same buffer)
	}
	copy(out.Data[:nbytes], in.Data[:nbytes])
	return nil
}
