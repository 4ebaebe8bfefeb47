package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
)

// Unary float functions, computed in float64 and rounded to the element
// type (exact for the arithmetic ones; the transcendental ones may differ
// from TensorFlow's float32 kernels in the last bit, which only matters
// for folded constants).
var unaryFloat = map[string]func(x float64) float64{
	"Relu":       func(x float64) float64 { return math.Max(x, 0) },
	"Relu6":      func(x float64) float64 { return math.Min(math.Max(x, 0), 6) },
	"Sigmoid":    func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
	"Tanh":       math.Tanh,
	"Neg":        func(x float64) float64 { return -x },
	"Abs":        math.Abs,
	"Sqrt":       math.Sqrt,
	"Rsqrt":      func(x float64) float64 { return 1 / math.Sqrt(x) },
	"Exp":        math.Exp,
	"Log":        math.Log,
	"Log1p":      math.Log1p,
	"Square":     func(x float64) float64 { return x * x },
	"Floor":      math.Floor,
	"Ceil":       math.Ceil,
	"Round":      math.RoundToEven,
	"Sin":        math.Sin,
	"Cos":        math.Cos,
	"Reciprocal": func(x float64) float64 { return 1 / x },
	"Inv":        func(x float64) float64 { return 1 / x },
	"Erf":        math.Erf,
	"Softplus":   func(x float64) float64 { return math.Log1p(math.Exp(x)) },
	"Softsign":   func(x float64) float64 { return x / (1 + math.Abs(x)) },
	"Elu": func(x float64) float64 {
		if x < 0 {
			return math.Expm1(x)
		}
		return x
	},
	"Sign": func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x
	},
	"ZerosLike": func(float64) float64 { return 0 },
	"OnesLike":  func(float64) float64 { return 1 },
}

// Unary ops that also apply to integers (exactly, in int64).
var unaryInt = map[string]func(x int64) int64{
	"Neg":    func(x int64) int64 { return -x },
	"Abs":    func(x int64) int64 { return max(x, -x) },
	"Square": func(x int64) int64 { return x * x },
	"Relu":   func(x int64) int64 { return max(x, 0) },
	"Sign": func(x int64) int64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	},
	"ZerosLike": func(int64) int64 { return 0 },
	"OnesLike":  func(int64) int64 { return 1 },
}

func init() {
	sameShape := func(n *ir.Node) error {
		if err := needInputs(n, 1); err != nil {
			return err
		}
		setOut(n, 0, n.Inputs[0].DType, n.Inputs[0].Shape.Clone())
		return nil
	}
	for name, f := range unaryFloat {
		f, fi := f, unaryInt[name]
		register(opDef{infer: sameShape, fold: func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
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
		}}, name)
	}
	// ZerosLike/OnesLike of a tensor whose shape is static are constants
	// even when the tensor is not.
	likeInfer := func(n *ir.Node) error {
		if err := sameShape(n); err != nil {
			return err
		}
		in := n.Inputs[0]
		k, ok := in.Shape.NumElements()
		if !ok || k > MaxFoldElements || in.DType == ir.String || in.DType.Size() == 0 {
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
	for _, name := range []string{"ZerosLike", "OnesLike"} {
		def := ops[name]
		def.infer = likeInfer
		ops[name] = def
	}
	register(opDef{infer: func(n *ir.Node) error {
		if err := sameShape(n); err != nil {
			return err
		}
		if alpha, err := n.AttrFloat("alpha", 0.2); err != nil {
			return err
		} else {
			_ = alpha
		}
		return nil
	}, fold: func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
		alpha, _ := n.AttrFloat("alpha", 0.2)
		t := in[0]
		if !t.DType.IsFloat() {
			return nil, nil
		}
		v := t.Float64s()
		for i, x := range v {
			if x < 0 {
				v[i] = x * float64(alpha)
			}
		}
		r, err := ir.FromFloat64s(t.DType, t.Shape, v)
		return []*ir.Tensor{r}, err
	}}, "LeakyRelu")
	register(opDef{infer: sameShape}, "Softmax", "LogSoftmax", "CheckNumerics", "EnsureShape")
	register(opDef{infer: func(n *ir.Node) error {
		if err := needInputs(n, 1); err != nil {
			return err
		}
		dt, err := n.AttrType("DstT")
		if err != nil {
			return err
		}
		setOut(n, 0, dt, n.Inputs[0].Shape.Clone())
		return nil
	}, fold: func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
		dt, err := n.AttrType("DstT")
		if err != nil {
			return nil, err
		}
		r, err := Cast(in[0], dt)
		return []*ir.Tensor{r}, err
	}}, "Cast")

	for name := range binaryFloat {
		register(opDef{infer: inferBinary, fold: foldBinary}, name)
	}
	for name := range compare {
		register(opDef{infer: inferBinary, fold: foldBinary}, name)
	}
	register(opDef{infer: inferBinary, fold: foldBinary}, "LogicalAnd", "LogicalOr")
	register(opDef{infer: sameShape, fold: func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
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
	}}, "LogicalNot")
	register(opDef{infer: inferSelect, fold: foldSelect}, "Select", "SelectV2")
	register(opDef{infer: func(n *ir.Node) error {
		if len(n.Inputs) == 0 {
			return fmt.Errorf("AddN has no inputs")
		}
		s := n.Inputs[0].Shape
		for _, in := range n.Inputs[1:] {
			m, ok := ir.Merge(s, in.Shape)
			if !ok {
				return fmt.Errorf("AddN inputs have shapes %s and %s", s, in.Shape)
			}
			s = m
		}
		setOut(n, 0, n.Inputs[0].DType, s)
		return nil
	}}, "AddN")
	register(opDef{infer: func(n *ir.Node) error {
		if err := needInputs(n, 3); err != nil {
			return err
		}
		s, err := BroadcastShape(n.Inputs[0].Shape, n.Inputs[1].Shape)
		if err != nil {
			return err
		}
		if s, err = BroadcastShape(s, n.Inputs[2].Shape); err != nil {
			return err
		}
		setOut(n, 0, n.Inputs[0].DType, s)
		return nil
	}}, "ClipByValue")
}

// wrapInt truncates x to the width of an integer type (two's complement
// wraparound, as TensorFlow's integer kernels do).
func wrapInt(dt ir.DType, x int64) int64 {
	switch dt {
	case ir.Int8:
		return int64(int8(x))
	case ir.Uint8:
		return int64(uint8(x))
	case ir.Int16:
		return int64(int16(x))
	case ir.Uint16:
		return int64(uint16(x))
	case ir.Int32:
		return int64(int32(x))
	case ir.Uint32:
		return int64(uint32(x))
	}
	return x
}

// Cast converts a tensor to another element type with TensorFlow's Cast
// semantics: float to integer truncates toward zero, to bool is x != 0.
func Cast(t *ir.Tensor, dt ir.DType) (*ir.Tensor, error) {
	if t.DType == dt {
		return t, nil
	}
	switch {
	case dt.IsFloat():
		if t.DType == ir.Int64 || t.DType == ir.Uint64 {
			// Keep int64 → float exact up to float64's precision.
			v := t.Int64s()
			f := make([]float64, len(v))
			for i, x := range v {
				f[i] = float64(x)
			}
			return ir.FromFloat64s(dt, t.Shape, f)
		}
		return ir.FromFloat64s(dt, t.Shape, t.Float64s())
	case dt == ir.Bool:
		f := t.Float64s()
		v := make([]int64, len(f))
		for i, x := range f {
			if x != 0 {
				v[i] = 1
			}
		}
		return ir.FromInt64s(ir.Bool, t.Shape, v)
	case dt.IsInteger():
		var v []int64
		if t.DType.IsFloat() {
			f := t.Float64s()
			v = make([]int64, len(f))
			for i, x := range f {
				if math.IsNaN(x) {
					x = 0
				}
				v[i] = int64(math.Trunc(math.Max(math.Min(x, 9.2e18), -9.2e18)))
			}
		} else {
			v = t.Int64s()
		}
		for i := range v {
			v[i] = wrapInt(dt, v[i])
		}
		return ir.FromInt64s(dt, t.Shape, v)
	}
	return nil, fmt.Errorf("cannot cast %s to %s", t.DType, dt)
}

var binaryFloat = map[string]func(a, b float64) float64{
	"Add": func(a, b float64) float64 { return a + b }, "AddV2": func(a, b float64) float64 { return a + b },
	"Sub": func(a, b float64) float64 { return a - b }, "Mul": func(a, b float64) float64 { return a * b },
	"RealDiv": func(a, b float64) float64 { return a / b }, "Div": func(a, b float64) float64 { return a / b },
	"DivNoNan": func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	},
	"MulNoNan": func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a * b
	},
	"Maximum": math.Max, "Minimum": math.Min, "Pow": math.Pow,
	"SquaredDifference": func(a, b float64) float64 { return (a - b) * (a - b) },
	"FloorDiv":          func(a, b float64) float64 { return math.Floor(a / b) },
	"FloorMod": func(a, b float64) float64 {
		r := math.Mod(a, b)
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r
	},
}

var binaryInt = map[string]func(a, b int64) (int64, error){
	"Add": func(a, b int64) (int64, error) { return a + b, nil }, "AddV2": func(a, b int64) (int64, error) { return a + b, nil },
	"Sub": func(a, b int64) (int64, error) { return a - b, nil }, "Mul": func(a, b int64) (int64, error) { return a * b, nil },
	"Maximum":           func(a, b int64) (int64, error) { return max(a, b), nil },
	"Minimum":           func(a, b int64) (int64, error) { return min(a, b), nil },
	"SquaredDifference": func(a, b int64) (int64, error) { return (a - b) * (a - b), nil },
	"Div": func(a, b int64) (int64, error) {
		if b == 0 {
			return 0, fmt.Errorf("integer division by zero")
		}
		return a / b, nil
	},
	"RealDiv": func(a, b int64) (int64, error) {
		if b == 0 {
			return 0, fmt.Errorf("integer division by zero")
		}
		return a / b, nil
	},
	"FloorDiv": func(a, b int64) (int64, error) {
		if b == 0 {
			return 0, fmt.Errorf("integer division by zero")
		}
		q := a / b
		if (a%b != 0) && ((a < 0) != (b < 0)) {
			q--
		}
		return q, nil
	},
	"FloorMod": func(a, b int64) (int64, error) {
		if b == 0 {
			return 0, fmt.Errorf("integer division by zero")
		}
		r := a % b
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r, nil
	},
}

var compare = map[string]func(a, b float64) bool{
	"Less": func(a, b float64) bool { return a < b }, "LessEqual": func(a, b float64) bool { return a <= b },
	"Greater": func(a, b float64) bool { return a > b }, "GreaterEqual": func(a, b float64) bool { return a >= b },
	"Equal": func(a, b float64) bool { return a == b }, "NotEqual": func(a, b float64) bool { return a != b },
}

func inferBinary(n *ir.Node) error {
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
	if _, cmp := compare[n.Op]; cmp || n.Op == "LogicalAnd" || n.Op == "LogicalOr" {
		dt = ir.Bool
	}
	setOut(n, 0, dt, s)
	return nil
}

func foldBinary(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	a, b := in[0], in[1]
	if a.DType != b.DType {
		return nil, fmt.Errorf("operand types differ: %s and %s", a.DType, b.DType)
	}
	out, err := BroadcastShape(a.Shape, b.Shape)
	if err != nil {
		return nil, err
	}
	count, ok := out.NumElements()
	if !ok || count > MaxFoldElements {
		return nil, nil
	}
	ia, ib := broadcastIndex(a.Shape, out), broadcastIndex(b.Shape, out)
	if cmp, isCmp := compare[n.Op]; isCmp || n.Op == "LogicalAnd" || n.Op == "LogicalOr" {
		fa, fb := a.Float64s(), b.Float64s()
		r := make([]int64, count)
		for i := range r {
			x, y := fa[ia[i]], fb[ib[i]]
			var v bool
			switch n.Op {
			case "LogicalAnd":
				v = x != 0 && y != 0
			case "LogicalOr":
				v = x != 0 || y != 0
			default:
				v = cmp(x, y)
			}
			if v {
				r[i] = 1
			}
		}
		t, err := ir.FromInt64s(ir.Bool, out, r)
		return []*ir.Tensor{t}, err
	}
	if a.DType.IsInteger() {
		f, ok := binaryInt[n.Op]
		if !ok {
			return nil, nil
		}
		va, vb := a.Int64s(), b.Int64s()
		r := make([]int64, count)
		for i := range r {
			x, err := f(va[ia[i]], vb[ib[i]])
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
	f := binaryFloat[n.Op]
	va, vb := a.Float64s(), b.Float64s()
	r := make([]float64, count)
	for i := range r {
		r[i] = f(va[ia[i]], vb[ib[i]])
	}
	t, err := ir.FromFloat64s(a.DType, out, r)
	return []*ir.Tensor{t}, err
}

// selectShapes returns the broadcast shape of Select/SelectV2 and, for
// TF1 Select with a vector condition, reports that the condition picks
// whole rows.
func selectShapes(n *ir.Node, c, x, y ir.Shape) (ir.Shape, bool, error) {
	s, ok := ir.Merge(x, y)
	if n.Op == "Select" {
		// TF1 Select: the condition has the operands' shape, or is a
		// vector choosing whole rows.
		if !ok {
			return nil, false, fmt.Errorf("Select operands have shapes %s and %s", x, y)
		}
		if c == nil || s == nil {
			return s, false, nil
		}
		if len(c) == 1 && len(s) > 1 {
			if c[0] >= 0 && s[0] >= 0 && c[0] != s[0] {
				return nil, false, fmt.Errorf("Select condition of %d rows for operands of shape %s", c[0], s)
			}
			return s, true, nil
		}
		m, ok := ir.Merge(c, s)
		if !ok {
			return nil, false, fmt.Errorf("Select condition of shape %s for operands of shape %s", c, s)
		}
		return m, false, nil
	}
	xy, err := BroadcastShape(x, y)
	if err != nil {
		return nil, false, err
	}
	s, err = BroadcastShape(c, xy)
	return s, false, err
}

func inferSelect(n *ir.Node) error {
	if err := needInputs(n, 3); err != nil {
		return err
	}
	s, _, err := selectShapes(n, n.Inputs[0].Shape, n.Inputs[1].Shape, n.Inputs[2].Shape)
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[1].DType, s)
	return nil
}

func foldSelect(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	c, x, y := in[0], in[1], in[2]
	out, rows, err := selectShapes(n, c.Shape, x.Shape, y.Shape)
	if err != nil {
		return nil, err
	}
	count, ok := out.NumElements()
	if !ok || count > MaxFoldElements || x.DType != y.DType {
		return nil, nil
	}
	cv := c.Int64s()
	var ic, ix, iy []int
	if rows {
		inner := count / max(out[0], 1)
		ic = make([]int, count)
		for i := range ic {
			ic[i] = i / max(inner, 1)
		}
		ix, iy = identityIndex(count), identityIndex(count)
	} else {
		ic, ix, iy = broadcastIndex(c.Shape, out), broadcastIndex(x.Shape, out), broadcastIndex(y.Shape, out)
	}
	r := gather(x, out, count, func(i int) int { return ix[i] })
	ry := gather(y, out, count, func(i int) int { return iy[i] })
	sz := x.DType.Size()
	for i := 0; i < count; i++ {
		if cv[ic[i]] == 0 {
			if x.DType == ir.String {
				r.Strings[i] = ry.Strings[i]
			} else {
				copy(r.Data[i*sz:(i+1)*sz], ry.Data[i*sz:(i+1)*sz])
			}
		}
	}
	return []*ir.Tensor{r}, nil
}

func identityIndex(k int) []int {
	v := make([]int, k)
	for i := range v {
		v[i] = i
	}
	return v
}
