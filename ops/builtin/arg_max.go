package builtin

import "github.com/tflrun/tflrun/ops"

// NewArgMax returns an ARG_MAX kernel for one node (an ArgMinMax): the
// index of the first largest element along the axis.
func NewArgMax() ops.Kernel { return &ArgMinMax{max: true} }

func init() {
	register(ops.OpArgMax, NewArgMax, [2]int{1, 3})
}
