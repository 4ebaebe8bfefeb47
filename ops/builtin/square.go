package builtin

import "github.com/tflrun/tflrun/ops"

// NewSquare returns a SQUARE kernel for one node (a Unary): x·x in float32.
func NewSquare() ops.Kernel { return &Unary{op: &squareOp} }

var squareOp = unaryOp{
	name:  "SQUARE",
	types: []ops.DataType{ops.Float32},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = x * x
		}
	},
}

func init() {
	register(ops.OpSquare, NewSquare, [2]int{1, 1})
}
