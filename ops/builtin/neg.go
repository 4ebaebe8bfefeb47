package builtin

import "github.com/tflrun/tflrun/ops"

// NewNeg returns a NEG kernel for one node (a Unary), as TFLite's neg.cc:
// float32, and int8, int16, int32, int64 by wrapping negation of the raw
// value.
func NewNeg() ops.Kernel { return &Unary{op: &negOp} }

var negOp = unaryOp{
	name:  "NEG",
	types: []ops.DataType{ops.Float32, ops.Int8, ops.Int16, ops.Int32, ops.Int64},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = -x
		}
	},
	eval: evalNeg,
}

func init() {
	register(ops.OpNeg, NewNeg, [2]int{1, 1})
}

func evalNeg(k *Unary, in, out *ops.Tensor, cnt int) error {
	switch k.typ {
	case ops.Int8:
		negate(in.Int8s()[:cnt], out.Int8s()[:cnt])
	case ops.Int16:
		negate(in.Int16s()[:cnt], out.Int16s()[:cnt])
	case ops.Int32:
		negate(in.Int32s()[:cnt], out.Int32s()[:cnt])
	case ops.Int64:
		negate(in.Int64s()[:cnt], out.Int64s()[:cnt])
	default:
		return errUnaryType
	}
	return nil
}

func negate[T int8 | int16 | int32 | int64](in, out []T) {
	for i, v := range in {
		out[i] = -v
	}
}
