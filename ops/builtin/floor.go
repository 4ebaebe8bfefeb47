package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewFloor returns a FLOOR kernel for one node (a Unary): ⌊x⌋ in float32, as TFLite's floor.cc.
func NewFloor() ops.Kernel { return &Unary{op: &floorOp} }

var floorOp = unaryOp{
	name:  "FLOOR",
	types: []ops.DataType{ops.Float32},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = float32(math.Floor(float64(x)))
		}
	},
}

func init() {
	register(ops.OpFloor, NewFloor, [2]int{1, 1})
}
