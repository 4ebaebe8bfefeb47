package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewRelu returns a RELU kernel for one node (a Relu):
// y = max(x, 0) on float32, int8, uint8 and int16 tensors.
func NewRelu() ops.Kernel { return &Relu{op: &reluOp} }

var reluOp = reluActivation{lo: 0, hi: float32(math.Inf(1)), int16: true}

func init() {
	register(ops.OpRelu, NewRelu, [2]int{1, 3})
}
