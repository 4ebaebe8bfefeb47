package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// noBuiltin marks a table row without a TFLite operator.
const noBuiltin schema.BuiltinOperator = -1

// unaryOps are TensorFlow's element-wise ops of one input (the output has
// its type and shape), one record each. Folding computes f in float64 and
// rounds to the element type (exact for the arithmetic ones; the
// transcendental ones may differ from TensorFlow's float32 kernels in the
// last bit, which only matters for folded constants), or i exactly in
// int64 on integer tensors. tfl is the TFLite operator of the same meaning
// the op becomes one to one (noBuiltin: none, the op is only folded).
var unaryOps = []struct {
	name, outputs string
	tfl           schema.BuiltinOperator
	f             func(x float64) float64
	i             func(x int64) int64
	// infer and fold, when set, replace inferSameShape and the folding
	// of f and i.
	infer func(n *ir.Node) error
	fold  func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error)
}{
	{name: "Relu", outputs: "activations:T", tfl: schema.BuiltinOperatorRELU,
		f: func(x float64) float64 { return math.Max(x, 0) }, i: func(x int64) int64 { return max(x, 0) }},
	{name: "Relu6", outputs: "activations:T", tfl: schema.BuiltinOperatorRELU6,
		f: func(x float64) float64 { return math.Min(math.Max(x, 0), 6) }},
	{name: "Sigmoid", outputs: "y:T", tfl: schema.BuiltinOperatorLOGISTIC,
		f: func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }},
	{name: "Tanh", outputs: "y:T", tfl: schema.BuiltinOperatorTANH, f: math.Tanh},
	{name: "Neg", outputs: "y:T", tfl: schema.BuiltinOperatorNEG,
		f: func(x float64) float64 { return -x }, i: func(x int64) int64 { return -x }},
	{name: "Abs", outputs: "y:T", tfl: schema.BuiltinOperatorABS, f: math.Abs, i: func(x int64) int64 { return max(x, -x) }},
	{name: "Sqrt", outputs: "y:T", tfl: schema.BuiltinOperatorSQRT, f: math.Sqrt},
	{name: "Rsqrt", outputs: "y:T", tfl: schema.BuiltinOperatorRSQRT, f: func(x float64) float64 { return 1 / math.Sqrt(x) }},
	{name: "Exp", outputs: "y:T", tfl: schema.BuiltinOperatorEXP, f: math.Exp},
	{name: "Log", outputs: "y:T", tfl: schema.BuiltinOperatorLOG, f: math.Log},
	{name: "Log1p", outputs: "y:T", tfl: noBuiltin, f: math.Log1p},
	{name: "Square", outputs: "y:T", tfl: schema.BuiltinOperatorSQUARE,
		f: func(x float64) float64 { return x * x }, i: func(x int64) int64 { return x * x }},
	{name: "Floor", outputs: "y:T", tfl: schema.BuiltinOperatorFLOOR, f: math.Floor},
	{name: "Ceil", outputs: "y:T", tfl: schema.BuiltinOperatorCEIL, f: math.Ceil},
	{name: "Round", outputs: "y:T", tfl: schema.BuiltinOperatorROUND, f: math.RoundToEven},
	{name: "Sin", outputs: "y:T", tfl: schema.BuiltinOperatorSIN, f: math.Sin},
	{name: "Cos", outputs: "y:T", tfl: schema.BuiltinOperatorCOS, f: math.Cos},
	{name: "Reciprocal", outputs: "y:T", tfl: noBuiltin, f: func(x float64) float64 { return 1 / x }},
	{name: "Inv", outputs: "y:T", tfl: noBuiltin, f: func(x float64) float64 { return 1 / x }},
	{name: "Erf", outputs: "y:T", tfl: noBuiltin, f: math.Erf},
	{name: "Softplus", outputs: "activations:T", tfl: noBuiltin, f: func(x float64) float64 { return math.Log1p(math.Exp(x)) }},
	{name: "Softsign", outputs: "activations:T", tfl: noBuiltin, f: func(x float64) float64 { return x / (1 + math.Abs(x)) }},
	{name: "Elu", outputs: "activations:T", tfl: schema.BuiltinOperatorELU, f: func(x float64) float64 {
		if x < 0 {
			return math.Expm1(x)
		}
		return x
	}},
	{name: "Sign", outputs: "y:T", tfl: schema.BuiltinOperatorSIGN, f: func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x
	}, i: func(x int64) int64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}},
	{name: "ZerosLike", outputs: "y:T", tfl: schema.BuiltinOperatorZEROS_LIKE,
		f: func(float64) float64 { return 0 }, i: func(int64) int64 { return 0 }, infer: inferLike},
	{name: "OnesLike", outputs: "y:T", tfl: noBuiltin,
		f: func(float64) float64 { return 1 }, i: func(int64) int64 { return 1 }, infer: inferLike},
	{name: "LogicalNot", outputs: "y:=bool", tfl: schema.BuiltinOperatorLOGICAL_NOT, fold: foldLogicalNot},
}

func init() {
	for _, u := range unaryOps {
		r := ir.OpRecord{Name: u.name, Outputs: u.outputs, MinInputs: 1, Infer: inferSameShape, Fold: foldUnary(u.f, u.i)}
		if u.infer != nil {
			r.Infer = u.infer
		}
		if u.fold != nil {
			r.Fold = u.fold
		}
		if u.tfl != noBuiltin {
			r.Legalize = legalizeOneToOne(u.tfl, 1, nil)
		} else {
			r.NoLegalize = foldedOnly
		}
		ir.RegisterOp(r)
	}
}

// foldUnary folds an element-wise op computing f (fi on integers; nil:
// integer tensors are not folded).
func foldUnary(f func(float64) float64, fi func(int64) int64) func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	return func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
		t := in[0]
		if t.DType.IsInteger() && fi != nil {
			v := t.Int64s()
			for i := range v {
				v[i] = wrapInt(t.DType, fi(v[i]))
			}
			r, err := ir.FromInt64s(t.DType, t.Shape, v)
			return []*ir.Tensor{r}, err
		}
		if !t.DType.IsFloat() {
			return nil, nil
		}
		v := t.Float64s()
		for i := range v {
			v[i] = f(v[i])
		}
		r, err := ir.FromFloat64s(t.DType, t.Shape, v)
		return []*ir.Tensor{r}, err
	}
}

// inferLike: ZerosLike/OnesLike of a tensor whose shape is static are
// constants even when the tensor is not.
func inferLike(n *ir.Node) error {
	if err := inferSameShape(n); err != nil {
		return err
	}
	in := n.Inputs[0]
	k, ok := in.Shape.NumElements()
	if !ok || k > maxFoldElements(n) || in.DType == ir.String || in.DType.Size() == 0 {
		return nil
	}
	v := make([]float64, k)
	if n.Op == "OnesLike" {
		for i := range v {
			v[i] = 1
		}
	}
	var t *ir.Tensor
	var err error
	if in.DType.IsFloat() {
		t, err = ir.FromFloat64s(in.DType, in.Shape, v)
	} else {
		iv := make([]int64, k)
		for i, x := range v {
			iv[i] = int64(x)
		}
		t, err = ir.FromInt64s(in.DType, in.Shape, iv)
	}
	if err != nil {
		return nil // a type constants cannot hold (complex): leave it
	}
	n.Outputs[0].Const = t
	return nil
}

func foldLogicalNot(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	if in[0].DType != ir.Bool {
		return nil, fmt.Errorf("LogicalNot of %s", in[0].DType)
	}
	r := &ir.Tensor{DType: ir.Bool, Shape: in[0].Shape.Clone(), Data: make([]byte, len(in[0].Data))}
	for i, b := range in[0].Data {
		if b == 0 {
			r.Data[i] = 1
		}
	}
	return []*ir.Tensor{r}, nil
}
