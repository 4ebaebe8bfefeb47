package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
)

// The ops that forward their inputs unchanged at inference (package passes
// bypasses them), and NoOp.

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Identity", Outputs: "output:T", MinInputs: 0, Infer: inferIdentity, Fold: foldIdentity, NoLegalize: bySimplify})
	ir.RegisterOp(ir.OpRecord{Name: "IdentityN", Outputs: "output:[T]", MinInputs: 0, Infer: inferIdentity, Fold: foldIdentity, NoLegalize: bySimplify})
	for _, op := range []string{"StopGradient", "Snapshot", "PreventGradient"} {
		ir.RegisterOp(ir.OpRecord{Name: op, Outputs: "output:T", MinInputs: 1, Infer: inferIdentity, Fold: foldIdentity, NoLegalize: bySimplify})
	}
	ir.RegisterOp(ir.OpRecord{Name: "PlaceholderWithDefault", Outputs: "output:dtype", MinInputs: 1, Infer: inferIdentity, Fold: foldIdentity, NoLegalize: bySimplify})
	// Checks that do not change the value; not folded.
	ir.RegisterOp(ir.OpRecord{Name: "CheckNumerics", Outputs: "output:T", MinInputs: 1, Infer: inferSameShape, NoLegalize: bySimplify})
	ir.RegisterOp(ir.OpRecord{Name: "EnsureShape", Outputs: "output:T", MinInputs: 1, Infer: inferSameShape, NoLegalize: bySimplify})
	ir.RegisterOp(ir.OpRecord{Name: "NoOp", Outputs: "", MinInputs: 0, NoLegalize: "no outputs (it orders side effects, which inference does not need): removed by simplification"})
}

// inferIdentity gives output i the type and shape of input i.
func inferIdentity(n *ir.Node) error {
	for i := range n.Outputs {
		if i < len(n.Inputs) && n.Inputs[i] != nil {
			setOut(n, i, n.Inputs[i].DType, n.Inputs[i].Shape.Clone())
		}
	}
	return nil
}

func foldIdentity(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	if len(in) < len(n.Outputs) {
		return nil, nil
	}
	return in[:len(n.Outputs)], nil
}
