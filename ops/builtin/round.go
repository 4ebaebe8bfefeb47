package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewRound returns a ROUND kernel for one node (a Unary): float32, rounding
// half to even as TFLite's round.cc (RoundToNearest).
func NewRound() ops.Kernel { return &Unary{op: &roundOp} }

var roundOp = unaryOp{
	name:  "ROUND",
	types: []ops.DataType{ops.Float32},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = roundHalfEven(x)
		}
	},
}

func init() {
	register(ops.OpRound, NewRound, [2]int{1, 1})
}

// roundHalfEven is TFLite's RoundToNearest in float32: the floor, plus one
// when the fraction is above one half, or exactly one half with an odd
// floor.
func roundHalfEven(x float32) float32 {
	f := float32(math.Floor(float64(x)))
	d := x - f
	if d < 0.5 || d == 0.5 && math.Mod(float64(f), 2) == 0 {
		return f
	}
	return f + 1
}
