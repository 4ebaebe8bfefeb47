package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Fill", Outputs: "output:T", MinInputs: 2, Infer: inferFill, Fold: foldFill, Legalize: legalizeOneToOne(schema.BuiltinOperatorFILL, 2, func() any { return &schema.FillOptionsT{} })})
}

func inferFill(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	dims, ok := constInts(n, 0)
	if !ok {
		var out ir.Shape
		if s := n.Inputs[0].Shape; len(s) == 1 && s[0] >= 0 {
			out = make(ir.Shape, s[0])
			for i := range out {
				out[i] = -1
			}
		}
		setOut(n, 0, n.Inputs[1].DType, out)
		return nil
	}
	for _, d := range dims {
		if d < 0 {
			return fmt.Errorf("Fill dims %v has a negative size", dims)
		}
	}
	out := ir.Shape(dims)
	if err := checkElements(n, out); err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[1].DType, out)
	return nil
}

func foldFill(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	v := in[1]
	if v.NumElements() != 1 {
		return nil, fmt.Errorf("Fill value must be a scalar, got %s", v.Shape)
	}
	out := n.Outputs[0].Shape
	k, ok := out.NumElements()
	if !ok || k > maxFoldElements(n) {
		return nil, nil
	}
	return []*ir.Tensor{gather(v, out, k, func(int) int { return 0 })}, nil
}
