package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Mul is the kernel of TFLite's MUL operator: out = act(a · b)
// elementwise with NumPy broadcasting of up to 6 dimensions. All inputs
// and the output share one type.
//
// Type paths: float32; int32 and int64 (wrapping product, then the fused
// activation's integer bounds); int8, uint8 and int16 (zero points 0)
// quantised as TFLite's MulElementwise: (a − za)(b − zb) rescaled by
// sa·sb/so (computed in float32 as TFLite does) with gemmlowp's double
// rounding, plus the output zero point, clamped to the quantised
// activation range; complex64 (version 6; no fused activation allowed;
// the product as C++'s std::complex<float>, with C99 Annex G's recovery of
// infinities); non-quantised int16 and uint32 (version 7: wrapping
// product, then the activation's bounds in the type, where RELU_N1_TO_1's
// −1 becomes uint32's maximum as in TFLite); float16 (version 8: each
// product computed in float32 and rounded to half, then clamped to the
// activation's half range). int16 inputs with an int8 or uint8 output are
// not supported.
type Mul struct {
	arithBase
	plain16    bool // non-quantised int16
	off1, off2 int32
	outOff     int32
	mult       int32
	shift      int
	qMin, qMax int32
	mq         arch.QuantMul // the int8/uint8 parameters for arch.MulQuantInt8/Uint8
	rep8       []int8        // vectorRuns' scratch, repStride per thread
	repU8      []uint8
	run        elementwiseRun
	partFn     func(worker, lo, hi int)
}

// NewMul returns a MUL kernel for one node.
func NewMul() ops.Kernel { return &Mul{} }

// MulOptions is TFLite's MulOptions.
type MulOptions struct {
	Activation ops.Activation
}

func init() {
	// Versions 1-8, as TFLite's register.cc.
	register(ops.OpMul, NewMul, [2]int{1, 8})
	registerOptions(schema.BuiltinOptionsMulOptions, decodeMulOptions)
}

// decodeMulOptions decodes TFLite's MulOptions table.
func decodeMulOptions(t ops.OptionsTable) (any, error) {
	var o schema.MulOptions
	initTable(&o, t)
	return &MulOptions{Activation: ops.Activation(o.FusedActivationFunction())}, nil
}

// Prepare checks types, shapes and quantisation.
func (k *Mul) Prepare(n *ops.Node) error {
	*k = Mul{}
	k.partFn = k.evalPart
	act := ops.ActNone
	if o, ok := n.Options.(*MulOptions); ok && o != nil {
		act = o.Activation
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *MulOptions", n.Options)
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
	case ops.Complex64:
		if k.act != ops.ActNone {
			return fmt.Errorf("options: fused activation %s is not allowed for complex64 (TFLite refuses it)", k.act)
		}
		return nil
	case ops.Uint32:
		lo, hi := activationRangeInt(k.act, 0, math.MaxUint32)
		k.iMin, k.iMax = int64(uint32(lo)), hi // −1 wraps, as TFLite's T(−1)
		return nil
	case ops.Int8, ops.Uint8, ops.Int16:
		if a.Type == ops.Int16 && !isQuantized(out) {
			k.plain16 = true
			k.iMin, k.iMax = activationRangeInt(k.act, math.MinInt16, math.MaxInt16)
			return nil
		}
	default:
		return fmt.Errorf("input 0: type %s not supported (float32, float16, complex64, int32, uint32, int64, int8, uint8, int16)", a.Type)
	}
	s1, z1, err := perTensorQuant(a, "input 0")
	if err != nil {
		return err
	}
	s2, z2, err := perTensorQuant(b, "input 1")
	if err != nil {
		return err
	}
	so, zo, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	if a.Type == ops.Int16 && (z1 != 0 || z2 != 0 || zo != 0) {
		return fmt.Errorf("input 0: int16 MUL needs zero points 0, have %d, %d and output %d", z1, z2, zo)
	}
	k.off1, k.off2, k.outOff = -z1, -z2, zo
	k.mult, k.shift = ops.QuantizeMultiplier(float64(float32(s1*s2) / so))
	k.qMin, k.qMax, err = ActivationRangeQuantized(k.act, out)
	k.mq = arch.QuantMul{In1Offset: k.off1, In2Offset: k.off2, Mult: k.mult, Shift: k.shift, OutOffset: k.outOff, Lo: k.qMin, Hi: k.qMax}
	return err
}

func (k *Mul) quant(x, y int32) int32 {
	v := k.outOff + ops.MultiplyByQuantizedMultiplier((x+k.off1)*(y+k.off2), k.mult, k.shift)
	return ops.ClampInt32(v, k.qMin, k.qMax)
}

// Eval computes the product.
func (k *Mul) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("MUL: inputs or output missing at Eval")
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
			return int32(min(max(int64(x*y), k.iMin), k.iMax))
		})
	case ops.Int64:
		broadcastApply(&k.bc, a.Int64s(), b.Int64s(), out.Int64s(), func(x, y int64) int64 {
			return min(max(x*y, k.iMin), k.iMax)
		})
	case ops.Int16:
		if k.plain16 {
			lo, hi := int16(k.iMin), int16(k.iMax)
			broadcastApply(&k.bc, a.Int16s(), b.Int16s(), out.Int16s(), func(x, y int16) int16 {
				return min(max(x*y, lo), hi)
			})
			return nil
		}
		broadcastApply(&k.bc, a.Int16s(), b.Int16s(), out.Int16s(), func(x, y int16) int16 {
			return int16(k.quant(int32(x), int32(y)))
		})
	case ops.Uint32:
		lo, hi := uint32(k.iMin), uint32(k.iMax)
		broadcastApply(&k.bc, a.Uint32s(), b.Uint32s(), out.Uint32s(), func(x, y uint32) uint32 {
			return min(max(x*y, lo), hi)
		})
	case ops.Float16:
		lo, hi := k.fMin, k.fMax
		broadcastApply(&k.bc, a.Uint16s(), b.Uint16s(), out.Uint16s(), func(x, y uint16) uint16 {
			return halfArith(halfToFloat32(x)*halfToFloat32(y), lo, hi)
		})
	case ops.Complex64:
		broadcastApply(&k.bc, ops.View[[2]float32](a.Data), ops.View[[2]float32](b.Data), ops.View[[2]float32](out.Data), complexMul)
	}
	return nil
}

// complexMul is std::complex<float> multiplication as GCC compiles it: the
// schoolbook formula in float32 (each product rounded on its own), and,
// when both parts come out NaN, libgcc's __mulsc3 recovery of infinite
// operands and overflowed products (C99 Annex G).
func complexMul(x, y [2]float32) [2]float32 {
	a, b, c, d := x[0], x[1], y[0], y[1]
	ac, bd, ad, bc := float32(a*c), float32(b*d), float32(a*d), float32(b*c)
	re, im := ac-bd, ad+bc
	if !cmulIsNaN(re) || !cmulIsNaN(im) {
		return [2]float32{re, im}
	}
	box := func(v float32) float32 { // copysign(isinf(v) ? 1 : 0, v)
		if cmulIsInf(v) {
			return cmulCopySign(1, v)
		}
		return cmulCopySign(0, v)
	}
	zero := func(v float32) float32 { // NaN → copysign(0, v)
		if cmulIsNaN(v) {
			return cmulCopySign(0, v)
		}
		return v
	}
	recalc := false
	if cmulIsInf(a) || cmulIsInf(b) {
		a, b, c, d = box(a), box(b), zero(c), zero(d)
		recalc = true
	}
	if cmulIsInf(c) || cmulIsInf(d) {
		c, d, a, b = box(c), box(d), zero(a), zero(b)
		recalc = true
	}
	if !recalc && (cmulIsInf(ac) || cmulIsInf(bd) || cmulIsInf(ad) || cmulIsInf(bc)) {
		a, b, c, d = zero(a), zero(b), zero(c), zero(d)
		recalc = true
	}
	if recalc {
		inf := float32(math.Inf(1))
		re = inf * (float32(a*c) - float32(b*d))
		im = inf * (float32(a*d) + float32(b*c))
	}
	return [2]float32{re, im}
}

func cmulIsNaN(v float32) bool { return v != v }
func cmulIsInf(v float32) bool { return v > math.MaxFloat32 || v < -math.MaxFloat32 }
func cmulCopySign(v, sign float32) float32 {
	return float32(math.Copysign(float64(v), float64(sign)))
}

// evalPart computes the output units [lo, hi) (broadcast.splitUnits) of
// the float32, int8 and uint8 paths, on worker's buffers.
func (k *Mul) evalPart(worker, lo, hi int) {
	bc, ao, bo, oo := k.bc.part(lo, hi)
	a, b, out := k.run.a, k.run.b, k.run.out
	switch k.typ {
	case ops.Float32:
		broadcastFloat32(&bc, a.Float32s()[ao:], b.Float32s()[bo:], out.Float32s()[oo:], floatMul, k.fMin, k.fMax)
	case ops.Int8:
		vectorRuns(&bc, a.Int8s()[ao:], b.Int8s()[bo:], out.Int8s()[oo:], &k.mq, arch.MulQuantInt8, k.rep8[worker*repStride:(worker+1)*repStride])
	case ops.Uint8:
		vectorRuns(&bc, a.Uint8s()[ao:], b.Uint8s()[bo:], out.Uint8s()[oo:], &k.mq, arch.MulQuantUint8, k.repU8[worker*repStride:(worker+1)*repStride])
	}
}
