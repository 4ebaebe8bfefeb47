package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "ClipByValue", Outputs: "output:T", MinInputs: 3, Infer: inferClipByValue, NoLegalize: unsupported})
}

func inferClipByValue(n *ir.Node) error {
	if err := needInputs(n, 3); err != nil {
		return err
	}
	s, err := BroadcastShape(n.Inputs[0].Shape, n.Inputs[1].Shape)
	if err != nil {
		return err
	}
	if s, err = BroadcastShape(s, n.Inputs[2].Shape); err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, s)
	return nil
}
