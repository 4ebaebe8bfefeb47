package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
)

func init() {
	register(opDef{infer: func(n *ir.Node) error {
		if len(n.Outputs) == 1 && n.Outputs[0].Const != nil {
			o := n.Outputs[0] // built by the converter, or already decoded
			o.DType, o.Shape = o.Const.DType, o.Const.Shape.Clone()
			return nil
		}
		if len(n.Outputs) != 1 {
			return fmt.Errorf("Const must have one output, has %d", len(n.Outputs))
		}
		t, err := n.AttrTensor("value")
		if err != nil {
			return err
		}
		o := n.Outputs[0]
		o.DType, o.Shape, o.Const = t.DType, t.Shape.Clone(), t
		return nil
	}}, "Const")
	register(opDef{infer: func(n *ir.Node) error {
		dt, err := n.AttrType("dtype")
		if err != nil {
			return err
		}
		s, _, err := n.AttrShape("shape")
		if err != nil {
			return err
		}
		setOut(n, 0, dt, s)
		return nil
	}}, "Placeholder")
	identity := opDef{infer: func(n *ir.Node) error {
		for i := range n.Outputs {
			if i < len(n.Inputs) && n.Inputs[i] != nil {
				setOut(n, i, n.Inputs[i].DType, n.Inputs[i].Shape.Clone())
			}
		}
		return nil
	}, fold: func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
		if len(in) < len(n.Outputs) {
			return nil, nil
		}
		return in[:len(n.Outputs)], nil
	}}
	register(identity, "Identity", "IdentityN", "StopGradient", "Snapshot", "PreventGradient", "PlaceholderWithDefault")
	register(opDef{infer: func(n *ir.Node) error {
		if err := needInputs(n, 1); err != nil {
			return err
		}
		dt, err := n.AttrType("dtype")
		if err != nil {
			return err
		}
		var s ir.Shape
		if v := n.Inputs[0].Variable; v != nil {
			if v.Value.DType != dt {
				return fmt.Errorf("reads variable %q as %s, it holds %s", v.Name, dt, v.Value.DType)
			}
			s = v.Value.Shape.Clone()
			if !v.State { // an updated variable's reads are not constants
				n.Outputs[0].Const = v.Value
			}
		}
		setOut(n, 0, dt, s)
		return nil
	}}, "ReadVariableOp")
	register(opDef{infer: func(n *ir.Node) error {
		setOut(n, 0, ir.Resource, ir.Scalar())
		return nil
	}}, "VarHandleOp")
	register(opDef{infer: inferReshape, fold: func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
		r, err := in[0].Reshaped(n.Outputs[0].Shape)
		if err != nil {
			return nil, nil
		}
		return []*ir.Tensor{r}, nil
	}}, "Reshape")
	reshapeFold := func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
		if !n.Outputs[0].Shape.Static() {
			return nil, nil
		}
		r, err := in[0].Reshaped(n.Outputs[0].Shape)
		return []*ir.Tensor{r}, err
	}
	register(opDef{infer: inferSqueeze, fold: reshapeFold}, "Squeeze")
	register(opDef{infer: inferExpandDims, fold: reshapeFold}, "ExpandDims")
	register(opDef{infer: inferShapeOf, fold: func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
		return foldShapeOf(n)
	}}, "Shape", "Size", "Rank")
	register(opDef{infer: inferFill, fold: foldFill}, "Fill")
	register(opDef{infer: inferRange, fold: foldRange}, "Range")
	register(opDef{infer: inferBroadcastTo, fold: foldBroadcastTo}, "BroadcastTo")
}

// Shape/Size/Rank of an input whose shape is static are constants; so is
// Rank of an input whose rank is known. They are folded even when the
// input itself is not constant.
func inferShapeOf(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	dt, err := n.AttrTypeOr("out_type", ir.Int32)
	if err != nil {
		return err
	}
	switch n.Op {
	case "Shape":
		var out ir.Shape
		if s != nil {
			out = ir.Shape{len(s)}
		} else {
			out = ir.Shape{-1}
		}
		setOut(n, 0, dt, out)
	case "Size":
		setOut(n, 0, dt, ir.Scalar())
	case "Rank":
		setOut(n, 0, ir.Int32, ir.Scalar())
	}
	if t, _ := foldShapeOf(n); t != nil {
		n.Outputs[0].Const = t[0]
	}
	return nil
}

func foldShapeOf(n *ir.Node) ([]*ir.Tensor, error) {
	s := n.Inputs[0].Shape
	dt := n.Outputs[0].DType
	switch n.Op {
	case "Shape":
		if !s.Static() {
			return nil, nil
		}
		t, err := ir.FromInts(dt, ir.Shape{len(s)}, s)
		return []*ir.Tensor{t}, err
	case "Size":
		k, ok := s.NumElements()
		if !ok {
			return nil, nil
		}
		t, err := ir.FromInts(dt, ir.Scalar(), []int{k})
		return []*ir.Tensor{t}, err
	case "Rank":
		if s == nil {
			return nil, nil
		}
		t, err := ir.FromInts(ir.Int32, ir.Scalar(), []int{len(s)})
		return []*ir.Tensor{t}, err
	}
	return nil, nil
}

// ResolveReshape computes Reshape's output shape from the input shape and
// the requested one (one -1 entry inferred from the element count).
func ResolveReshape(in ir.Shape, want []int) (ir.Shape, error) {
	out := make(ir.Shape, len(want))
	infer := -1
	prod := 1
	for i, d := range want {
		switch {
		case d == -1:
			if infer >= 0 {
				return nil, fmt.Errorf("new shape %v has more than one -1", want)
			}
			infer = i
		case d < 0:
			return nil, fmt.Errorf("new shape %v has a negative size", want)
		default:
			if d != 0 && prod > min(1<<53, math.MaxInt)/d {
				return nil, fmt.Errorf("new shape %v is too large", want)
			}
			prod *= d
		}
		out[i] = d
	}
	total, ok := in.NumElements()
	if infer >= 0 {
		if !ok {
			return out, nil // one unknown remains
		}
		if prod == 0 || total%prod != 0 {
			return nil, fmt.Errorf("cannot reshape %s (%d elements) to %v", in, total, want)
		}
		out[infer] = total / prod
		return out, nil
	}
	if ok && total != prod {
		return nil, fmt.Errorf("cannot reshape %s (%d elements) to %v (%d elements)", in, total, want, prod)
	}
	return out, nil
}

func inferReshape(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	want, ok := constInts(n, 1)
	if !ok {
		r := -1
		if s := n.Inputs[1].Shape; len(s) == 1 {
			r = s[0]
		}
		var out ir.Shape
		if r >= 0 {
			out = make(ir.Shape, r)
			for i := range out {
				out[i] = -1
			}
		}
		setOut(n, 0, n.Inputs[0].DType, out)
		return nil
	}
	out, err := ResolveReshape(n.Inputs[0].Shape, want)
	if err != nil {
		return err
	}
	if err := checkElements(out); err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

// SqueezeShape drops the listed axes (all size-1 axes when none listed).
func SqueezeShape(s ir.Shape, axes []int64) (ir.Shape, error) {
	if s == nil {
		return nil, nil
	}
	drop := map[int]bool{}
	for _, a := range axes {
		k, err := normAxis(int(a), len(s))
		if err != nil {
			return nil, err
		}
		if s[k] > 1 {
			return nil, fmt.Errorf("cannot squeeze axis %d of %s: its size is not 1", a, s)
		}
		drop[k] = true
	}
	out := ir.Shape{}
	for i, d := range s {
		if len(axes) == 0 && d == 1 || drop[i] {
			continue
		}
		if len(axes) == 0 && d < 0 {
			return nil, nil // unknown whether it squeezes
		}
		out = append(out, d)
	}
	return out, nil
}

func inferSqueeze(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	axes, err := n.AttrInts("squeeze_dims", nil)
	if err != nil {
		return err
	}
	s, err := SqueezeShape(n.Inputs[0].Shape, axes)
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, s)
	return nil
}

func inferExpandDims(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	dims, ok := constInts(n, 1)
	if !ok || s == nil {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	if len(dims) != 1 {
		return fmt.Errorf("ExpandDims axis must be a single value, got %v", dims)
	}
	a, err := normAxis(dims[0], len(s)+1)
	if err != nil {
		return err
	}
	out := append(append(append(ir.Shape{}, s[:a]...), 1), s[a:]...)
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func inferFill(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	dims, ok := constInts(n, 0)
	if !ok {
		var out ir.Shape
		if s := n.Inputs[0].Shape; len(s) == 1 && s[0] >= 0 {
			out = make(ir.Shape, s[0])
			for i := range out {
				out[i] = -1
			}
		}
		setOut(n, 0, n.Inputs[1].DType, out)
		return nil
	}
	for _, d := range dims {
		if d < 0 {
			return fmt.Errorf("Fill dims %v has a negative size", dims)
		}
	}
	out := ir.Shape(dims)
	if err := checkElements(out); err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[1].DType, out)
	return nil
}

func foldFill(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	v := in[1]
	if v.NumElements() != 1 {
		return nil, fmt.Errorf("Fill value must be a scalar, got %s", v.Shape)
	}
	out := n.Outputs[0].Shape
	k, ok := out.NumElements()
	if !ok || k > MaxFoldElements {
		return nil, nil
	}
	return []*ir.Tensor{gather(v, out, k, func(int) int { return 0 })}, nil
}

func inferRange(n *ir.Node) error {
	if err := needInputs(n, 3); err != nil {
		return err
	}
	dt := n.Inputs[0].DType
	if t, err := foldRange(n, nil); err == nil && t != nil {
		setOut(n, 0, dt, t[0].Shape)
		return nil
	} else if err != nil {
		return err
	}
	setOut(n, 0, dt, ir.Shape{-1})
	return nil
}

func foldRange(n *ir.Node, _ []*ir.Tensor) ([]*ir.Tensor, error) {
	var v [3]float64
	for i := range v {
		c := n.Inputs[i].Const
		if c == nil || c.NumElements() != 1 {
			return nil, nil
		}
		v[i] = c.Float64s()[0]
	}
	start, limit, delta := v[0], v[1], v[2]
	if delta == 0 {
		return nil, fmt.Errorf("Range delta is zero")
	}
	count := 0
	if (delta > 0 && limit > start) || (delta < 0 && limit < start) {
		c := (limit - start) / delta
		if c > float64(MaxFoldElements) {
			return nil, nil
		}
		count = int(c)
		if float64(count) < c {
			count++
		}
	}
	vals := make([]float64, count)
	for i := range vals {
		vals[i] = start + float64(i)*delta
	}
	dt := n.Inputs[0].DType
	if dt.IsInteger() {
		iv := make([]int64, count)
		for i, x := range vals {
			iv[i] = int64(x)
		}
		t, err := ir.FromInt64s(dt, ir.Shape{count}, iv)
		return []*ir.Tensor{t}, err
	}
	t, err := ir.FromFloat64s(dt, ir.Shape{count}, vals)
	return []*ir.Tensor{t}, err
}

func inferBroadcastTo(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	dims, ok := constInts(n, 1)
	if !ok {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	out, err := BroadcastShape(n.Inputs[0].Shape, ir.Shape(dims))
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func foldBroadcastTo(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	out := n.Outputs[0].Shape
	k, ok := out.NumElements()
	if !ok || k > MaxFoldElements {
		return nil, nil
	}
	idx := broadcastIndex(in[0].Shape, out)
	return []*ir.Tensor{gather(in[0], out, k, func(i int) int { return idx[i] })}, nil
}
