package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "ArgMax", Outputs: "output:output_type=int64", MinInputs: 2, Infer: inferArgMax, Fold: foldArgMax, Legalize: rule(legalizeArgMax)})
	ir.RegisterOp(ir.OpRecord{Name: "ArgMin", Outputs: "output:output_type=int64", MinInputs: 2, Infer: inferArgMax, Fold: foldArgMax, Legalize: rule(legalizeArgMax)})
}

func inferArgMax(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	dt, err := n.AttrTypeOr("output_type", ir.Int64)
	if err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	ax, ok := constInts(n, 1)
	if !ok || s == nil || len(ax) != 1 {
		setOut(n, 0, dt, nil)
		return nil
	}
	a, err := normAxis(ax[0], len(s))
	if err != nil {
		return err
	}
	out := append(append(ir.Shape{}, s[:a]...), s[a+1:]...)
	setOut(n, 0, dt, out)
	return nil
}

func foldArgMax(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	t := in[0]
	ax := in[1].Ints()
	if len(ax) != 1 {
		return nil, fmt.Errorf("%s axis must be one value, got %v", n.Op, ax)
	}
	a, err := normAxis(ax[0], len(t.Shape))
	if err != nil {
		return nil, err
	}
	if t.Shape[a] == 0 {
		return nil, fmt.Errorf("%s over an empty axis", n.Op)
	}
	out := n.Outputs[0].Shape
	count, ok := out.NumElements()
	if !ok {
		return nil, nil
	}
	inner := 1
	for _, d := range t.Shape[a+1:] {
		inner *= d
	}
	v := t.Float64s()
	res := make([]int64, count)
	for o := range res {
		outer, r := o/inner, o%inner
		best := 0
		for j := 1; j < t.Shape[a]; j++ {
			x := v[(outer*t.Shape[a]+j)*inner+r]
			y := v[(outer*t.Shape[a]+best)*inner+r]
			if (n.Op == "ArgMax" && x > y) || (n.Op == "ArgMin" && x < y) {
				best = j
			}
		}
		res[o] = int64(best)
	}
	r, err := ir.FromInt64s(n.Outputs[0].DType, out, res)
	return []*ir.Tensor{r}, err
}

func legalizeArgMax(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	a, err := c.asInt32(1, "axis")
	if err != nil {
		return err
	}
	out := schema.TensorType(c.n.Outputs[0].DType)
	if c.n.Op == "ArgMin" {
		return c.same(schema.BuiltinOperatorARG_MIN, &schema.ArgMinOptionsT{OutputType: out}, x, a)
	}
	return c.same(schema.BuiltinOperatorARG_MAX, &schema.ArgMaxOptionsT{OutputType: out}, x, a)
}
