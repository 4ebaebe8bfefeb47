package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Pack is the kernel of TFLite's PACK operator: its N inputs, all of one
// shape and type, stacked along a new dimension at PackOptions.Axis
// (in [-(rank+1), rank], negative counting from the end of the output).
// PackOptions.ValuesCount must equal N. The output shape is the input shape
// with N inserted at the axis. Any fixed-size element type; quantised
// inputs must share the output's scale and zero point (values are copied,
// not rescaled). Matches TFLite's pack.cc.
type Pack struct {
	outer int // product of input dimensions before the axis
	chunk int // bytes per input slice (dimensions from the axis on)
}

// NewPack returns a PACK kernel for one node.
func NewPack() ops.Kernel { return &Pack{} }

// PackOptions is TFLite's PackOptions.
type PackOptions struct {
	ValuesCount int
	Axis        int
}

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpPack, NewPack, [2]int{1, 5})
	registerOptions(schema.BuiltinOptionsPackOptions, decodePackOptions)
}

// decodePackOptions decodes TFLite's PackOptions table.
func decodePackOptions(t ops.OptionsTable) (any, error) {
	var o schema.PackOptions
	initTable(&o, t)
	return &PackOptions{ValuesCount: int(o.ValuesCount()), Axis: int(o.Axis())}, nil
}

// Prepare validates the inputs and sets the output shape.
func (k *Pack) Prepare(n *ops.Node) error {
	*k = Pack{}
	var opts PackOptions
	if o, ok := n.Options.(*PackOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *PackOptions", n.Options)
	}
	if len(n.Inputs) < 1 || len(n.Outputs) != 1 {
		return fmt.Errorf("has %d inputs and %d outputs, needs at least 1 and 1", len(n.Inputs), len(n.Outputs))
	}
	if opts.ValuesCount != len(n.Inputs) {
		return fmt.Errorf("options: values_count %d, but the node has %d inputs", opts.ValuesCount, len(n.Inputs))
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	t0, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	if t0.Type.Size() == 0 {
		return fmt.Errorf("input 0: type %s is not supported", t0.Type)
	}
	rank := t0.Rank()
	axis := opts.Axis
	if axis < 0 {
		axis += rank + 1
	}
	if axis < 0 || axis > rank {
		return fmt.Errorf("options: axis %d is outside [%d, %d]", opts.Axis, -(rank + 1), rank)
	}
	for i, t := range n.Inputs {
		if t == nil {
			return fmt.Errorf("input %d is required but omitted", i)
		}
		if t.Type != t0.Type || !ops.SameShape(t.Shape, t0.Shape) {
			return fmt.Errorf("input %d: %s %v differs from input 0 (%s %v)", i, t.Type, t.Shape, t0.Type, t0.Shape)
		}
		if err := sameQuant(t, out, fmt.Sprintf("input %d", i)); err != nil {
			return err
		}
	}
	if out.Type != t0.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, t0.Type)
	}
	outShape := make([]int, 0, rank+1)
	outShape = append(outShape, t0.Shape[:axis]...)
	outShape = append(outShape, len(n.Inputs))
	outShape = append(outShape, t0.Shape[axis:]...)
	if _, err := ops.ShapeElements(outShape, t0.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = outShape
	k.outer, k.chunk = 1, t0.Type.Size()
	for d, v := range t0.Shape {
		if d < axis {
			k.outer *= v
		} else {
			k.chunk *= v
		}
	}
	return nil
}

// Eval interleaves the input slices.
func (k *Pack) Eval(n *ops.Node) error {
	out := n.Output(0)
	if out == nil {
		return errors.New("PACK: output missing at Eval")
	}
	if err := checkData(out); err != nil {
		return err
	}
	for _, t := range n.Inputs {
		if t == nil || len(t.Data) < k.outer*k.chunk {
			return errShortData
		}
	}
	o := 0
	for outer := 0; outer < k.outer; outer++ {
		for _, t := range n.Inputs {
			copy(out.Data[o:o+k.chunk], t.Data[outer*k.chunk:(outer+1)*k.chunk])
			o += k.chunk
		}
	}
	return nil
}
