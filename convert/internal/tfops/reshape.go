package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Reshape", Outputs: "output:T", MinInputs: 2, Infer: inferReshape, Fold: foldReshape, Legalize: rule(legalizeReshape)})
	ir.RegisterOp(ir.OpRecord{Name: "Squeeze", Outputs: "output:T", MinInputs: 1, Infer: inferSqueeze, Fold: foldStaticReshape, Legalize: rule(legalizeReshape)})
	ir.RegisterOp(ir.OpRecord{Name: "ExpandDims", Outputs: "output:T", MinInputs: 2, Infer: inferExpandDims, Fold: foldStaticReshape, Legalize: rule(legalizeReshape)})
}

func foldReshape(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	r, err := in[0].Reshaped(n.Outputs[0].Shape)
	if err != nil {
		return nil, nil
	}
	return []*ir.Tensor{r}, nil
}

// foldStaticReshape folds Squeeze and ExpandDims to their static output
// shape.
func foldStaticReshape(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	if !n.Outputs[0].Shape.Static() {
		return nil, nil
	}
	r, err := in[0].Reshaped(n.Outputs[0].Shape)
	return []*ir.Tensor{r}, err
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
	if err := checkElements(n, out); err != nil {
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

// legalizeReshape: Reshape, Squeeze and ExpandDims all become RESHAPE to the
// static output shape (the new shape given both as the shape input and
// the option, as TFLite's converter writes it).
func legalizeReshape(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	out, err := static(c.n.Outputs[0])
	if err != nil {
		return err
	}
	s, err := c.constInt32("shape", out, ir.Shape{len(out)})
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorRESHAPE, &schema.ReshapeOptionsT{NewShape: int32s(out)}, x, s)
}
