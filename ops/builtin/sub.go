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
	// vectorRuns' scratch, repStride per thread.
	rep8  []int8
	repU8 []uint8
	repF  []float32
	// The float32, int8 and uint8 paths split the output over threads
	// (evalPart); run holds the tensors during Eval.
	run    elementwiseRun
	partFn func(worker, lo, hi int)
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
	k.partFn = k.evalPart
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
	case ops.Float32:
		k.repF = make([]float32, repStride*n.Threads())
		return nil
	case ops.Int32, ops.Int64:
		return nil
	case ops.Int8, ops.Uint8:
		if a.Type == ops.Int8 {
			k.rep8 = make([]int8, repStride*n.Threads())
		} else {
			k.repU8 = make([]uint8, repStride*n.Threads())
		}
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
	case ops.Float32, ops.Int8, ops.Uint8:
		// Threaded over parts of the output (evalPart).
		units, _ := k.bc.splitUnits()
		cost := 1
		if k.typ != ops.Float32 {
			cost = 4 // the requantisation
		}
		k.run = elementwiseRun{a, b, out}
		n.Parallel(units, k.bc.count*cost, k.partFn)
		k.run = elementwiseRun{}
	case ops.Int32:
		broadcastApply(&k.bc, a.Int32s(), b.Int32s(), out.Int32s(), func(x, y int32) int32 {
			return int32(min(max(int64(x-y), k.iMin), k.iMax))
		})
	case ops.Int64:
		broadcastApply(&k.bc, a.Int64s(), b.Int64s(), out.Int64s(), func(x, y int64) int64 {
			return min(max(x-y, k.iMin), k.iMax)
		})
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

// evalPart computes the output units [lo, hi) (broadcast.splitUnits) of
// the float32, int8 and uint8 paths on worker's scratch. Every layout
// goes through the vector primitive (vectorRuns tiles or gathers the
// broadcasts that have no long runs); float32 then takes the fused
// activation's clamp over the part.
func (k *Sub) evalPart(worker, lo, hi int) {
	bc, ao, bo, oo := k.bc.part(lo, hi)
	a, b, out := k.run.a, k.run.b, k.run.out
	r0, r1 := worker*repStride, (worker+1)*repStride
	switch k.typ {
	case ops.Float32:
		o := out.Float32s()[oo:]
		vectorRuns(&bc, a.Float32s()[ao:], b.Float32s()[bo:], o, &struct{}{}, subF32Run, k.repF[r0:r1])
		arch.VecClamp(o[:bc.count], k.fMin, k.fMax)
	case ops.Int8:
		vectorRuns(&bc, a.Int8s()[ao:], b.Int8s()[bo:], out.Int8s()[oo:], &k.aq, arch.AddQuantInt8, k.rep8[r0:r1])
	case ops.Uint8:
		vectorRuns(&bc, a.Uint8s()[ao:], b.Uint8s()[bo:], out.Uint8s()[oo:], &k.aq, arch.AddQuantUint8, k.repU8[r0:r1])
	}
}
