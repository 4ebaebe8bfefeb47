package builtin

import (
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewLog returns a LOG kernel for one node (a Unary), as TFLite's
// elementwise.cc: float32 (logf), and int8 through a 256-entry table built
// as TFLite's LUTPopulate, which maps inputs ≤ 0 to the output's lowest
// value. Quantised int16 LOG is not supported.
func NewLog() ops.Kernel { return &Unary{op: &logOp} }

var logOp = unaryOp{
	name:  "LOG",
	types: []ops.DataType{ops.Float32, ops.Int8},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = float32(math.Log(float64(x)))
		}
	},
	prepare: prepareLog,
}

func init() {
	register(ops.OpLog, NewLog, [2]int{1, 2})
}

func prepareLog(k *Unary, in, out *ops.Tensor) error {
	if in.Type != ops.Int8 {
		return nil
	}
	inScale, inZP, outScale, outZP, err := unaryQuant(in, out)
	if err != nil {
		return err
	}
	// TFLite's table maps x ≤ 0 to the real value of the output's lowest
	// code.
	lowest := float32(-128-outZP) * outScale
	f := func(x float32) float32 {
		if x <= 0 {
			return lowest
		}
		return float32(math.Log(float64(x)))
	}
	lutPopulate8(ops.Int8, inScale, inZP, outScale, outZP, f, &k.lut)
	k.useLUT = true
	return nil
}
