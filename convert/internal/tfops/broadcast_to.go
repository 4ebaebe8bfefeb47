package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "BroadcastTo", Outputs: "output:T", MinInputs: 2, Infer: inferBroadcastTo, Fold: foldBroadcastTo, Legalize: rule(legalizeBroadcastTo)})
}

func inferBroadcastTo(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	dims, ok := constInts(n, 1)
	if !ok {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	out, err := BroadcastShape(n.Inputs[0].Shape, ir.Shape(dims))
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func foldBroadcastTo(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	out := n.Outputs[0].Shape
	k, ok := out.NumElements()
	if !ok || k > maxFoldElements(n) {
		return nil, nil
	}
	idx := broadcastIndex(in[0].Shape, out)
	return []*ir.Tensor{gather(in[0], out, k, func(i int) int { return idx[i] })}, nil
}

func legalizeBroadcastTo(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	s, err := c.asInt32(1, "shape")
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorBROADCAST_TO, &schema.BroadcastToOptionsT{}, x, s)
}
