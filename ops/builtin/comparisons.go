package builtin

import (
	"errors"
	"fmt"

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
//     compare raw values.
//
// Strings and float16 are not supported.
type Comparison struct {
	op     cmpOp
	bc     broadcast
	typ    ops.DataType
	scaled bool
	// Rescaling of quantised inputs.
	off1, off2   int32
	mult1, mult2 int32
	shift1       int
	shift2       int
}

type cmpOp uint8

const (
	cmpEqual cmpOp = iota
	cmpNotEqual
	cmpLess
	cmpLessEqual
	cmpGreater
	cmpGreaterEqual
)

var cmpNames = [...]string{"EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"}

// NewEqual returns an EQUAL kernel for one node.
func NewEqual() ops.Kernel { return &Comparison{op: cmpEqual} }

// NewNotEqual returns a NOT_EQUAL kernel for one node.
func NewNotEqual() ops.Kernel { return &Comparison{op: cmpNotEqual} }

// NewLess returns a LESS kernel for one node.
func NewLess() ops.Kernel { return &Comparison{op: cmpLess} }

// NewLessEqual returns a LESS_EQUAL kernel for one node.
func NewLessEqual() ops.Kernel { return &Comparison{op: cmpLessEqual} }

// NewGreater returns a GREATER kernel for one node.
func NewGreater() ops.Kernel { return &Comparison{op: cmpGreater} }

// NewGreaterEqual returns a GREATER_EQUAL kernel for one node.
func NewGreaterEqual() ops.Kernel { return &Comparison{op: cmpGreaterEqual} }

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
	types := []ops.DataType{ops.Float32, ops.Int32, ops.Int64, ops.Int8, ops.Uint8, ops.Int16}
	if op == cmpEqual || op == cmpNotEqual {
		types = append(types, ops.Bool)
	}
	if err := requireType(a, "input 0", types...); err != nil {
		return fmt.Errorf("%v for %s", err, cmpNames[op])
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
	case a.Type == ops.Int16 && (op == cmpEqual || op == cmpNotEqual):
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
		compareOrdered(k, a.Float32s(), b.Float32s(), o)
	case ops.Int32:
		compareOrdered(k, a.Int32s(), b.Int32s(), o)
	case ops.Int64:
		compareOrdered(k, a.Int64s(), b.Int64s(), o)
	case ops.Int16:
		compareOrdered(k, a.Int16s(), b.Int16s(), o)
	case ops.Bool:
		ab, bb := a.Bools(), b.Bools()
		if k.op == cmpEqual {
			broadcastMap(&k.bc, ab, bb, o, func(x, y bool) bool { return x == y })
		} else {
			broadcastMap(&k.bc, ab, bb, o, func(x, y bool) bool { return x != y })
		}
	}
	return nil
}

func compareOrdered[T float32 | int16 | int32 | int64](k *Comparison, a, b []T, o []bool) {
	switch k.op {
	case cmpEqual:
		broadcastMap(&k.bc, a, b, o, func(x, y T) bool { return x == y })
	case cmpNotEqual:
		broadcastMap(&k.bc, a, b, o, func(x, y T) bool { return x != y })
	case cmpLess:
		broadcastMap(&k.bc, a, b, o, func(x, y T) bool { return x < y })
	case cmpLessEqual:
		broadcastMap(&k.bc, a, b, o, func(x, y T) bool { return x <= y })
	case cmpGreater:
		broadcastMap(&k.bc, a, b, o, func(x, y T) bool { return x > y })
	default:
		broadcastMap(&k.bc, a, b, o, func(x, y T) bool { return x >= y })
	}
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
	var f func(x, y int32) bool
	switch k.op {
	case cmpEqual:
		f = func(x, y int32) bool { return x == y }
	case cmpNotEqual:
		f = func(x, y int32) bool { return x != y }
	case cmpLess:
		f = func(x, y int32) bool { return x < y }
	case cmpLessEqual:
		f = func(x, y int32) bool { return x <= y }
	case cmpGreater:
		f = func(x, y int32) bool { return x > y }
	default:
		f = func(x, y int32) bool { return x >= y }
	}
	off1, m1, s1, off2, m2, s2 := k.off1, k.mult1, k.shift1, k.off2, k.mult2, k.shift2
	broadcastMap(&k.bc, a, b, o, func(x, y T) bool {
		return f(rescale(int32(x), off1, m1, s1), rescale(int32(y), off2, m2, s2))
	})
}

// broadcastMap computes out[i] = f(a[ia], b[ib]) over the broadcast
// output, like broadcastApply but with a result type of its own.
func broadcastMap[A, O any](bc *broadcast, a, b []A, out []O, f func(x, y A) O) {
	if !bc.needed {
		a, b, out = a[:bc.count], b[:bc.count], out[:bc.count]
		for i := range out {
			out[i] = f(a[i], b[i])
		}
		return
	}
	n, sa, sb := bc.dims[5], bc.strideA[5], bc.strideB[5]
	bc.eachRun(func(o, ia, ib int) {
		dst := out[o : o+n]
		for i := range dst {
			dst[i] = f(a[ia+i*sa], b[ib+i*sb])
		}
	})
}
