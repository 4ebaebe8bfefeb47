package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// This file holds what the StableHLO element-wise kernels (STABLEHLO_ADD,
// STABLEHLO_MULTIPLY, STABLEHLO_MAXIMUM, STABLEHLO_MINIMUM, STABLEHLO_AND)
// share, after TFLite's stablehlo_elementwise.h: two inputs of one type
// and one shape (no broadcasting, no quantisation: quantisation
// parameters are ignored, as TFLite does), the output of that shape,
// element i of the output computed from element i of each input.
// Integers wrap (C++'s promoted arithmetic truncated back to the type);
// float16 elements are widened to float32, combined and rounded to the
// nearest float16 (Eigen::half's arithmetic); bool ADD is OR and MULTIPLY
// AND (C++'s bool arithmetic). MAXIMUM is std::max (a < b ? b : a) and
// MINIMUM std::min (b < a ? b : a), so a NaN in the first operand is
// returned and one in the second is not, and of two equal zeros the first
// is. Types: float16, float32, float64, int8, int16, int32, int64, uint8,
// uint16, uint32, uint64, bool (AND: all but the floats).

// stablehloBinary is the kernel of one StableHLO element-wise operator.
type stablehloBinary struct {
	op  stablehloOp
	typ ops.DataType
}

// stablehloOp names a StableHLO element-wise computation.
type stablehloOp int

const (
	stablehloAdd stablehloOp = iota
	stablehloMul
	stablehloMax
	stablehloMin
	stablehloAnd
)

var stablehloNames = [...]string{"STABLEHLO_ADD", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM", "STABLEHLO_MINIMUM", "STABLEHLO_AND"}

// Prepare checks the types and shapes and gives the output the shape.
func (k *stablehloBinary) Prepare(n *ops.Node) error {
	op := k.op
	*k = stablehloBinary{op: op}
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
	types := []ops.DataType{ops.Float16, ops.Float32, ops.Float64, ops.Int8, ops.Int16, ops.Int32, ops.Int64,
		ops.Uint8, ops.Uint16, ops.Uint32, ops.Uint64, ops.Bool}
	if op == stablehloAnd {
		types = types[3:]
	}
	if err := requireType(a, "input 0", types...); err != nil {
		return fmt.Errorf("%v for %s", err, stablehloNames[op])
	}
	if b.Type != a.Type {
		return fmt.Errorf("input 1: type %s differs from input 0's %s", b.Type, a.Type)
	}
	if out.Type != a.Type {
		return fmt.Errorf("output 0: type %s differs from input 0's %s", out.Type, a.Type)
	}
	if !ops.SameShape(a.Shape, b.Shape) {
		return fmt.Errorf("input 1: shape %v differs from input 0's %v (%s does not broadcast)", b.Shape, a.Shape, stablehloNames[op])
	}
	if _, err := numElementsChecked(a, "input 0"); err != nil {
		return err
	}
	k.typ = a.Type
	out.Shape = copyShape(a.Shape)
	return nil
}

// Eval computes the output.
func (k *stablehloBinary) Eval(n *ops.Node) error {
	a, b, out := n.Input(0), n.Input(1), n.Output(0)
	if a == nil || b == nil || out == nil {
		return fmt.Errorf("%s: input or output missing at Eval", stablehloNames[k.op])
	}
	if a.Type != k.typ || b.Type != k.typ || out.Type != k.typ {
		return fmt.Errorf("%s: types changed since Prepare", stablehloNames[k.op])
	}
	if err := checkData(a, b, out); err != nil {
		return err
	}
	c := out.NumElements()
	if a.NumElements() != c || b.NumElements() != c {
		return fmt.Errorf("%s: shapes changed since Prepare", stablehloNames[k.op])
	}
	switch k.typ {
	case ops.Float16:
		x, y, o := ops.View[uint16](a.Data)[:c], ops.View[uint16](b.Data)[:c], ops.View[uint16](out.Data)[:c]
		f := stablehloFloatFunc[float32](k.op)
		for i := range o {
			p, q := halfToFloat32(x[i]), halfToFloat32(y[i])
			switch {
			case k.op == stablehloMax || k.op == stablehloMin:
				// std::max and std::min return one operand, bits and all.
				o[i] = y[i]
				if stablehloPicksFirst(k.op, p, q) {
					o[i] = x[i]
				}
			default:
				o[i] = float32ToHalf(f(p, q))
			}
		}
	case ops.Float32:
		stablehloApply(a.Float32s()[:c], b.Float32s()[:c], out.Float32s()[:c], stablehloFloatFunc[float32](k.op))
	case ops.Float64:
		stablehloApply(a.Float64s()[:c], b.Float64s()[:c], out.Float64s()[:c], stablehloFloatFunc[float64](k.op))
	case ops.Int8:
		stablehloApply(a.Int8s()[:c], b.Int8s()[:c], out.Int8s()[:c], stablehloIntFunc[int8](k.op))
	case ops.Int16:
		stablehloApply(a.Int16s()[:c], b.Int16s()[:c], out.Int16s()[:c], stablehloIntFunc[int16](k.op))
	case ops.Int32:
		stablehloApply(a.Int32s()[:c], b.Int32s()[:c], out.Int32s()[:c], stablehloIntFunc[int32](k.op))
	case ops.Int64:
		stablehloApply(a.Int64s()[:c], b.Int64s()[:c], out.Int64s()[:c], stablehloIntFunc[int64](k.op))
	case ops.Uint8:
		stablehloApply(a.Uint8s()[:c], b.Uint8s()[:c], out.Uint8s()[:c], stablehloIntFunc[uint8](k.op))
	case ops.Uint16:
		stablehloApply(a.Uint16s()[:c], b.Uint16s()[:c], out.Uint16s()[:c], stablehloIntFunc[uint16](k.op))
	case ops.Uint32:
		stablehloApply(a.Uint32s()[:c], b.Uint32s()[:c], out.Uint32s()[:c], stablehloIntFunc[uint32](k.op))
	case ops.Uint64:
		stablehloApply(a.Uint64s()[:c], b.Uint64s()[:c], out.Uint64s()[:c], stablehloIntFunc[uint64](k.op))
	default: // bool: add is OR, multiply and min AND, max OR
		x, y, o := a.Data[:c], b.Data[:c], out.Data[:c]
		for i := range o {
			p, q := x[i] != 0, y[i] != 0
			var r bool
			switch k.op {
			case stablehloAdd, stablehloMax:
				r = p || q
			default:
				r = p && q
			}
			o[i] = 0
			if r {
				o[i] = 1
			}
		}
	}
	return nil
}

// stablehloPicksFirst says whether std::max (op max) or std::min returns
// its first operand a.
func stablehloPicksFirst(op stablehloOp, a, b float32) bool {
	if op == stablehloMax {
		return !(a < b)
	}
	return !(b < a)
}

// stablehloApply writes f(a[i], b[i]) to o[i].
func stablehloApply[T any](a, b, o []T, f func(T, T) T) {
	for i := range o {
		o[i] = f(a[i], b[i])
	}
}

// stablehloFloatFunc is the computation op on floats.
func stablehloFloatFunc[T float32 | float64](op stablehloOp) func(T, T) T {
	switch op {
	case stablehloAdd:
		return func(a, b T) T { return a + b }
	case stablehloMul:
		return func(a, b T) T { return a * b }
	case stablehloMax:
		return func(a, b T) T {
			if a < b {
				return b
			}
			return a
		}
	default:
		return func(a, b T) T {
			if b < a {
				return b
			}
			return a
		}
	}
}

// stablehloIntFunc is the computation op on integers (wrapping).
func stablehloIntFunc[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](op stablehloOp) func(T, T) T {
	switch op {
	case stablehloAdd:
		return func(a, b T) T { return a + b }
	case stablehloMul:
		return func(a, b T) T { return a * b }
	case stablehloMax:
		return func(a, b T) T { return max(a, b) }
	case stablehloMin:
		return func(a, b T) T { return min(a, b) }
	default:
		return func(a, b T) T { return a & b }
	}
}
