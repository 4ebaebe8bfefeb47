package builtin

import "github.com/tflrun/tflrun/ops"

// NewSelectV2 returns a SELECT_V2 kernel for one node: the Select kernel
// with SELECT_V2's shape rule, numpy-style broadcasting of the condition,
// x and y (at most 8 dimensions).
func NewSelectV2() ops.Kernel { return &Select{v2: true} }

func init() {
	register(ops.OpSelectV2, NewSelectV2, [2]int{1, 2})
}
