package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Sub is the kernel of TFLite's SUB operator: out = act(a − b)
// elementwise with NumPy broadcasting of up to 6 dimensions. All inputs
// and the output share one type.
//
// Type paths: float32; int32 and int64 (wrapping subtraction, then the
// fused activation's integer bounds); int8 and uint8 with TFLite's general
// quantised arithmetic (left shift 20, inputs rescaled to twice the larger
// input scale, difference rescaled to the output, clamped; computed by
// arch.AddQuantInt8/Uint8 with QuantAdd.Subtract); int16 with the
// same arithmetic at left shift 15 (SubOptions.PotScaleInt16 false or
// scales that are not powers of two; zero points may be non-zero there),
// or TFLite's power-of-two path (zero points 0; each input rounding-shifted
// to the output scale, difference clamped to the activation range). Unlike
// ADD, TFLite lets SUB's output rescale factor exceed 1 (it then uses a
// left shift); this kernel applies TFLite's general
// MultiplyByQuantizedMultiplier in that case.
type Sub struct {
	arithBase
	pot   bool
	potS1 int
	potS2 int
	qp    quantAddParams
	aq    arch.QuantAdd // qp for arch.AddQuantInt8/Uint8 with Subtract (int8, uint8)
	rep8  [512]int8     // vectorRuns' scratch
	repU8 [512]uint8
	repF  [256]float32
}

// subF32Run is arch.VecSub in vectorRuns' form.
func subF32Run(dst, a, b []float32, _ *struct{}) { arch.VecSub(dst, a, b) }

// NewSub returns a SUB kernel for one node.
func NewSub() ops.Kernel { return &Sub{} }

// SubOptions is TFLite's SubOptions.
type SubOptions struct {
	Activation    ops.Activation
	PotScaleInt16 bool
}

func init() {
	register(ops.OpSub, NewSub, [2]int{1, 5})
	registerOptions(schema.BuiltinOptionsSubOptions, decodeSubOptions)
}

// decodeSubOptions decodes TFLite's SubOptions table.
func decodeSubOptions(t ops.OptionsTable) (any, error) {
	var o schema.SubOptions
	initTable(&o, t)
	return &SubOptions{Activation: ops.Activation(o.FusedActivationFunction()), PotScaleInt16: o.PotScaleInt16()}, nil
}

// Prepare checks types, shapes and quantisation.
func (k *Sub) Prepare(n *ops.Node) error {
	*k = Sub{}
	act, potScale := ops.ActNone, true
	if o, ok := n.Options.(*SubOptions); ok && o != nil {
		act, potScale = o.Activation, o.PotScaleInt16
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *SubOptions", n.Options)
	}
	a, b, out, err := k.arithBase.prepare(n, act)
	if err != nil {
		return err
	}
	switch a.Type {
	case ops.Float32, ops.Int32, ops.Int64:
		return nil
	case ops.Int8, ops.Uint8:
		if err := k.qp.prepare(a, b, out, k.act, false, true); err != nil {
			return err
		}
		k.aq = k.qp.arch()
		k.aq.Subtract = true
		return nil
	case ops.Int16:
		if potScale {
			l1, p1 := checkedLog2(a.Scale())
			l2, p2 := checkedLog2(b.Scale())
			lo, po := checkedLog2(out.Scale())
			if isQuantized(a) && isQuantized(b) && isQuantized(out) && p1 && p2 && po {
				for i, t := range []*ops.Tensor{a, b, out} {
					if t.ZeroPoint() != 0 {
						return fmt.Errorf("%s: power-of-two int16 SUB needs zero point 0, have %d", []string{"input 0", "input 1", "output 0"}[i], t.ZeroPoint())
					}
				}
				k.potS1, k.potS2 = l1-lo, l2-lo
				if k.potS1 != 0 && k.potS2 != 0 {
					return fmt.Errorf("input 0, input 1: scales %g and %g both differ from the output scale %g; one must match", a.Scale(), b.Scale(), out.Scale())
				}
				if k.potS1 > 0 || k.potS2 > 0 {
					return fmt.Errorf("input 0, input 1: an input scale larger than the output scale %g is not supported", out.Scale())
				}
				k.pot = true
				k.qp.actMin, k.qp.actMax, err = ActivationRangeQuantized(k.act, out)
				return err
			}
		}
		return k.qp.prepare(a, b, out, k.act, true, true)
	}
	return fmt.Errorf("input 0: type %s not supported (float32, int32, int64, int8, uint8, int16)", a.Type)
}

// Eval computes the difference.
func (k *Sub) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("SUB: inputs or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	switch k.typ {
	case ops.Float32:
		// Every layout goes through arch.VecSub (vectorRuns tiles or
		// gathers the broadcasts that have no long runs), then the
		// fused activation's clamp.
		o := out.Float32s()
		vectorRuns(&k.bc, a.Float32s(), b.Float32s(), o, &struct{}{}, subF32Run, k.repF[:])
		arch.VecClamp(o[:k.bc.count], k.fMin, k.fMax)
	case ops.Int32:
		broadcastApply(&k.bc, a.Int32s(), b.Int32s(), out.Int32s(), func(x, y int32) int32 {
			return int32(min(max(int64(x-y), k.iMin), k.iMax))
		})
	case ops.Int64:
		broadcastApply(&k.bc, a.Int64s(), b.Int64s(), out.Int64s(), func(x, y int64) int64 {
			return min(max(x-y, k.iMin), k.iMax)
		})
	case ops.Int8:
		vectorRuns(&k.bc, a.Int8s(), b.Int8s(), out.Int8s(), &k.aq, arch.AddQuantInt8, k.rep8[:])
	case ops.Uint8:
		vectorRuns(&k.bc, a.Uint8s(), b.Uint8s(), out.Uint8s(), &k.aq, arch.AddQuantUint8, k.repU8[:])
	case ops.Int16:
		if k.pot {
			broadcastApply(&k.bc, a.Int16s(), b.Int16s(), out.Int16s(), func(x, y int16) int16 {
				raw := int32(ops.RoundingDivideByPOT16(x, -k.potS1)) - int32(ops.RoundingDivideByPOT16(y, -k.potS2))
				return int16(ops.ClampInt32(raw, k.qp.actMin, k.qp.actMax))
			})
			return nil
		}
		broadcastApply(&k.bc, a.Int16s(), b.Int16s(), out.Int16s(), func(x, y int16) int16 {
			sx, sy := k.qp.scaledInputs(int32(x), int32(y))
			return int16(k.qp.finish(sx - sy))
		})
	}
	return nil
}
