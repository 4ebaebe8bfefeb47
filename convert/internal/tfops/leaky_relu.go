package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "LeakyRelu", Outputs: "activations:T", MinInputs: 1, Infer: inferLeakyRelu, Fold: foldLeakyRelu, Legalize: rule(legalizeLeakyRelu)})
}

func inferLeakyRelu(n *ir.Node) error {
	if err := inferSameShape(n); err != nil {
		return err
	}
	if alpha, err := n.AttrFloat("alpha", 0.2); err != nil {
		return err
	} else {
		_ = alpha
	}
	return nil
}

func foldLeakyRelu(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	alpha, _ := n.AttrFloat("alpha", 0.2)
	t := in[0]
	if !t.DType.IsFloat() {
		return nil, nil
	}
	v := t.Float64s()
	for i, x := range v {
		if x < 0 {
			v[i] = x * float64(alpha)
		}
	}
	r, err := ir.FromFloat64s(t.DType, t.Shape, v)
	return []*ir.Tensor{r}, err
}

func legalizeLeakyRelu(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	alpha, err := c.n.AttrFloat("alpha", 0.2)
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorLEAKY_RELU, &schema.LeakyReluOptionsT{Alpha: alpha}, x)
}
