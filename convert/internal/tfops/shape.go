package tfops

import (
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Shape", Outputs: "output:out_type=int32", MinInputs: 1, Infer: inferShapeOf, Fold: foldShape, Legalize: rule(legalizeShape)})
	ir.RegisterOp(ir.OpRecord{Name: "Size", Outputs: "output:out_type=int32", MinInputs: 1, Infer: inferShapeOf, Fold: foldShape, NoLegalize: foldedOnly})
	ir.RegisterOp(ir.OpRecord{Name: "Rank", Outputs: "output:=int32", MinInputs: 1, Infer: inferShapeOf, Fold: foldShape, NoLegalize: foldedOnly})
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

func foldShape(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	return foldShapeOf(n)
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

func legalizeShape(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorSHAPE, &schema.ShapeOptionsT{OutType: schema.TensorType(c.n.Outputs[0].DType)}, x)
}
