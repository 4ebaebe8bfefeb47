package builtin

import "github.com/tflrun/tflrun/ops"

// NewReluN1To1 returns a RELU_N1_TO_1 kernel for one node (a Relu):
// y = min(max(x, −1), 1) on float32, int8 and uint8 tensors.
func NewReluN1To1() ops.Kernel { return &Relu{op: &reluN1To1Op} }

var reluN1To1Op = reluActivation{lo: -1, hi: 1}

func init() {
	register(ops.OpReluN1To1, NewReluN1To1, [2]int{1, 1})
}
