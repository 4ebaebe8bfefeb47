package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// LeakyRelu is the kernel of TFLite's LEAKY_RELU operator: y = x for x > 0,
// alpha·x otherwise (alpha from LeakyReluOptions, any sign).
//
// Type paths, as TFLite's leaky_relu.cc: float32; int8, uint8 and int16
// (zero points 0) requantised with two multipliers, in_scale/out_scale for
// q − in_zp ≥ 0 and |alpha|·in_scale/out_scale (sign applied after) for
// negative values, each with MultiplyByQuantizedMultiplier, plus out_zp,
// saturated.
type LeakyRelu struct {
	alpha       float32
	typ         ops.DataType
	inZP, outZP int32
	mulID       int32
	shID        int
	mulAlpha    int32
	shAlpha     int
	negAlpha    bool
	lo, hi      int32
	// lut maps every int8/uint8 input byte to its output, filled at
	// Prepare from leakyQuant itself so the bits cannot differ; Eval
	// then looks the bytes up with the vector arch.LookupBytes (TBL on
	// arm64, VPSHUFB on amd64) instead of two multiplies per element.
	lut   [256]uint8
	split unarySplit
}

// NewLeakyRelu returns a LEAKY_RELU kernel for one node.
func NewLeakyRelu() ops.Kernel { return &LeakyRelu{} }

// LeakyReluOptions is TFLite's LeakyReluOptions (operator LEAKY_RELU).
type LeakyReluOptions struct {
	Alpha float32
}

func init() {
	register(ops.OpLeakyRelu, NewLeakyRelu, [2]int{1, 2})
	registerOptions(schema.BuiltinOptionsLeakyReluOptions, decodeLeakyReluOptions)
}

// decodeLeakyReluOptions decodes TFLite's LeakyReluOptions table.
func decodeLeakyReluOptions(t ops.OptionsTable) (any, error) {
	var o schema.LeakyReluOptions
	initTable(&o, t)
	return &LeakyReluOptions{Alpha: o.Alpha()}, nil
}

// Prepare checks the types and derives the requantisation.
func (k *LeakyRelu) Prepare(n *ops.Node) error {
	*k = LeakyRelu{}
	k.split.init(k.part)
	if o, ok := n.Options.(*LeakyReluOptions); ok && o != nil {
		k.alpha = o.Alpha
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *LeakyReluOptions", n.Options)
	}
	in, out, err := sameTypeUnary(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Int8, ops.Uint8, ops.Int16); err != nil {
		return err
	}
	k.typ = in.Type
	if in.Type == ops.Float32 {
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
	if in.Type == ops.Int16 && (inZP != 0 || outZP != 0) {
		return fmt.Errorf("input 0: int16 LEAKY_RELU needs zero points 0, have %d (input) and %d (output)", inZP, outZP)
	}
	k.inZP, k.outZP = inZP, outZP
	k.lo, k.hi, _ = ops.TypeRange(in.Type)
	// TFLite's LeakyReluPrepare forms both quotients in float32 (its
	// operands are floats) and only then widens them to double.
	k.mulID, k.shID = ops.QuantizeMultiplier(float64(inScale / outScale))
	am := float64(float32(inScale*k.alpha) / outScale)
	k.negAlpha = am < 0
	if am != 0 {
		k.mulAlpha, k.shAlpha = ops.QuantizeMultiplier(math.Abs(am))
	}
	switch in.Type {
	case ops.Int8:
		var src, dst [256]int8
		for i := range src {
			src[i] = int8(uint8(i))
		}
		leakyQuant(k, src[:], dst[:])
		for i, v := range dst {
			k.lut[i] = uint8(v)
		}
	case ops.Uint8:
		var src [256]uint8
		for i := range src {
			src[i] = uint8(i)
		}
		leakyQuant(k, src[:], k.lut[:])
	}
	return nil
}

// Eval applies the activation.
func (k *LeakyRelu) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("LEAKY_RELU: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	cnt := in.NumElements()
	cost := 1
	if k.typ == ops.Int16 {
		cost = 4
	}
	k.split.run(n, in, out, cnt, cost)
	return nil
}

// part computes the output elements [lo, hi).
func (k *LeakyRelu) part(lo, hi int) {
	in, out := k.split.in, k.split.out
	switch k.typ {
	case ops.Float32:
		arch.LeakyReluF32(out.Float32s()[lo:hi], in.Float32s()[lo:hi], k.alpha)
	case ops.Int8, ops.Uint8:
		lookup8(in.Data[lo:hi], out.Data[lo:hi], &k.lut)
	default:
		leakyQuant(k, in.Int16s()[lo:hi], out.Int16s()[lo:hi])
	}
}

func leakyQuant[T int8 | uint8 | int16](k *LeakyRelu, in, out []T) {
	for i, q := range in {
		v := int32(q) - k.inZP
		r := k.outZP
		if v >= 0 {
			r += ops.MultiplyByQuantizedMultiplier(v, k.mulID, k.shID)
		} else {
			s := ops.MultiplyByQuantizedMultiplier(v, k.mulAlpha, k.shAlpha)
			if k.negAlpha {
				s = -s
			}
			r += s
		}
		out[i] = T(ops.ClampInt32(r, k.lo, k.hi))
	}
}
