package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Div is the kernel of TFLite's DIV operator: out = act(a / b) element-wise
// with numpy-style broadcasting, as TFLite's div.cc.
//
// Type paths: float32 (IEEE division; a zero divisor gives ±Inf or NaN,
// which the activation bounds then clamp to ±FLT_MAX as TFLite's do, NaN
// passing through); int32 (truncating division, then the activation's
// integer bounds; Eval fails when any divisor is 0, as TFLite's does, and
// −2^31 / −1 wraps to −2^31). Quantised DIV is not supported.
type Div struct {
	act        ops.Activation
	bc         broadcast
	typ        ops.DataType
	fMin, fMax float32
	iMin, iMax int32
}

// NewDiv returns a DIV kernel for one node.
func NewDiv() ops.Kernel { return &Div{} }

// DivOptions is TFLite's DivOptions (operator DIV).
type DivOptions struct {
	Activation ops.Activation
}

func init() {
	register(ops.OpDiv, NewDiv, [2]int{1, 2})
	registerOptions(schema.BuiltinOptionsDivOptions, decodeDivOptions)
}

// decodeDivOptions decodes TFLite's DivOptions table.
func decodeDivOptions(t ops.OptionsTable) (any, error) {
	var o schema.DivOptions
	initTable(&o, t)
	return &DivOptions{Activation: ops.Activation(o.FusedActivationFunction())}, nil
}

// Prepare checks the types and the activation.
func (k *Div) Prepare(n *ops.Node) error {
	*k = Div{}
	if o, ok := n.Options.(*DivOptions); ok && o != nil {
		k.act = o.Activation
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *DivOptions", n.Options)
	}
	if err := checkActivation(k.act); err != nil {
		return fmt.Errorf("options: %v", err)
	}
	a, _, _, err := binaryInputs(n, &k.bc)
	if err != nil {
		return err
	}
	if err := requireType(a, "input 0", ops.Float32, ops.Int32); err != nil {
		return fmt.Errorf("%v; quantised DIV is not supported", err)
	}
	k.typ = a.Type
	k.fMin, k.fMax = ActivationRangeFloat(k.act)
	lo, hi := activationRangeInt(k.act, math.MinInt32, math.MaxInt32)
	k.iMin, k.iMax = int32(lo), int32(hi)
	return nil
}

// Eval divides.
func (k *Div) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("DIV: input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	if k.typ == ops.Float32 {
		lo, hi := k.fMin, k.fMax
		broadcastMap(&k.bc, a.Float32s(), b.Float32s(), out.Float32s(), func(x, y float32) float32 {
			return clampF32(x/y, lo, hi)
		})
		return nil
	}
	bv := b.Int32s()[:b.NumElements()]
	if i := indexOfZero(bv); i >= 0 {
		return fmt.Errorf("DIV: input 1: element %d is 0 (integer division by zero)", i)
	}
	lo, hi := k.iMin, k.iMax
	broadcastMap(&k.bc, a.Int32s(), bv, out.Int32s(), func(x, y int32) int32 {
		return ops.ClampInt32(x/y, lo, hi)
	})
	return nil
}
