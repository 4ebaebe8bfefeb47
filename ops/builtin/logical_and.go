package builtin

import "github.com/tflrun/tflrun/ops"

// NewLogicalAnd returns a LOGICAL_AND kernel for one node (a Logical):
// out[i] = a[i] && b[i].
func NewLogicalAnd() ops.Kernel { return &Logical{op: &logicalAndOp} }

var logicalAndOp = logicalOp{f: func(x, y bool) bool { return x && y }}

func init() {
	register(ops.OpLogicalAnd, NewLogicalAnd, [2]int{1, 1})
}
