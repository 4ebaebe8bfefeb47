package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewCos returns a COS kernel for one node (a Unary): cos x in float32
// (cosf); a float16 tensor (version 2) is widened to float32, and the
// float32 result rounded to the nearest float16, as TFLite's
// elementwise.cc.
func NewCos() ops.Kernel { return &Unary{op: &cosOp} }

var cosOp = unaryOp{
	name:  "COS",
	types: []ops.DataType{ops.Float32, ops.Float16},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = float32(math.Cos(float64(x)))
		}
	},
	eval: halfUnary(func(x float32) float32 { return float32(math.Cos(float64(x))) }),
}

func init() {
	register(ops.OpCos, NewCos, [2]int{1, 2})
}
