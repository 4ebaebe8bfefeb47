package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Placeholder", Outputs: "output:dtype", MinInputs: 0, Infer: inferPlaceholder, NoLegalize: "a model input; one the outputs need that is not an input is refused by the legalize pass"})
}

func inferPlaceholder(n *ir.Node) error {
	dt, err := n.AttrType("dtype")
	if err != nil {
		return err
	}
	s, _, err := n.AttrShape("shape")
	if err != nil {
		return err
	}
	setOut(n, 0, dt, s)
	return nil
}
