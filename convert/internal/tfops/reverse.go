package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "ReverseV2", Outputs: "output:T", MinInputs: 2, Infer: inferSameShape, Fold: foldReverse, Legalize: rule(legalizeReverse)})
}

func foldReverse(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	t := in[0]
	axes := in[1].Ints()
	rev := make([]bool, len(t.Shape))
	for _, a := range axes {
		k, err := normAxis(a, len(t.Shape))
		if err != nil {
			return nil, err
		}
		rev[k] = true
	}
	count := t.NumElements()
	st := strides(t.Shape)
	return []*ir.Tensor{gather(t, t.Shape, count, func(i int) int {
		k := 0
		for d := len(t.Shape) - 1; d >= 0; d-- {
			c := i % max(t.Shape[d], 1)
			i /= max(t.Shape[d], 1)
			if rev[d] {
				c = t.Shape[d] - 1 - c
			}
			k += c * st[d]
		}
		return k
	})}, nil
}

func legalizeReverse(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	a, err := c.asInt32(1, "axis")
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorREVERSE_V2, &schema.ReverseV2OptionsT{}, x, a)
}
