package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// binaryOp is a broadcasting binary TensorFlow op.
type binaryOp struct {
	name, outputs string
	// tfl is the TFLite operator of the same meaning the op becomes one to
	// one (noBuiltin: none, the op is only folded).
	tfl schema.BuiltinOperator
	// f computes the op on floats (in float64, rounded to the element
	// type); i on integers, exactly (nil: integer tensors not folded).
	f func(a, b float64) float64
	i func(a, b int64) (int64, error)
	// cmp, for a comparison or logical op, computes its bool result
	// instead (on the operands as float64).
	cmp func(a, b float64) bool
}

func addInt(a, b int64) (int64, error) { return a + b, nil }

func divInt(a, b int64) (int64, error) {
	if b == 0 {
		return 0, fmt.Errorf("integer division by zero")
	}
	return a / b, nil
}

// binaryOps are the broadcasting binary ops, one record each.
var binaryOps = []binaryOp{
	{name: "Add", outputs: "z:T", tfl: schema.BuiltinOperatorADD, f: func(a, b float64) float64 { return a + b }, i: addInt},
	{name: "AddV2", outputs: "z:T", tfl: schema.BuiltinOperatorADD, f: func(a, b float64) float64 { return a + b }, i: addInt},
	{name: "Sub", outputs: "z:T", tfl: schema.BuiltinOperatorSUB, f: func(a, b float64) float64 { return a - b },
		i: func(a, b int64) (int64, error) { return a - b, nil }},
	{name: "Mul", outputs: "z:T", tfl: schema.BuiltinOperatorMUL, f: func(a, b float64) float64 { return a * b },
		i: func(a, b int64) (int64, error) { return a * b, nil }},
	{name: "RealDiv", outputs: "z:T", tfl: schema.BuiltinOperatorDIV, f: func(a, b float64) float64 { return a / b }, i: divInt},
	{name: "Div", outputs: "z:T", tfl: schema.BuiltinOperatorDIV, f: func(a, b float64) float64 { return a / b }, i: divInt},
	{name: "DivNoNan", outputs: "z:T", tfl: noBuiltin, f: func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}},
	{name: "MulNoNan", outputs: "z:T", tfl: noBuiltin, f: func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a * b
	}},
	{name: "Maximum", outputs: "z:T", tfl: schema.BuiltinOperatorMAXIMUM, f: math.Max,
		i: func(a, b int64) (int64, error) { return max(a, b), nil }},
	{name: "Minimum", outputs: "z:T", tfl: schema.BuiltinOperatorMINIMUM, f: math.Min,
		i: func(a, b int64) (int64, error) { return min(a, b), nil }},
	{name: "Pow", outputs: "z:T", tfl: schema.BuiltinOperatorPOW, f: math.Pow},
	{name: "SquaredDifference", outputs: "z:T", tfl: schema.BuiltinOperatorSQUARED_DIFFERENCE,
		f: func(a, b float64) float64 { return (a - b) * (a - b) }, i: func(a, b int64) (int64, error) { return (a - b) * (a - b), nil }},
	{name: "FloorDiv", outputs: "z:T", tfl: schema.BuiltinOperatorFLOOR_DIV,
		f: func(a, b float64) float64 { return math.Floor(a / b) }, i: func(a, b int64) (int64, error) {
			if b == 0 {
				return 0, fmt.Errorf("integer division by zero")
			}
			q := a / b
			if (a%b != 0) && ((a < 0) != (b < 0)) {
				q--
			}
			return q, nil
		}},
	{name: "FloorMod", outputs: "z:T", tfl: schema.BuiltinOperatorFLOOR_MOD, f: func(a, b float64) float64 {
		r := math.Mod(a, b)
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r
	}, i: func(a, b int64) (int64, error) {
		if b == 0 {
			return 0, fmt.Errorf("integer division by zero")
		}
		r := a % b
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r, nil
	}},
	{name: "Less", outputs: "z:=bool", tfl: schema.BuiltinOperatorLESS, cmp: func(a, b float64) bool { return a < b }},
	{name: "LessEqual", outputs: "z:=bool", tfl: schema.BuiltinOperatorLESS_EQUAL, cmp: func(a, b float64) bool { return a <= b }},
	{name: "Greater", outputs: "z:=bool", tfl: schema.BuiltinOperatorGREATER, cmp: func(a, b float64) bool { return a > b }},
	{name: "GreaterEqual", outputs: "z:=bool", tfl: schema.BuiltinOperatorGREATER_EQUAL, cmp: func(a, b float64) bool { return a >= b }},
	{name: "Equal", outputs: "z:=bool", tfl: schema.BuiltinOperatorEQUAL, cmp: func(a, b float64) bool { return a == b }},
	{name: "NotEqual", outputs: "z:=bool", tfl: schema.BuiltinOperatorNOT_EQUAL, cmp: func(a, b float64) bool { return a != b }},
	{name: "LogicalAnd", outputs: "z:=bool", tfl: schema.BuiltinOperatorLOGICAL_AND, cmp: func(a, b float64) bool { return a != 0 && b != 0 }},
	{name: "LogicalOr", outputs: "z:=bool", tfl: schema.BuiltinOperatorLOGICAL_OR, cmp: func(a, b float64) bool { return a != 0 || b != 0 }},
}

func init() {
	for _, op := range binaryOps {
		op := op
		r := ir.OpRecord{Name: op.name, Outputs: op.outputs, MinInputs: 2,
			Infer: func(n *ir.Node) error { return inferBinary(n, op.cmp != nil) },
			Fold:  func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) { return foldBinary(op, n, in) }}
		if op.tfl != noBuiltin {
			r.Legalize = legalizeBinary(op.tfl)
		} else {
			r.NoLegalize = foldedOnly
		}
		ir.RegisterOp(r)
	}
}

// inferBinary broadcasts the operands' shapes; a comparison's output is
// bool.
func inferBinary(n *ir.Node, isBool bool) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	a, b := n.Inputs[0], n.Inputs[1]
	if a.DType != ir.Invalid && b.DType != ir.Invalid && a.DType != b.DType {
		return fmt.Errorf("operand types differ: %s and %s", a.DType, b.DType)
	}
	s, err := BroadcastShape(a.Shape, b.Shape)
	if err != nil {
		return err
	}
	dt := a.DType
	if isBool {
		dt = ir.Bool
	}
	setOut(n, 0, dt, s)
	return nil
}

func foldBinary(op binaryOp, n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	a, b := in[0], in[1]
	if a.DType != b.DType {
		return nil, fmt.Errorf("operand types differ: %s and %s", a.DType, b.DType)
	}
	out, err := BroadcastShape(a.Shape, b.Shape)
	if err != nil {
		return nil, err
	}
	count, ok := out.NumElements()
	if !ok || count > maxFoldElements(n) {
		return nil, nil
	}
	ia, ib := broadcastIndex(a.Shape, out), broadcastIndex(b.Shape, out)
	if op.cmp != nil {
		fa, fb := a.Float64s(), b.Float64s()
		r := make([]int64, count)
		for i := range r {
			if op.cmp(fa[ia[i]], fb[ib[i]]) {
				r[i] = 1
			}
		}
		t, err := ir.FromInt64s(ir.Bool, out, r)
		return []*ir.Tensor{t}, err
	}
	if a.DType.IsInteger() {
		if op.i == nil {
			return nil, nil
		}
		va, vb := a.Int64s(), b.Int64s()
		r := make([]int64, count)
		for i := range r {
			x, err := op.i(va[ia[i]], vb[ib[i]])
			if err != nil {
				return nil, err
			}
			r[i] = wrapInt(a.DType, x)
		}
		t, err := ir.FromInt64s(a.DType, out, r)
		return []*ir.Tensor{t}, err
	}
	if !a.DType.IsFloat() {
		return nil, nil
	}
	va, vb := a.Float64s(), b.Float64s()
	r := make([]float64, count)
	for i := range r {
		r[i] = op.f(va[ia[i]], vb[ib[i]])
	}
	t, err := ir.FromFloat64s(a.DType, out, r)
	return []*ir.Tensor{t}, err
}

// legalizeBinary: the operator of the same meaning, with its options
// table where it has one.
func legalizeBinary(code schema.BuiltinOperator) func(f *ir.Function, n *ir.Node) error {
	return rule(func(c *ctx) error {
		a, err := c.in(0)
		if err != nil {
			return err
		}
		b, err := c.in(1)
		if err != nil {
			return err
		}
		if c.n.Op == "Div" && a.DType.IsInteger() {
			// TensorFlow's integer Div truncates toward zero; tflrun
			// does not map it until the TFLite kernel's rounding of
			// negative quotients is checked against it.
			return fmt.Errorf("integer Div is not supported")
		}
		var opts any
		switch code {
		case schema.BuiltinOperatorADD:
			opts = &schema.AddOptionsT{}
		case schema.BuiltinOperatorSUB:
			opts = &schema.SubOptionsT{}
		case schema.BuiltinOperatorMUL:
			opts = &schema.MulOptionsT{}
		case schema.BuiltinOperatorDIV:
			opts = &schema.DivOptionsT{}
		case schema.BuiltinOperatorMAXIMUM, schema.BuiltinOperatorMINIMUM:
			opts = &schema.MaximumMinimumOptionsT{}
		case schema.BuiltinOperatorSQUARED_DIFFERENCE:
			opts = &schema.SquaredDifferenceOptionsT{}
		}
		return c.same(code, opts, a, b)
	})
}
