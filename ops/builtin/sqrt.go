package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewSqrt returns a SQRT kernel for one node (a Unary): √x in float32 (sqrtf).
func NewSqrt() ops.Kernel { return &Unary{op: &sqrtOp} }

var sqrtOp = unaryOp{
	name:  "SQRT",
	types: []ops.DataType{ops.Float32},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = float32(math.Sqrt(float64(x)))
		}
	},
}

func init() {
	register(ops.OpSqrt, NewSqrt, [2]int{1, 2})
}
