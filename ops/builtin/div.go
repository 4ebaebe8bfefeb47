package builtin

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

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
// −2^31 / −1 wraps to −2^31); quantised uint8, int8 and int16 (per-tensor
// quantisation), as TFLite's reference DivElementwise: with x and y the
// inputs minus their zero points (both negated when y < 0), the quotient
// is x·2^headroom times the fixed-point reciprocal of y (gemmlowp's
// Newton-Raphson one_over_one_plus_x_for_x_in_0_1), rescaled by the
// output multiplier s1/(s2·so) and a shift, plus the output zero point,
// clamped to the activation's quantised range. Eval fails when a divisor
// equals its zero point. See divQuotient for the one place where TFLite's
// arithmetic leaves the defined range.
type Div struct {
	act        ops.Activation
	bc         broadcast
	typ        ops.DataType
	fMin, fMax float32
	iMin, iMax int32
	// Quantised paths.
	off1, off2, outOff int32
	zp2                int32 // divisor zero point, checked at Eval
	mult               int32
	shift              int
	qMin, qMax         int32
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
	if err := requireType(a, "input 0", ops.Float32, ops.Int32, ops.Uint8, ops.Int8, ops.Int16); err != nil {
		return err
	}
	k.typ = a.Type
	switch a.Type {
	case ops.Uint8, ops.Int8, ops.Int16:
		return k.prepareQuant(n)
	}
	k.fMin, k.fMax = ActivationRangeFloat(k.act)
	lo, hi := activationRangeInt(k.act, math.MinInt32, math.MaxInt32)
	k.iMin, k.iMax = int32(lo), int32(hi)
	return nil
}

// prepareQuant derives the quantised parameters as TFLite's Prepare does.
func (k *Div) prepareQuant(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if isPerChannel(b) {
		return fmt.Errorf("input 1: DIV supports per-tensor quantisation only, have %d zero points", len(b.Quant.ZeroPoint))
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
	if k.qMin, k.qMax, err = ActivationRangeQuantized(k.act, out); err != nil {
		return err
	}
	k.off1, k.off2, k.outOff, k.zp2 = -z1, -z2, zo, z2
	// float arithmetic, as TFLite's params.scale expression, then double.
	k.mult, k.shift = ops.QuantizeMultiplier(float64(s1 / (s2 * so)))
	return nil
}

// divQuotient is one quantised quotient of TFLite's DivElementwise: x and
// y are the inputs minus their zero points (y ≠ 0).
func (k *Div) divQuotient(x, y int32) int32 {
	if y < 0 {
		x, y = -x, -y
	}
	inv, recipShift := divReciprocal(y)
	headroom := countLeadingSignBits(x)
	unscaled := ops.SaturatingRoundingDoublingHighMul(x*(int32(1)<<headroom), inv)
	total := k.shift - recipShift - headroom
	v := divRoundingPOT(ops.SaturatingRoundingDoublingHighMul(unscaled, k.mult), -total) + k.outOff
	return ops.ClampInt32(v, k.qMin, k.qMax)
}

// countLeadingSignBits is TFLite's CountLeadingSignBits for int32 (GCC's
// __builtin_clrsb, 31 for 0): the redundant sign bits below the top one.
func countLeadingSignBits(x int32) int {
	if x < 0 {
		x = ^x
	}
	return bits.LeadingZeros32(uint32(x)) - 1
}

// divReciprocal is TFLite's GetReciprocal(y, 31, &shift) for y > 0: y
// normalised to [1, 2) as 1 + f, the Q0.31 value of 1/(1 + f) from
// gemmlowp's one_over_one_plus_x_for_x_in_0_1, and the shift (the bits of
// y above the unit).
func divReciprocal(y int32) (inv int32, shift int) {
	hp1 := bits.LeadingZeros32(uint32(y))
	shift = 31 - hp1
	f := int32(uint32(y)<<hp1 - 1<<31)
	// Newton-Raphson in gemmlowp's fixed point: half the denominator in
	// Q0.31 (RoundingHalfSum with One() = 2^31−1), x in Q2.29.
	s := int64(f) + math.MaxInt32
	sign := int64(1)
	if s < 0 {
		sign = -1
	}
	half := int32((s + sign) / 2)
	x := 1515870810 + ops.SaturatingRoundingDoublingHighMul(half, -1010580540) // 48/17 − 32/17·d
	for i := 0; i < 3; i++ {
		hx := ops.SaturatingRoundingDoublingHighMul(half, x)
		oneMinus := int32(1<<29) - hx
		x += saturatingShiftLeft(ops.SaturatingRoundingDoublingHighMul(x, oneMinus), 2)
	}
	return saturatingShiftLeft(x, 1), shift
}

// divRoundingPOT is gemmlowp's RoundingDivideByPOT(x, e) as TFLite's x86
// build executes it. DIV is the one kernel that can call it with e outside
// [0, 31] (a small |x| has a large headroom, so the total shift can exceed
// 31; an output scale far below the input's makes it negative), where
// gemmlowp's arithmetic is undefined in C++: the machine's 64-bit shift
// of the mask (1 << e) − 1 counts e mod 64, its 32-bit arithmetic right
// shift e mod 32.
func divRoundingPOT(x int32, e int) int32 {
	if e >= 0 && e <= 31 {
		return ops.RoundingDivideByPOT(x, e)
	}
	mask := int32(int64(1)<<(uint(e)&63) - 1)
	threshold := mask >> 1
	if x < 0 {
		threshold++
	}
	r := x >> (uint(e) & 31)
	if x&mask > threshold {
		r++
	}
	return r
}

// divZeroPointError reports a divisor equal to its zero point (a real
// zero); a value type, so that returning it does not allocate.
type divZeroPointError struct {
	pos int
	zp  int32
}

func (e divZeroPointError) Error() string {
	return fmt.Sprintf("DIV: input 1: element %d equals the zero point %d (division by zero)", e.pos, e.zp)
}

// divQuant divides quantised tensors, after checking every divisor.
func divQuant[T uint8 | int8 | int16](k *Div, a, b, out []T) error {
	for i, v := range b {
		if int32(v) == k.zp2 {
			return divZeroPointError{i, k.zp2}
		}
	}
	off1, off2 := k.off1, k.off2
	broadcastApply(&k.bc, a, b, out, func(x, y T) T {
		return T(k.divQuotient(int32(x)+off1, int32(y)+off2))
	})
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
	switch k.typ {
	case ops.Uint8:
		return divQuant(k, a.Uint8s(), b.Uint8s()[:b.NumElements()], out.Uint8s())
	case ops.Int8:
		return divQuant(k, a.Int8s(), b.Int8s()[:b.NumElements()], out.Int8s())
	case ops.Int16:
		return divQuant(k, a.Int16s(), b.Int16s()[:b.NumElements()], out.Int16s())
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
