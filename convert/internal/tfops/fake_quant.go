package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars and
// FakeQuantWithMinMaxVarsPerChannel, which quantisation-aware training
// leaves in frozen graphs: each element is clamped to a nudged [min, max]
// range, quantised to num_bits and dequantised. On a constant (the
// weights) they fold, per channel (the last dimension) for the PerChannel
// op; on a run-time tensor they become TFLite's FAKE_QUANT, whose options
// hold one range, so min and max must be constant scalars and
// narrow_range, which TFLite's kernel refuses, must be off.
//
// Arithmetic, as TensorFlow's FakeQuant kernels (Nudge in
// fake_quant_ops_functor.h), in float32: qmin = narrow_range ? 1 : 0,
// qmax = 2^num_bits − 1, scale = (max − min)/(qmax − qmin), the zero
// point qmin − min/scale clamped to [qmin, qmax] and rounded half away
// from zero, nudged_min = (qmin − zp)·scale, nudged_max = (qmax − zp)·scale,
// and out = floor((clamp(x, nudged_min, nudged_max) − nudged_min)·(1/scale)
// + 0.5)·scale + nudged_min.
func init() {
	ir.RegisterOp(ir.OpRecord{Name: "FakeQuantWithMinMaxArgs", Outputs: "outputs:=float", MinInputs: 1, Infer: inferFakeQuant, Fold: foldFakeQuant, Legalize: rule(legalizeFakeQuant)})
	ir.RegisterOp(ir.OpRecord{Name: "FakeQuantWithMinMaxVars", Outputs: "outputs:=float", MinInputs: 3, Infer: inferFakeQuant, Fold: foldFakeQuant, Legalize: rule(legalizeFakeQuant)})
	ir.RegisterOp(ir.OpRecord{Name: "FakeQuantWithMinMaxVarsPerChannel", Outputs: "outputs:=float", MinInputs: 3, Infer: inferFakeQuant, Fold: foldFakeQuant, Legalize: rule(legalizeFakeQuant)})
}

// fakeQuantRange is one nudged range.
type fakeQuantRange struct{ min, max, scale float32 }

// nudgeFakeQuant nudges [min, max] so that zero is exactly representable.
func nudgeFakeQuant(min, max float32, bits int, narrow bool) (fakeQuantRange, error) {
	if !(min <= 0 && max >= 0 && min < max) {
		// TensorFlow's kernels assume a range holding zero (training
		// keeps it so); an empty or inverted one divides by zero.
		return fakeQuantRange{}, fmt.Errorf("range [%g, %g] is not a non-empty range holding 0", min, max)
	}
	qmin := float32(0)
	if narrow {
		qmin = 1
	}
	qmax := float32(int32(1)<<bits - 1)
	scale := (max - min) / (qmax - qmin)
	zpFromMin := qmin - min/scale
	var zp float32
	switch {
	case zpFromMin < qmin:
		zp = qmin
	case zpFromMin > qmax:
		zp = qmax
	default:
		zp = float32(math.Round(float64(zpFromMin)))
	}
	return fakeQuantRange{min: (qmin - zp) * scale, max: (qmax - zp) * scale, scale: scale}, nil
}

// apply fake-quantises one value.
func (r fakeQuantRange) apply(x float32) float32 {
	c := x
	if c > r.max {
		c = r.max
	}
	if !(c >= r.min) { // NaN clamps to min, as Eigen's cwiseMax
		c = r.min
	}
	inv := 1 / r.scale
	return float32(math.Floor(float64((c-r.min)*inv+0.5)))*r.scale + r.min
}

// fakeQuantAttrs reads num_bits (2 to 16, as TensorFlow checks) and
// narrow_range.
func fakeQuantAttrs(n *ir.Node) (bits int, narrow bool, err error) {
	b, err := n.AttrInt("num_bits", 8)
	if err != nil {
		return 0, false, err
	}
	if b < 2 || b > 16 {
		return 0, false, fmt.Errorf("num_bits %d is not in [2, 16]", b)
	}
	narrow, err = n.AttrBool("narrow_range", false)
	return int(b), narrow, err
}

func inferFakeQuant(n *ir.Node) error {
	if _, _, err := fakeQuantAttrs(n); err != nil {
		return err
	}
	if err := needInputs(n, 1); err != nil {
		return err
	}
	if dt := n.Inputs[0].DType; dt != ir.Float32 && dt != ir.Invalid {
		return fmt.Errorf("input is %s; fake quantisation takes float32", dt)
	}
	setOut(n, 0, ir.Float32, n.Inputs[0].Shape.Clone())
	return nil
}

// fakeQuantRanges returns the node's ranges: one for the Args and Vars
// ops, one per channel of the last dimension for PerChannel. mins and
// maxs are the constant min and max inputs (nil for Args).
func fakeQuantRanges(n *ir.Node, mins, maxs *ir.Tensor, channels int) ([]fakeQuantRange, error) {
	bits, narrow, err := fakeQuantAttrs(n)
	if err != nil {
		return nil, err
	}
	var lo, hi []float32
	switch n.Op {
	case "FakeQuantWithMinMaxArgs":
		a, err := n.AttrFloat("min", -6)
		if err != nil {
			return nil, err
		}
		b, err := n.AttrFloat("max", 6)
		if err != nil {
			return nil, err
		}
		lo, hi = []float32{a}, []float32{b}
	default:
		if mins.DType != ir.Float32 || maxs.DType != ir.Float32 {
			return nil, fmt.Errorf("min and max are %s and %s, not float32", mins.DType, maxs.DType)
		}
		want := 1
		if n.Op == "FakeQuantWithMinMaxVarsPerChannel" {
			want = channels
		}
		if mins.NumElements() != want || maxs.NumElements() != want {
			return nil, fmt.Errorf("min and max hold %d and %d values, want %d (one per channel of the last dimension)", mins.NumElements(), maxs.NumElements(), want)
		}
		lo, hi = mins.Float32s(), maxs.Float32s()
	}
	rs := make([]fakeQuantRange, len(lo))
	for i := range lo {
		if rs[i], err = nudgeFakeQuant(lo[i], hi[i], bits, narrow); err != nil {
			if len(lo) > 1 {
				return nil, fmt.Errorf("channel %d: %v", i, err)
			}
			return nil, err
		}
	}
	return rs, nil
}

func foldFakeQuant(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	x := in[0]
	if x.DType != ir.Float32 {
		return nil, nil
	}
	channels := 1
	if n.Op == "FakeQuantWithMinMaxVarsPerChannel" {
		if len(x.Shape) == 0 {
			return nil, fmt.Errorf("per-channel fake quantisation needs an input of rank ≥ 1")
		}
		channels = x.Shape[len(x.Shape)-1]
	}
	var mins, maxs *ir.Tensor
	if n.Op != "FakeQuantWithMinMaxArgs" {
		if len(in) < 3 {
			return nil, fmt.Errorf("%d inputs, want 3 (inputs, min, max)", len(in))
		}
		mins, maxs = in[1], in[2]
	}
	rs, err := fakeQuantRanges(n, mins, maxs, channels)
	if err != nil {
		return nil, err
	}
	v := x.Float32s()
	for i := range v {
		v[i] = rs[i%len(rs)].apply(v[i])
	}
	return []*ir.Tensor{ir.FromFloat32s(x.Shape.Clone(), v)}, nil
}

func legalizeFakeQuant(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	if c.n.Op == "FakeQuantWithMinMaxVarsPerChannel" {
		return fmt.Errorf("per-channel fake quantisation of a run-time tensor (%q) has no TFLite operator (FAKE_QUANT takes one range); it folds only on constants", x.Name)
	}
	var mins, maxs *ir.Tensor
	if c.n.Op == "FakeQuantWithMinMaxVars" {
		if mins, err = c.constOf(1, "min"); err != nil {
			return err
		}
		if maxs, err = c.constOf(2, "max"); err != nil {
			return err
		}
	}
	bits, narrow, err := fakeQuantAttrs(c.n)
	if err != nil {
		return err
	}
	if narrow {
		return fmt.Errorf("narrow_range fake quantisation of a run-time tensor (%q): TFLite's FAKE_QUANT refuses narrow_range at run time", x.Name)
	}
	rs, err := fakeQuantRanges(c.n, mins, maxs, 1)
	if err != nil {
		return err
	}
	// FAKE_QUANT nudges the range itself: it gets the one the graph
	// gives, which fakeQuantRanges has checked.
	lo, hi := rs[0].min, rs[0].max
	if mins != nil {
		lo, hi = mins.Float32s()[0], maxs.Float32s()[0]
	} else {
		lo, _ = c.n.AttrFloat("min", -6)
		hi, _ = c.n.AttrFloat("max", 6)
	}
	return c.same(schema.BuiltinOperatorFAKE_QUANT, &schema.FakeQuantOptionsT{Min: lo, Max: hi, NumBits: int32(bits)}, x)
}
