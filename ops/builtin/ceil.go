package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewCeil returns a CEIL kernel for one node (a Unary): ⌈x⌉ in float32, as TFLite's ceil.cc.
func NewCeil() ops.Kernel { return &Unary{op: &ceilOp} }

var ceilOp = unaryOp{
	name:  "CEIL",
	types: []ops.DataType{ops.Float32},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = float32(math.Ceil(float64(x)))
		}
	},
}

func init() {
	register(ops.OpCeil, NewCeil, [2]int{1, 1})
}
