package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Add is the kernel of TFLite's ADD operator: out = act(a + b) elementwise
// with NumPy broadcasting of up to 6 dimensions (equal shapes take a flat
// loop). All inputs and the output share one type.
//
// Type paths: float32; int32 and int64 (wrapping addition, then the fused
// activation's integer bounds); int8 and uint8 with TFLite's general
// quantised arithmetic (both inputs shifted left by 20 and rescaled to
// twice the larger input scale, summed, rescaled to the output with
// gemmlowp's double rounding, clamped to the quantised activation range);
// quantised int16 with zero points 0, either the same general arithmetic
// with a left shift of 15 (AddOptions.PotScaleInt16 false, or scales that
// are not powers of two) or TFLite's power-of-two path (one input
// rounding-shifted to the other's scale, saturating int16 sum; no
// broadcasting); non-quantised int16 (TFLite's version 5: the int16 sum
// wraps, then the fused activation's int16 bounds clamp it); float16
// (version 6: each sum computed in float32 and rounded to half, then
// clamped to the activation's half range, see halfArith).
type Add struct {
	arithBase
	plain16 bool // non-quantised int16
	pot     bool
	potS    int  // right shift of the shifted input (POT path)
	potA    bool // the shifted input is input 0
	qp      quantAddParams
	aq      arch.QuantAdd // qp for arch.AddQuantInt8/Uint8 (int8, uint8)
	rep8    []int8        // vectorRuns' scratch, repStride per thread
	repU8   []uint8
	run     elementwiseRun
	partFn  func(worker, lo, hi int)
}

// NewAdd returns an ADD kernel for one node.
func NewAdd() ops.Kernel { return &Add{} }

// AddOptions is TFLite's AddOptions.
type AddOptions struct {
	Activation ops.Activation
	// PotScaleInt16 selects the power-of-two-scale int16 path (schema
	// default true).
	PotScaleInt16 bool
}

func init() {
	// Versions 1-6, as TFLite's register.cc.
	register(ops.OpAdd, NewAdd, [2]int{1, 6})
	registerOptions(schema.BuiltinOptionsAddOptions, decodeAddOptions)
}

// decodeAddOptions decodes TFLite's AddOptions table.
func decodeAddOptions(t ops.OptionsTable) (any, error) {
	var o schema.AddOptions
	initTable(&o, t)
	return &AddOptions{Activation: ops.Activation(o.FusedActivationFunction()), PotScaleInt16: o.PotScaleInt16()}, nil
}

// Prepare checks types, shapes and quantisation.
func (k *Add) Prepare(n *ops.Node) error {
	*k = Add{}
	k.partFn = k.evalPart
	act, potScale := ops.ActNone, true
	if o, ok := n.Options.(*AddOptions); ok && o != nil {
		act, potScale = o.Activation, o.PotScaleInt16
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *AddOptions", n.Options)
	}
	a, b, out, err := k.arithBase.prepare(n, act)
	if err != nil {
		return err
	}
	if a.Type == ops.Int8 || a.Type == ops.Uint8 {
		k.rep8, k.repU8 = make([]int8, repStride*n.Threads()), make([]uint8, repStride*n.Threads())
	}
	switch a.Type {
	case ops.Float32, ops.Int32, ops.Int64:
		return nil
	case ops.Float16:
		k.fMin, k.fMax = halfActivationRange(k.act)
		return nil
	case ops.Int8, ops.Uint8:
		if err := k.qp.prepare(a, b, out, k.act, false, false); err != nil {
			return err
		}
		k.aq = k.qp.arch()
		return nil
	case ops.Int16:
		if !isQuantized(a) || !isQuantized(out) {
			// TFLite takes the plain path when the output has no
			// quantisation.
			k.plain16 = true
			k.iMin, k.iMax = activationRangeInt(k.act, math.MinInt16, math.MaxInt16)
			return nil
		}
		for i, t := range []*ops.Tensor{a, b, out} {
			if t.ZeroPoint() != 0 {
				return fmt.Errorf("%s: int16 ADD needs zero point 0, have %d", []string{"input 0", "input 1", "output 0"}[i], t.ZeroPoint())
			}
		}
		if potScale {
			l1, p1 := checkedLog2(a.Scale())
			l2, p2 := checkedLog2(b.Scale())
			lo, po := checkedLog2(out.Scale())
			if p1 && p2 && po {
				return k.preparePOT(a, b, out, l1-lo, l2-lo)
			}
		}
		return k.qp.prepare(a, b, out, k.act, true, false)
	}
	return fmt.Errorf("input 0: type %s not supported (float32, float16, int32, int64, int8, uint8, int16)", a.Type)
}

func (k *Add) preparePOT(a, b, out *ops.Tensor, s1, s2 int) error {
	if k.bc.needed {
		return fmt.Errorf("input 1: shape %v differs from input 0 %v; TFLite's power-of-two int16 ADD does not broadcast", b.Shape, a.Shape)
	}
	if s1 != 0 && s2 != 0 {
		return fmt.Errorf("input 0, input 1: scales %g and %g both differ from the output scale %g; one must match", a.Scale(), b.Scale(), out.Scale())
	}
	if s1 > 0 || s2 > 0 {
		return fmt.Errorf("input 0, input 1: an input scale larger than the output scale %g is not supported", out.Scale())
	}
	k.pot = true
	k.potA = s1 != 0
	k.potS = -s1
	if !k.potA {
		k.potS = -s2
	}
	var err error
	k.qp.actMin, k.qp.actMax, err = ActivationRangeQuantized(k.act, out)
	return err
}

// Eval computes the sum.
func (k *Add) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("ADD: inputs or output missing at Eval")
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
			return int32(min(max(int64(x+y), k.iMin), k.iMax))
		})
	case ops.Int64:
		broadcastApply(&k.bc, a.Int64s(), b.Int64s(), out.Int64s(), func(x, y int64) int64 {
			return min(max(x+y, k.iMin), k.iMax)
		})
	case ops.Float16:
		lo, hi := k.fMin, k.fMax
		broadcastApply(&k.bc, a.Uint16s(), b.Uint16s(), out.Uint16s(), func(x, y uint16) uint16 {
			return halfArith(halfToFloat32(x)+halfToFloat32(y), lo, hi)
		})
	case ops.Int16:
		if k.plain16 {
			lo, hi := int16(k.iMin), int16(k.iMax)
			broadcastApply(&k.bc, a.Int16s(), b.Int16s(), out.Int16s(), func(x, y int16) int16 {
				return min(max(x+y, lo), hi)
			})
			return nil
		}
		if k.pot {
			lo, hi := int16(k.qp.actMin), int16(k.qp.actMax)
			broadcastApply(&k.bc, a.Int16s(), b.Int16s(), out.Int16s(), func(x, y int16) int16 {
				if k.potA {
					x, y = y, x
				}
				s := saturatingAdd16(x, ops.RoundingDivideByPOT16(y, k.potS))
				return min(max(s, lo), hi)
			})
			return nil
		}
		broadcastApply(&k.bc, a.Int16s(), b.Int16s(), out.Int16s(), func(x, y int16) int16 {
			sx, sy := k.qp.scaledInputs(int32(x), int32(y))
			return int16(k.qp.finish(sx + sy))
		})
	}
	return nil
}

// evalPart computes the output units [lo, hi) (broadcast.splitUnits) of
// the float32, int8 and uint8 paths, on worker's buffers.
func (k *Add) evalPart(worker, lo, hi int) {
	bc, ao, bo, oo := k.bc.part(lo, hi)
	a, b, out := k.run.a, k.run.b, k.run.out
	switch k.typ {
	case ops.Float32:
		broadcastFloat32(&bc, a.Float32s()[ao:], b.Float32s()[bo:], out.Float32s()[oo:], floatAdd, k.fMin, k.fMax)
	case ops.Int8:
		vectorRuns(&bc, a.Int8s()[ao:], b.Int8s()[bo:], out.Int8s()[oo:], &k.aq, arch.AddQuantInt8, k.rep8[worker*repStride:(worker+1)*repStride])
	case ops.Uint8:
		vectorRuns(&bc, a.Uint8s()[ao:], b.Uint8s()[bo:], out.Uint8s()[oo:], &k.aq, arch.AddQuantUint8, k.repU8[worker*repStride:(worker+1)*repStride])
	}
}
