package passes

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

// stateOps write resource variables (or TF1 ref variables).
var stateOps = map[string]bool{
	"AssignVariableOp": true, "AssignAddVariableOp": true, "AssignSubVariableOp": true,
	"Assign": true, "AssignAdd": true, "AssignSub": true,
	"ResourceScatterUpdate": true, "ResourceScatterAdd": true, "ResourceScatterSub": true,
}

// CheckNoStateWrites fails when f updates a variable: the converter folds
// every variable to its checkpoint value and drops nodes no output
// depends on, so a stateful model (one that updates, say, an RNN state
// variable each call) would otherwise convert silently into a different,
// stateless one.
func CheckNoStateWrites(f *ir.Function) error {
	for _, n := range f.Nodes {
		if stateOps[n.Op] {
			target := "a variable"
			if len(n.Inputs) > 0 && n.Inputs[0] != nil && n.Inputs[0].Variable != nil {
				target = fmt.Sprintf("variable %q", n.Inputs[0].Variable.Name)
			}
			return n.Errorf("updates %s; tflrun converts stateless inference graphs and would drop this update", target)
		}
	}
	return nil
}
