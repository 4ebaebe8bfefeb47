package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewCos returns a COS kernel for one node (a Unary): cos x in float32 (cosf).
func NewCos() ops.Kernel { return &Unary{op: &cosOp} }

var cosOp = unaryOp{
	name:  "COS",
	types: []ops.DataType{ops.Float32},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = float32(math.Cos(float64(x)))
		}
	},
}

func init() {
	register(ops.OpCos, NewCos, [2]int{1, 1})
}
