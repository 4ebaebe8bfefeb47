package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
)

// callOps call a library function (its "f" attribute); the inline pass
// inlines or fuses every call.
var callOps = []struct {
	name, outputs string
	minInputs     int
}{
	{"StatefulPartitionedCall", "output:[Tout]", 0},
	{"PartitionedCall", "output:[Tout]", 0},
}

func init() {
	for _, op := range callOps {
		ir.RegisterOp(ir.OpRecord{Name: op.name, Outputs: op.outputs, MinInputs: op.minInputs, NoLegalize: byInlining})
	}
}
