package builtin

import "github.com/tflrun/tflrun/ops"

// NewExp returns an EXP kernel for one node (a Unary), as TFLite's exp.cc:
// float32 (expf), and int8 through a 256-entry table built as TFLite's
// LUTPopulate. Quantised int16 EXP is not supported.
func NewExp() ops.Kernel { return &Unary{op: &expOp} }

var expOp = unaryOp{
	name:  "EXP",
	types: []ops.DataType{ops.Float32, ops.Int8},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = expf(x)
		}
	},
	prepare: prepareExp,
}

func init() {
	register(ops.OpExp, NewExp, [2]int{1, 2})
}

func prepareExp(k *Unary, in, out *ops.Tensor) error {
	if in.Type != ops.Int8 {
		return nil
	}
	inScale, inZP, outScale, outZP, err := unaryQuant(in, out)
	if err != nil {
		return err
	}
	lutPopulate8(ops.Int8, inScale, inZP, outScale, outZP, expf, &k.lut)
	k.useLUT = true
	return nil
}
