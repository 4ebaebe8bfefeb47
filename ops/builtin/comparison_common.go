package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Comparison is the kernel of TFLite's EQUAL, NOT_EQUAL, LESS, LESS_EQUAL,
// GREATER and GREATER_EQUAL operators: out[i] = a[i] OP b[i] as bool, with
// numpy-style broadcasting (up to 6 dimensions; trailing dimensions equal
// or 1).
//
// Inputs 0 and 1 have one type; output 0 is bool. Types, as TFLite's
// comparisons.cc:
//   - float32, int32, int64 (all six), bool (EQUAL, NOT_EQUAL): compared
//     directly; a NaN is unequal to everything;
//   - int8 and uint8: always compared after rescaling both inputs to a
//     common fixed-point scale: v = ((q - zp) << 8) rescaled by the input's
//     scale with TFLite's rounding (MultiplyByQuantizedMultiplierSmallerThanOneExp),
//     so inputs with different quantisation compare by real value;
//   - int16: EQUAL/NOT_EQUAL rescale like int8 when the tensors are
//     quantised and compare raw values otherwise; the ordering operators
//     compare raw values;
//   - float16 (all six) and bfloat16 (LESS and GREATER, which TFLite
//     computes as LESS with the inputs swapped): compared as the float32
//     values they widen to exactly, as Eigen's half and bfloat16
//     comparisons do.
//
// Strings are not supported. Each operator's file (equal.go, less.go, …)
// gives its predicate on each type in a comparisonOp.
type Comparison struct {
	op     *comparisonOp
	bc     broadcast
	typ    ops.DataType
	scaled bool
	// Rescaling of quantised inputs.
	off1, off2   int32
	mult1, mult2 int32
	shift1       int
	shift2       int
}

// comparisonOp is what one comparison operator adds to the shared kernel:
// its name and its predicate on each input type. The predicates on int32
// also compare the rescaled values of quantised inputs.
type comparisonOp struct {
	name string
	// bools: the operator also takes bool inputs (EQUAL, NOT_EQUAL), and
	// rescales quantised int16 inputs like int8 ones.
	bools bool
	// bf16: the operator also takes bfloat16 inputs (LESS, GREATER).
	bf16 bool
	f32  func(x, y float32) bool
	i16  func(x, y int16) bool
	i32  func(x, y int32) bool
	i64  func(x, y int64) bool
	b    func(x, y bool) bool
}

// Prepare validates the node and sets the broadcast output shape.
func (k *Comparison) Prepare(n *ops.Node) error {
	op := k.op
	*k = Comparison{op: op}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	a, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	b, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if b.Type != a.Type {
		return fmt.Errorf("input 1: type %s differs from input 0 type %s", b.Type, a.Type)
	}
	if out.Type != ops.Bool {
		return fmt.Errorf("output 0: type %s, need bool", out.Type)
	}
	types := []ops.DataType{ops.Float32, ops.Int32, ops.Int64, ops.Int8, ops.Uint8, ops.Int16, ops.Float16}
	if op.bools {
		types = append(types, ops.Bool)
	}
	if op.bf16 {
		types = append(types, ops.BFloat16)
	}
	if err := requireType(a, "input 0", types...); err != nil {
		return fmt.Errorf("%v for %s", err, op.name)
	}
	if _, err := numElementsChecked(a, "input 0"); err != nil {
		return err
	}
	if _, err := numElementsChecked(b, "input 1"); err != nil {
		return err
	}
	if err := k.bc.prepare(a.Shape, b.Shape); err != nil {
		return err
	}
	out.Shape = k.bc.outShape
	k.typ = a.Type
	switch {
	case a.Type == ops.Int8 || a.Type == ops.Uint8:
		k.scaled = true
	case a.Type == ops.Int16 && op.bools:
		k.scaled = isQuantized(a)
	}
	if k.scaled {
		// TFLite reads params.scale and params.zero_point, which are 0 for
		// a tensor without quantisation; an all-zero multiplier then maps
		// every value to 0, as there.
		k.off1, k.off2 = -a.ZeroPoint(), -b.ZeroPoint()
		k.mult1, k.shift1 = ops.QuantizeMultiplier(float64(a.Scale()))
		k.mult2, k.shift2 = ops.QuantizeMultiplier(float64(b.Scale()))
	}
	return nil
}

// Eval computes the comparison.
func (k *Comparison) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return errors.New("comparison: input or output missing at Eval")
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	o := out.Bools()
	if k.scaled {
		switch k.typ {
		case ops.Int8:
			compareScaled(k, a.Int8s(), b.Int8s(), o)
		case ops.Uint8:
			compareScaled(k, a.Data, b.Data, o)
		default:
			compareScaled(k, a.Int16s(), b.Int16s(), o)
		}
		return nil
	}
	switch k.typ {
	case ops.Float32:
		broadcastMap(&k.bc, a.Float32s(), b.Float32s(), o, k.op.f32)
	case ops.Int32:
		broadcastMap(&k.bc, a.Int32s(), b.Int32s(), o, k.op.i32)
	case ops.Int64:
		broadcastMap(&k.bc, a.Int64s(), b.Int64s(), o, k.op.i64)
	case ops.Int16:
		broadcastMap(&k.bc, a.Int16s(), b.Int16s(), o, k.op.i16)
	case ops.Bool:
		broadcastMap(&k.bc, a.Bools(), b.Bools(), o, k.op.b)
	case ops.Float16:
		f := k.op.f32
		broadcastMap(&k.bc, a.Uint16s(), b.Uint16s(), o, func(x, y uint16) bool {
			return f(halfToFloat32(x), halfToFloat32(y))
		})
	case ops.BFloat16:
		f := k.op.f32
		broadcastMap(&k.bc, a.Uint16s(), b.Uint16s(), o, func(x, y uint16) bool {
			return f(math.Float32frombits(uint32(x)<<16), math.Float32frombits(uint32(y)<<16))
		})
	}
	return nil
}

// rescale maps a quantised value to TFLite's common comparison scale:
// ((q + offset)·2^8)·multiplier with the smaller-than-one rounding. A
// multiplier ≥ 1 (input scale ≥ 1, where TFLite's right shift by a negative
// amount is undefined) is applied with a left shift instead.
func rescale(q, off, mult int32, shift int) int32 {
	v := (q + off) * (1 << 8)
	if shift > 0 {
		return ops.MultiplyByQuantizedMultiplier(v, mult, shift)
	}
	return ops.MultiplyByQuantizedMultiplierSmallerThanOneExp(v, mult, shift)
}

func compareScaled[T int8 | uint8 | int16](k *Comparison, a, b []T, o []bool) {
	f := k.op.i32
	off1, m1, s1, off2, m2, s2 := k.off1, k.mult1, k.shift1, k.off2, k.mult2, k.shift2
	broadcastMap(&k.bc, a, b, o, func(x, y T) bool {
		return f(rescale(int32(x), off1, m1, s1), rescale(int32(y), off2, m2, s2))
	})
}
