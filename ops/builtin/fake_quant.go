package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// FakeQuant is the kernel of TFLite's FAKE_QUANT operator: every float32
// element of input 0 is clamped to a nudged [min, max] range, quantised to
// num_bits and dequantised again, as TensorFlow's
// FakeQuantWithMinMaxArgs. As TFLite's reference FakeQuant
// (NudgeQuantizationRange, FakeQuantizeArray), in float32:
//
//	scale = (max − min) / (2^num_bits − 1)
//	zp    = clamp(roundf(0 − min/scale), 0, 2^num_bits − 1)  (as uint16)
//	nmin  = (0 − zp)·scale, nmax = (2^num_bits − 1 − zp)·scale
//	out   = roundf((clamp(x, nmin, nmax) − nmin) · (1/scale))·scale + nmin
//
// with roundf rounding half away from zero. narrow_range is refused at
// Prepare, as TFLite does ("not currently supported at runtime"), so
// version 2 models fail there in both. num_bits must lie in [0, 30] so
// that 2^num_bits − 1 fits an int (TFLite does not check it). Versions 1-2,
// as TFLite's register.cc.
type FakeQuant struct {
	nudgedMin, nudgedMax, scale float32
	count                       int
}

// FakeQuantOptions is TFLite's FakeQuantOptions.
type FakeQuantOptions struct {
	Min, Max    float32
	NumBits     int
	NarrowRange bool
}

// NewFakeQuant returns a FAKE_QUANT kernel for one node.
func NewFakeQuant() ops.Kernel { return &FakeQuant{} }

func init() {
	register(ops.OpFakeQuant, NewFakeQuant, [2]int{1, 2})
	registerOptions(schema.BuiltinOptionsFakeQuantOptions, decodeFakeQuantOptions)
}

// decodeFakeQuantOptions decodes TFLite's FakeQuantOptions table.
func decodeFakeQuantOptions(t ops.OptionsTable) (any, error) {
	var o schema.FakeQuantOptions
	initTable(&o, t)
	return &FakeQuantOptions{Min: o.Min(), Max: o.Max(), NumBits: int(o.NumBits()), NarrowRange: o.NarrowRange()}, nil
}

// Prepare validates the node, nudges the range and gives the output the
// input's shape.
func (k *FakeQuant) Prepare(n *ops.Node) error {
	*k = FakeQuant{}
	var opts FakeQuantOptions
	if o, ok := n.Options.(*FakeQuantOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *FakeQuantOptions", n.Options)
	}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	if opts.NarrowRange {
		return errors.New("options: narrow_range FakeQuant is not supported at run time (TFLite refuses it too: it is meant for weights, not activations)")
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(in, "input 0", ops.Float32); err != nil {
		return err
	}
	if err := requireType(out, "output 0", ops.Float32); err != nil {
		return err
	}
	if opts.NumBits < 0 || opts.NumBits > 30 {
		return fmt.Errorf("options: num_bits %d is outside [0, 30]", opts.NumBits)
	}
	if k.count, err = numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	qmin, qmax := float32(0), float32(int32(1)<<opts.NumBits-1)
	k.scale = (opts.Max - opts.Min) / (qmax - qmin)
	zpFromMin := qmin - opts.Min/k.scale
	var zp uint16
	switch {
	case zpFromMin < qmin:
		zp = 0
	case zpFromMin > qmax:
		zp = uint16(int32(qmax)) // static_cast<uint16_t>(quant_max)
	default:
		zp = uint16(f32ToInt32(roundf(zpFromMin)))
	}
	k.nudgedMin = (qmin - float32(zp)) * k.scale
	k.nudgedMax = (qmax - float32(zp)) * k.scale
	out.Shape = copyShape(in.Shape)
	return nil
}

// Eval fake-quantises every element.
func (k *FakeQuant) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("FAKE_QUANT: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	inv := 1 / k.scale
	lo, hi, s := k.nudgedMin, k.nudgedMax, k.scale
	o := out.Float32s()[:k.count]
	for i, x := range in.Float32s()[:k.count] {
		// std::min(hi, std::max(lo, x)), std::max(a, b) being
		// (a < b) ? b : a: a NaN x becomes lo.
		c := lo
		if lo < x {
			c = x
		}
		if c > hi {
			c = hi
		}
		// The conversion keeps the product rounded on its own (no fused
		// multiply-add), as TFLite's x86 build computes it.
		o[i] = float32(roundf((c-lo)*inv)*s) + lo
	}
	return nil
}
