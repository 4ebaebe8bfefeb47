package builtin

import (
	"errors"
	"fmt"

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
// activation range. Non-quantised int16, int16 → int8/uint8, uint32 and
// complex64 are not supported.
type Mul struct {
	arithBase
	off1, off2 int32
	outOff     int32
	mult       int32
	shift      int
	qMin, qMax int32
}

// NewMul returns a MUL kernel for one node.
func NewMul() ops.Kernel { return &Mul{} }

// MulOptions is TFLite's MulOptions.
type MulOptions struct {
	Activation ops.Activation
}

func init() {
	// TFLite 1-7; 6 is complex64, 7 non-quantised int16 and uint32.
	register(ops.OpMul, NewMul, [2]int{1, 5})
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
	switch a.Type {
	case ops.Float32, ops.Int32, ops.Int64:
		return nil
	case ops.Int8, ops.Uint8, ops.Int16:
		if a.Type == ops.Int16 && !isQuantized(out) {
			return errors.New("output 0: non-quantized int16 MUL is not supported")
		}
	default:
		return fmt.Errorf("input 0: type %s not supported (float32, int32, int64, int8, uint8, int16)", a.Type)
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
	case ops.Float32:
		broadcastFloat32(&k.bc, a.Float32s(), b.Float32s(), out.Float32s(), floatMul, k.fMin, k.fMax)
	case ops.Int32:
		broadcastApply(&k.bc, a.Int32s(), b.Int32s(), out.Int32s(), func(x, y int32) int32 {
			return int32(min(max(int64(x*y), k.iMin), k.iMax))
		})
	case ops.Int64:
		broadcastApply(&k.bc, a.Int64s(), b.Int64s(), out.Int64s(), func(x, y int64) int64 {
			return min(max(x*y, k.iMin), k.iMax)
		})
	case ops.Int8:
		broadcastApply(&k.bc, a.Int8s(), b.Int8s(), out.Int8s(), func(x, y int8) int8 {
			return int8(k.quant(int32(x), int32(y)))
		})
	case ops.Uint8:
		broadcastApply(&k.bc, a.Uint8s(), b.Uint8s(), out.Uint8s(), func(x, y uint8) uint8 {
			return uint8(k.quant(int32(x), int32(y)))
		})
	case ops.Int16:
		broadcastApply(&k.bc, a.Int16s(), b.Int16s(), out.Int16s(), func(x, y int16) int16 {
			return int16(k.quant(int32(x), int32(y)))
		})
	}
	return nil
}
