package builtin

import "github.com/tflrun/tflrun/ops"

// NewArgMin returns an ARG_MIN kernel for one node (an ArgMinMax): the
// index of the first smallest element along the axis.
func NewArgMin() ops.Kernel { return &ArgMinMax{} }

func init() {
	register(ops.OpArgMin, NewArgMin, [2]int{1, 3})
}
