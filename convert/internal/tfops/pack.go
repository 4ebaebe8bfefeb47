package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Pack", Outputs: "output:T", MinInputs: 1, Infer: inferPack, Fold: foldPack, Legalize: rule(legalizePack)})
}

func inferPack(n *ir.Node) error {
	if len(n.Inputs) == 0 {
		return fmt.Errorf("Pack has no inputs")
	}
	var s ir.Shape
	for i, in := range n.Inputs {
		if in == nil {
			return fmt.Errorf("input %d is missing", i)
		}
		if i == 0 {
			s = in.Shape.Clone()
			continue
		}
		m, ok := ir.Merge(s, in.Shape)
		if !ok {
			return fmt.Errorf("Pack inputs have shapes %s and %s", s, in.Shape)
		}
		s = m
	}
	if s == nil {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	axis, err := n.AttrInt("axis", 0)
	if err != nil {
		return err
	}
	a, err := normAxis(int(axis), len(s)+1)
	if err != nil {
		return err
	}
	out := append(append(append(ir.Shape{}, s[:a]...), len(n.Inputs)), s[a:]...)
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func foldPack(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	out := n.Outputs[0].Shape
	if !out.Static() {
		return nil, nil
	}
	axis, _ := n.AttrInt("axis", 0)
	a, err := normAxis(int(axis), len(out))
	if err != nil {
		return nil, err
	}
	ts := make([]*ir.Tensor, len(in))
	for i, t := range in {
		s := append(append(append(ir.Shape{}, t.Shape[:a]...), 1), t.Shape[a:]...)
		if ts[i], err = t.Reshaped(s); err != nil {
			return nil, err
		}
		if t.DType != in[0].DType {
			return nil, fmt.Errorf("Pack inputs have types %s and %s", in[0].DType, t.DType)
		}
	}
	return []*ir.Tensor{concatTensors(ts, a, out)}, nil
}

func legalizePack(c *ctx) error {
	axis, err := c.n.AttrInt("axis", 0)
	if err != nil {
		return err
	}
	out, err := static(c.n.Outputs[0])
	if err != nil {
		return err
	}
	if axis < 0 {
		axis += int64(len(out))
	}
	return c.same(schema.BuiltinOperatorPACK, &schema.PackOptionsT{ValuesCount: int32(len(c.n.Inputs)), Axis: int32(axis)}, c.n.Inputs...)
}
