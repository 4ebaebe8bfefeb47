package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Const", Outputs: "output:dtype", MinInputs: 0, Infer: inferConst, NoLegalize: "a constant: written as a constant tensor"})
}

// inferConst decodes the value attribute into the output's constant.
func inferConst(n *ir.Node) error {
	if len(n.Outputs) == 1 && n.Outputs[0].Const != nil {
		o := n.Outputs[0] // built by the converter, or already decoded
		o.DType, o.Shape = o.Const.DType, o.Const.Shape.Clone()
		return nil
	}
	if len(n.Outputs) != 1 {
		return fmt.Errorf("Const must have one output, has %d", len(n.Outputs))
	}
	t, err := n.AttrTensor("value")
	if err != nil {
		return err
	}
	o := n.Outputs[0]
	o.DType, o.Shape, o.Const = t.DType, t.Shape.Clone(), t
	return nil
}
