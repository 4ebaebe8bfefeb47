package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Unpack", Outputs: "output:T*num", MinInputs: 1, Infer: inferUnpack, Fold: foldUnpack, Legalize: rule(legalizeUnpack)})
}

func inferUnpack(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	axis, err := n.AttrInt("axis", 0)
	if err != nil {
		return err
	}
	if s == nil {
		return nil
	}
	a, err := normAxis(int(axis), len(s))
	if err != nil {
		return err
	}
	if s[a] >= 0 && s[a] != len(n.Outputs) {
		return fmt.Errorf("Unpack of %d outputs along axis %d of %s", len(n.Outputs), axis, s)
	}
	out := append(append(ir.Shape{}, s[:a]...), s[a+1:]...)
	for i := range n.Outputs {
		setOut(n, i, n.Inputs[0].DType, out.Clone())
	}
	return nil
}

func foldUnpack(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	axis, _ := n.AttrInt("axis", 0)
	t := in[0]
	a, err := normAxis(int(axis), len(t.Shape))
	if err != nil {
		return nil, err
	}
	var outs []*ir.Tensor
	for i := range n.Outputs {
		begin := make([]int, len(t.Shape))
		size := t.Shape.Clone()
		begin[a], size[a] = i, 1
		s := sliceTensor(t, begin, size)
		r, err := s.Reshaped(n.Outputs[i].Shape)
		if err != nil {
			return nil, err
		}
		outs = append(outs, r)
	}
	return outs, nil
}

func legalizeUnpack(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	s, err := static(x)
	if err != nil {
		return err
	}
	axis, err := c.n.AttrInt("axis", 0)
	if err != nil {
		return err
	}
	if axis < 0 {
		axis += int64(len(s))
	}
	return c.same(schema.BuiltinOperatorUNPACK, &schema.UnpackOptionsT{Num: int32(len(c.n.Outputs)), Axis: int32(axis)}, x)
}
