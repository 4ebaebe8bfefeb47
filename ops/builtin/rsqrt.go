package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewRsqrt returns an RSQRT kernel for one node (a Unary): 1/√x in float32 (1/sqrtf); int8 and quantised int16 RSQRT are not supported.
func NewRsqrt() ops.Kernel { return &Unary{op: &rsqrtOp} }

var rsqrtOp = unaryOp{
	name:  "RSQRT",
	types: []ops.DataType{ops.Float32},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = 1 / float32(math.Sqrt(float64(x)))
		}
	},
}

func init() {
	register(ops.OpRsqrt, NewRsqrt, [2]int{1, 3})
}
