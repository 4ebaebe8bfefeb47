package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Gelu is the kernel of TFLite's GELU operator, the Gaussian error linear
// unit
//
//	gelu(x) = x·Φ(x) = 0.5·x·erfc(−x/√2),
//
// or with approximate set 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
// Input 0 and output 0 have one shape and type. Types, as TFLite's
// activations.cc:
//   - float32: the formula per element (float64 math rounded to float32;
//     TFLite's Eigen erfc and tanh are within a few ulp of it);
//   - int8 and uint8: a 256-entry table made at Prepare as TFLite's
//     LUTPopulate (dequantise, transform in float32, requantise with
//     rounding half away from zero);
//   - int16: TFLite's 513-entry interpolated table (LUTPopulate<int16_t>)
//     and its LUTLookup;
//   - float16: Eigen::half arithmetic, each operation rounded to half, in
//     the order of TFLite's expression (gelu_float16.go).
//
// Versions 1-3 (2: int8/uint8, 3: float16), TFLite's register.cc range.
type Gelu struct {
	typ    ops.DataType
	approx bool
	lut8   [256]uint8
	lut16  [513]int16
}

// GeluOptions is TFLite's GeluOptions.
type GeluOptions struct {
	Approximate bool
}

// NewGelu returns a GELU kernel for one node.
func NewGelu() ops.Kernel { return &Gelu{} }

func init() {
	register(ops.OpGelu, NewGelu, [2]int{1, 3})
	registerOptions(schema.BuiltinOptionsGeluOptions, decodeGeluOptions)
}

// decodeGeluOptions decodes TFLite's GeluOptions table.
func decodeGeluOptions(t ops.OptionsTable) (any, error) {
	var o schema.GeluOptions
	initTable(&o, t)
	return &GeluOptions{Approximate: o.Approximate()}, nil
}

// geluExact is TFLite's GeluTransform in float32: 0.5f·x·erfc(x·(−√½)).
func geluExact(x float32) float32 {
	const negSqrtHalf = float32(-math.Sqrt2 / 2)
	e := float32(math.Erfc(float64(float32(x * negSqrtHalf))))
	return float32(float32(0.5)*x) * e
}

// geluApprox is TFLite's GeluTransformApproximate in float32.
func geluApprox(x float32) float32 {
	const sqrt2dPi = float32(2 / math.SqrtPi * math.Sqrt2 / 2)
	cube := float32(float32(float32(0.044715)*x)*x) * x
	t := float32(math.Tanh(float64(float32(sqrt2dPi * float32(x+cube)))))
	return float32(float32(0.5)*x) * float32(1+t)
}

// Prepare validates the node and builds the lookup table of quantised
// types.
func (k *Gelu) Prepare(n *ops.Node) error {
	*k = Gelu{}
	if o, ok := n.Options.(*GeluOptions); ok {
		if o != nil {
			k.approx = o.Approximate
		}
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *GeluOptions", n.Options)
	}
	in, out, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Float16, ops.Int8, ops.Uint8, ops.Int16); err != nil {
		return err
	}
	k.typ = in.Type
	f := geluExact
	if k.approx {
		f = geluApprox
	}
	switch in.Type {
	case ops.Float32, ops.Float16:
		return nil
	case ops.Int16:
		inScale, inZP, err := perTensorQuant(in, "input 0")
		if err != nil {
			return err
		}
		outScale, outZP, err := perTensorQuant(out, "output 0")
		if err != nil {
			return err
		}
		lutPopulate16(inScale, inZP, outScale, outZP, f, &k.lut16)
		return nil
	}
	inScale, inZP, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	lutPopulate8(in.Type, inScale, inZP, outScale, outZP, f, &k.lut8)
	return nil
}

// lutPopulate16 is TFLite's LUTPopulateInt16<float>
// (kernels/internal/common.h): 512 samples of f over the input's range
// plus its end, each corrected by half the error that linear
// interpolation would make at the midpoint of its step, in float32.
func lutPopulate16(inScale float32, inZP int32, outScale float32, outZP int32, f func(float32) float32, lut *[513]int16) {
	inMin := inScale * float32(math.MinInt16-inZP)
	inMax := inScale * float32(math.MaxInt16-inZP)
	outMin := outScale * float32(math.MinInt16-outZP)
	outMax := outScale * float32(math.MaxInt16-outZP)
	const steps = 512
	step := (inMax - inMin) / steps
	halfStep := step / 2
	inv := float32(65536) / (outMax - outMin)
	clamp := func(v float32) int16 { return int16(min(max(v, -32768), 32767)) }
	for i := 0; i < steps; i++ {
		x := float32(inMin + float32(float32(i)*step))
		val := f(x)
		mid := f(float32(x + halfStep))
		next := f(float32(inMin + float32(float32(i+1)*step)))
		sample := roundf(float32(val * inv))
		interp := roundf(float32(float32(float32(next*inv)+roundf(float32(val*inv))) / 2))
		midVal := roundf(float32(mid * inv))
		bias := roundf(float32(interp-midVal) / 2)
		lut[i] = clamp(float32(sample - bias))
	}
	lut[steps] = clamp(roundf(float32(f(inMax) * inv)))
}

// lutLookup16 is TFLite's int16 LUTLookup: the high 9 bits pick a table
// step, the low 7 interpolate linearly to the next, rounding.
func lutLookup16(v int16, lut *[513]int16) int16 {
	idx := 256 + int(v>>7)
	off := int32(v & 0x7f)
	base := int32(lut[idx])
	slope := int32(lut[idx+1]) - base
	return int16(base + (slope*off+64)>>7)
}

// Eval applies GELU.
func (k *Gelu) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("GELU: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	switch k.typ {
	case ops.Float32:
		x, o := in.Float32s()[:cnt], out.Float32s()[:cnt]
		if k.approx {
			for i, v := range x {
				o[i] = geluApprox(v)
			}
			return nil
		}
		for i, v := range x {
			o[i] = geluExact(v)
		}
	case ops.Float16:
		geluHalf(in.Uint16s()[:cnt], out.Uint16s()[:cnt], k.approx)
	case ops.Int16:
		x, o := in.Int16s()[:cnt], out.Int16s()[:cnt]
		for i, v := range x {
			o[i] = lutLookup16(v, &k.lut16)
		}
	default:
		lookup8(in.Data[:cnt], out.Data[:cnt], &k.lut8)
	}
	return nil
}
