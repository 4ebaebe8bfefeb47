package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "AddN", Outputs: "sum:T", MinInputs: 1, Infer: inferAddN, Legalize: legalizeOneToOne(schema.BuiltinOperatorADD_N, -1, func() any { return &schema.AddNOptionsT{} })})
}

func inferAddN(n *ir.Node) error {
	if len(n.Inputs) == 0 {
		return fmt.Errorf("AddN has no inputs")
	}
	s := n.Inputs[0].Shape
	for _, in := range n.Inputs[1:] {
		m, ok := ir.Merge(s, in.Shape)
		if !ok {
			return fmt.Errorf("AddN inputs have shapes %s and %s", s, in.Shape)
		}
		s = m
	}
	setOut(n, 0, n.Inputs[0].DType, s)
	return nil
}
