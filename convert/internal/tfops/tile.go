package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Tile", Outputs: "output:T", MinInputs: 2, Infer: inferTile, Fold: foldTile, Legalize: rule(legalizeTile)})
}

func inferTile(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	m, ok := constInts(n, 1)
	if !ok || s == nil {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	if len(m) != len(s) {
		return fmt.Errorf("Tile multiples %v do not match rank %d", m, len(s))
	}
	out := make(ir.Shape, len(s))
	for i := range s {
		if m[i] < 0 {
			return fmt.Errorf("Tile multiples %v are negative", m)
		}
		out[i] = -1
		if s[i] >= 0 {
			out[i] = s[i] * m[i]
		}
	}
	if err := checkElements(n, out); err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func foldTile(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	out := n.Outputs[0].Shape
	count, ok := out.NumElements()
	if !ok || count > maxFoldElements(n) {
		return nil, nil
	}
	t := in[0]
	st := strides(t.Shape)
	return []*ir.Tensor{gather(t, out, count, func(i int) int {
		k := 0
		for d := len(out) - 1; d >= 0; d-- {
			c := i % max(out[d], 1)
			i /= max(out[d], 1)
			k += (c % max(t.Shape[d], 1)) * st[d]
		}
		return k
	})}, nil
}

func legalizeTile(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	m, err := c.asInt32(1, "multiples")
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorTILE, &schema.TileOptionsT{}, x, m)
}
