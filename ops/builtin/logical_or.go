package builtin

import "github.com/tflrun/tflrun/ops"

// NewLogicalOr returns a LOGICAL_OR kernel for one node (a Logical):
// out[i] = a[i] || b[i].
func NewLogicalOr() ops.Kernel { return &Logical{op: &logicalOrOp} }

var logicalOrOp = logicalOp{f: func(x, y bool) bool { return x || y }}

func init() {
	register(ops.OpLogicalOr, NewLogicalOr, [2]int{1, 1})
}
