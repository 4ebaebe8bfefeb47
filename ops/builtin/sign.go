package builtin

import "github.com/tflrun/tflrun/ops"

// NewSign returns a SIGN kernel for one node (a Unary), as TFLite's
// sign.cc: float32, float64 and int32; NaN maps to NaN and ±0 to +0.
func NewSign() ops.Kernel { return &Unary{op: &signOp} }

var signOp = unaryOp{
	name:  "SIGN",
	types: []ops.DataType{ops.Float32, ops.Float64, ops.Int32},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = signOf(x)
		}
	},
	eval: evalSign,
}

func init() {
	register(ops.OpSign, NewSign, [2]int{1, 2})
}

func evalSign(k *Unary, in, out *ops.Tensor, cnt int) error {
	switch k.typ {
	case ops.Float64:
		o := out.Float64s()[:cnt]
		for i, x := range in.Float64s()[:cnt] {
			o[i] = signOf(x)
		}
	case ops.Int32:
		o := out.Int32s()[:cnt]
		for i, v := range in.Int32s()[:cnt] {
			o[i] = signOf(v)
		}
	default:
		return errUnaryType
	}
	return nil
}

// signOf is TFLite's SIGN: NaN stays NaN, positive → 1, negative → −1,
// zero → 0.
func signOf[T float32 | float64 | int32](x T) T {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x // NaN
}
