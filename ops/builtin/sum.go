package builtin

import "github.com/tflrun/tflrun/ops"

// NewSum returns a SUM kernel for one node (a Reduce), as TFLite's
// reduce.cc: float32 (accumulated in input order), int32 and int64
// (wrapping); int8, uint8 and int16 (zero points 0) rescale the integer sum
// as TFLite's optimised QuantizedMeanOrSum: round(sum·s + bias) + out_zp in
// float32 with s = in_scale/out_scale and bias = −in_zp·s·count,
// saturated.
func NewSum() ops.Kernel { return &Reduce{op: &sumOp} }

var sumOp = reduceOp{
	name:         "SUM",
	types:        []ops.DataType{ops.Float32, ops.Int32, ops.Int64, ops.Int8, ops.Uint8, ops.Int16},
	f32:          sumInto[float32],
	i32:          sumInto[int32],
	i64:          sumInto[int64],
	prepareQuant: prepareQuantSum,
	evalQuant:    evalQuantSum,
}

func init() {
	register(ops.OpSum, NewSum, [2]int{1, 2})
}

func sumInto[T float32 | int32 | int64](r *reduction, in, out []T, _, _ T) {
	fillValue(out, 0)
	reduceSum(r, in, out) // reduceInto's order, without a call per element
}

func prepareQuantSum(k *Reduce, n *ops.Node, in *ops.Tensor, inScale float32, inZP int32, outScale float32, outZP int32) error {
	k.quant = true
	k.scale = inScale / outScale
	k.bias = float32(-inZP) * k.scale * float32(k.r.count)
	k.outZP = outZP
	k.lo, k.hi, _ = ops.TypeRange(in.Type)
	k.accID = n.RequestScratch(4 * k.r.outCount)
	return nil
}

func evalQuantSum(k *Reduce, n *ops.Node, in, out *ops.Tensor) error {
	acc, err := scratchInt32(n, k.accID, k.r.outCount)
	if err != nil {
		return err
	}
	clear(acc)
	switch k.typ {
	case ops.Int8:
		reduceSum(&k.r, in.Int8s(), acc)
	case ops.Uint8:
		reduceSum(&k.r, in.Data, acc)
	default:
		reduceSum(&k.r, in.Int16s(), acc)
	}
	for i, s := range acc {
		v := ops.ClampInt32(f32ToInt32(roundf(float32(s)*k.scale+k.bias))+k.outZP, k.lo, k.hi)
		switch k.typ {
		case ops.Int8:
			out.Int8s()[i] = int8(v)
		case ops.Uint8:
			out.Data[i] = uint8(v)
		default:
			out.Int16s()[i] = int16(v)
		}
	}
	return nil
}
