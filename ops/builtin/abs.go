package builtin

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// NewAbs returns an ABS kernel for one node (a Unary): float32; int32;
// int16 without quantisation; int8 and quantised int16 (zero points 0)
// requantised as TFLite's elementwise.cc: |q − in_zp|, rescaled by
// in_scale/out_scale with MultiplyByQuantizedMultiplier when the scales
// differ, plus out_zp, saturated.
func NewAbs() ops.Kernel { return &Unary{op: &absOp} }

var absOp = unaryOp{
	name:  "ABS",
	types: []ops.DataType{ops.Float32, ops.Int8, ops.Int16, ops.Int32},
	float32: func(in, out []float32) {
		for i, x := range in {
			out[i] = float32(math.Abs(float64(x)))
		}
	},
	prepare: prepareAbs,
	eval:    evalAbs,
}

func init() {
	register(ops.OpAbs, NewAbs, [2]int{1, 5})
}

func prepareAbs(k *Unary, in, out *ops.Tensor) error {
	if in.Type == ops.Int8 || in.Type == ops.Int16 && isQuantized(in) {
		return k.prepareQuantAbs(in, out)
	}
	return nil
}

func (k *Unary) prepareQuantAbs(in, out *ops.Tensor) error {
	inScale, inZP, outScale, outZP, err := unaryQuant(in, out)
	if err != nil {
		return err
	}
	if in.Type == ops.Int16 && (inZP != 0 || outZP != 0) {
		return fmt.Errorf("input 0: quantised int16 ABS needs zero points 0, have input %d, output %d", inZP, outZP)
	}
	k.quant = true
	k.inZP, k.outZP = inZP, outZP
	k.rescale = inScale != outScale
	if k.rescale {
		k.mult, k.shift = ops.QuantizeMultiplier(float64(inScale / outScale))
	}
	return nil
}

func evalAbs(k *Unary, in, out *ops.Tensor, cnt int) error {
	if k.quant {
		if k.typ == ops.Int8 {
			absQuant(k, in.Int8s()[:cnt], out.Int8s()[:cnt], -128, 127)
		} else {
			absQuant(k, in.Int16s()[:cnt], out.Int16s()[:cnt], math.MinInt16, math.MaxInt16)
		}
		return nil
	}
	switch k.typ {
	case ops.Int16:
		// ABS without quantisation: computed in int32 and truncated, so
		// |−32768| stays −32768 as in TFLite.
		o := out.Int16s()[:cnt]
		for i, x := range in.Int16s()[:cnt] {
			o[i] = int16(abs32(int32(x)))
		}
	case ops.Int32:
		o := out.Int32s()[:cnt]
		for i, v := range in.Int32s()[:cnt] {
			o[i] = abs32(v)
		}
	default:
		return errUnaryType
	}
	return nil
}

// abs32 is |v| with −2^31 mapping to itself (two's-complement wrap).
func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

func absQuant[T int8 | int16](k *Unary, in, out []T, lo, hi int32) {
	for i, q := range in {
		v := abs32(int32(q) - k.inZP)
		if k.rescale {
			v = ops.MultiplyByQuantizedMultiplier(v, k.mult, k.shift)
		}
		out[i] = T(ops.ClampInt32(v+k.outZP, lo, hi))
	}
}
