package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Shape is the kernel of TFLite's SHAPE operator: the dimensions of input
// 0 as a vector of ShapeOptions.OutType (int32 or int64). A node without
// ShapeOptions is refused, as TFLite refuses it (its parser leaves the
// type unset and shape.cc's Prepare fails on it; checked with native
// TFLite, LiteRT f67457790c9c).
type Shape struct {
	dims []int
}

// NewShape returns a SHAPE kernel for one node.
func NewShape() ops.Kernel { return &Shape{} }

// ShapeOptions is TFLite's ShapeOptions (operator SHAPE): the type of the
// output, int32 or int64.
type ShapeOptions struct {
	OutType ops.DataType
}

func init() {
	register(ops.OpShape, NewShape, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsShapeOptions, decodeShapeOptions)
}

// decodeShapeOptions decodes TFLite's ShapeOptions table.
func decodeShapeOptions(t ops.OptionsTable) (any, error) {
	var o schema.ShapeOptions
	initTable(&o, t)
	return &ShapeOptions{OutType: ops.DataType(o.OutType())}, nil
}

// Prepare checks the output type and sets its shape [rank].
func (k *Shape) Prepare(n *ops.Node) error {
	*k = Shape{}
	o, ok := n.Options.(*ShapeOptions)
	if !ok || o == nil {
		if n.Options != nil {
			return fmt.Errorf("options: have %T, need *ShapeOptions", n.Options)
		}
		return errors.New("options: ShapeOptions missing (TFLite needs its out_type)")
	}
	outType := o.OutType
	if err := n.CheckIO(1, 1, 1); err != nil {
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
	if outType != ops.Int32 && outType != ops.Int64 {
		return fmt.Errorf("options: out_type %s, need int32 or int64", outType)
	}
	if out.Type != outType {
		return fmt.Errorf("output 0: type %s, the options say %s", out.Type, outType)
	}
	k.dims = copyShape(in.Shape)
	out.Shape = []int{len(k.dims)}
	return nil
}

// Eval writes the dimensions.
func (k *Shape) Eval(n *ops.Node) error {
	out := n.Output(0)
	if out == nil {
		return errors.New("SHAPE: output missing at Eval")
	}
	if err := checkData(out); err != nil {
		return err
	}
	for i, d := range k.dims {
		if out.Type == ops.Int32 {
			out.Int32s()[i] = int32(d)
		} else {
			out.Int64s()[i] = int64(d)
		}
	}
	return nil
}
