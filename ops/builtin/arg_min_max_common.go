package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// ArgMinMax is the kernel of TFLite's ARG_MAX and ARG_MIN operators: the
// index of the largest (smallest) element of input 0 along the axis given
// by input 1, a constant int32 or int64 tensor of one element (negative
// counting from the end). The output has the input's shape without that
// axis and the index type of ArgMinMaxOptions.OutputType (int32 or int64).
//
// As TFLite's arg_min_max.cc: input types float32, uint8, int8, int32 and
// bool (false < true); ties give the first index, since an element
// replaces the running best only when strictly greater (smaller); the
// axis must not be empty. The operator's file (arg_max.go, arg_min.go)
// holds its constructor.
type ArgMinMax struct {
	max                    bool
	typ, outType           ops.DataType
	outer, axisSize, inner int
}

func (k *ArgMinMax) name() string {
	if k.max {
		return "ARG_MAX"
	}
	return "ARG_MIN"
}

// Prepare validates the node and sets the output shape.
func (k *ArgMinMax) Prepare(n *ops.Node) error {
	isMax := k.max
	*k = ArgMinMax{max: isMax}
	outType := ops.Int64 // the schema default
	if o, ok := n.Options.(*ArgMinMaxOptions); ok && o != nil {
		outType = o.OutputType
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *ArgMinMaxOptions", n.Options)
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	axisT, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Uint8, ops.Int8, ops.Int32, ops.Bool); err != nil {
		return fmt.Errorf("%v for %s", err, k.name())
	}
	if outType != ops.Int32 && outType != ops.Int64 {
		return fmt.Errorf("options: output type %s, need int32 or int64", outType)
	}
	if out.Type != outType {
		return fmt.Errorf("output 0: type %s, the options say %s", out.Type, outType)
	}
	if axisT.NumElements() != 1 || axisT.Type != ops.Int32 && axisT.Type != ops.Int64 {
		return fmt.Errorf("input 1 (axis): %s with %d elements, need one int32 or int64", axisT.Type, axisT.NumElements())
	}
	if axisT.Kind != ops.ConstTensor || len(axisT.Data) < axisT.Type.Size() {
		return ops.NotConstant("input 1 (axis)")
	}
	var ax int64
	if axisT.Type == ops.Int32 {
		ax = int64(axisT.Int32s()[0])
	} else {
		ax = axisT.Int64s()[0]
	}
	rank := int64(in.Rank())
	if ax < 0 {
		ax += rank
	}
	if rank < 1 || ax < 0 || ax >= rank {
		return fmt.Errorf("input 1 (axis): axis %d is outside an input of rank %d", ax, rank)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	a := int(ax)
	if in.Shape[a] == 0 {
		return fmt.Errorf("input 0: dimension %d (the axis) is empty", a)
	}
	k.typ, k.outType = in.Type, outType
	k.outer, k.axisSize, k.inner = 1, in.Shape[a], 1
	shape := make([]int, 0, in.Rank()-1)
	for i, d := range in.Shape {
		switch {
		case i < a:
			k.outer *= d
		case i > a:
			k.inner *= d
		}
		if i != a {
			shape = append(shape, d)
		}
	}
	out.Shape = shape
	return nil
}

// Eval finds the indices.
func (k *ArgMinMax) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New(k.name() + ": input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	switch k.typ {
	case ops.Float32:
		argMinMax(k, in.Float32s(), out)
	case ops.Uint8:
		argMinMax(k, in.Data, out)
	case ops.Int8:
		argMinMax(k, in.Int8s(), out)
	case ops.Int32:
		argMinMax(k, in.Int32s(), out)
	case ops.Bool:
		// Compare as 0/1 bytes: false < true.
		argMinMax(k, in.Data, out)
	}
	return nil
}

func argMinMax[T float32 | uint8 | int8 | int32](k *ArgMinMax, in []T, out *ops.Tensor) {
	var o32 []int32
	var o64 []int64
	if k.outType == ops.Int32 {
		o32 = out.Int32s()
	} else {
		o64 = out.Int64s()
	}
	for o := 0; o < k.outer; o++ {
		for j := 0; j < k.inner; j++ {
			base := o*k.axisSize*k.inner + j
			best, bi := in[base], 0
			for i := 1; i < k.axisSize; i++ {
				v := in[base+i*k.inner]
				if k.max && v > best || !k.max && v < best {
					best, bi = v, i
				}
			}
			if o32 != nil {
				o32[o*k.inner+j] = int32(bi)
			} else {
				o64[o*k.inner+j] = int64(bi)
			}
		}
	}
}

// ArgMinMaxOptions is TFLite's ArgMaxOptions and ArgMinOptions
// (operators ARG_MAX and ARG_MIN): the type of the index output.
type ArgMinMaxOptions struct {
	OutputType ops.DataType
}
