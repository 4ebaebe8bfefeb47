package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewSin returns a SIN kernel for one node (a Unary): sin x in float32
// (sinf); a float16 tensor (version 2) is widened to float32, and the
// float32 result rounded to the nearest float16, as TFLite's
// elementwise.cc.
func NewSin() ops.Kernel { return &Unary{op: &sinOp} }

var sinOp = unaryOp{
	name:  "SIN",
	types: []ops.DataType{ops.Float32, ops.Float16},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = float32(math.Sin(float64(x)))
		}
	},
	eval: halfUnary(func(x float32) float32 { return float32(math.Sin(float64(x))) }),
}

func init() {
	register(ops.OpSin, NewSin, [2]int{1, 2})
}
