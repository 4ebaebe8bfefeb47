package builtin

import "github.com/tflrun/tflrun/ops"

// NewRelu6 returns a RELU6 kernel for one node (a Relu):
// y = min(max(x, 0), 6) on float32, int8, uint8 and int16 tensors.
func NewRelu6() ops.Kernel { return &Relu{op: &relu6Op} }

var relu6Op = reluActivation{lo: 0, hi: 6, int16: true}

func init() {
	register(ops.OpRelu6, NewRelu6, [2]int{1, 3})
}
