package builtin

import "github.com/tflrun/tflrun/ops"

// NewRelu0To1 returns a RELU_0_TO_1 kernel for one node (a Relu):
// y = min(max(x, 0), 1) on float32, int8 and uint8 tensors.
func NewRelu0To1() ops.Kernel { return &Relu{op: &relu0To1Op} }

var relu0To1Op = reluActivation{lo: 0, hi: 1}

func init() {
	register(ops.OpRelu0To1, NewRelu0To1, [2]int{1, 1})
}
