package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "GatherV2", Outputs: "output:Tparams", MinInputs: 3, Infer: inferGather, Fold: foldGather, Legalize: rule(legalizeGather)})
	ir.RegisterOp(ir.OpRecord{Name: "Gather", Outputs: "output:Tparams", MinInputs: 2, Infer: inferGather, Fold: foldGather, Legalize: rule(legalizeGather)})
	ir.RegisterOp(ir.OpRecord{Name: "ResourceGather", Outputs: "output:dtype", MinInputs: 2, Infer: inferGather, Fold: foldGather, Legalize: rule(legalizeGather)})
}

// gatherArgs returns params, indices, axis and batch_dims of a gather.
func gatherArgs(n *ir.Node) (params ir.Shape, dt ir.DType, axis, batch int, ok bool, err error) {
	if err := needInputs(n, 2); err != nil {
		return nil, ir.Invalid, 0, 0, false, err
	}
	p := n.Inputs[0]
	params, dt = p.Shape, p.DType
	if n.Op == "ResourceGather" {
		if p.Variable == nil {
			return nil, ir.Invalid, 0, 0, false, nil
		}
		params, dt = p.Variable.Value.Shape, p.Variable.Value.DType
	}
	b, err := n.AttrInt("batch_dims", 0)
	if err != nil {
		return nil, ir.Invalid, 0, 0, false, err
	}
	axis = 0
	if n.Op == "GatherV2" {
		if err := needInputs(n, 3); err != nil {
			return nil, ir.Invalid, 0, 0, false, err
		}
		a, known := constInts(n, 2)
		if !known || len(a) != 1 || params == nil {
			return params, dt, 0, 0, false, nil
		}
		if axis, err = normAxis(a[0], len(params)); err != nil {
			return nil, ir.Invalid, 0, 0, false, err
		}
	}
	if params == nil {
		return nil, dt, 0, 0, false, nil
	}
	if len(params) == 0 {
		return nil, ir.Invalid, 0, 0, false, fmt.Errorf("gather params must have rank 1 or more, got a scalar")
	}
	bd := int(b)
	if bd < 0 {
		bd += max(n.Inputs[1].Shape.Rank(), 0)
	}
	if bd != 0 {
		return nil, ir.Invalid, 0, 0, false, fmt.Errorf("batch_dims %d is not supported", b)
	}
	return params, dt, axis, 0, true, nil
}

func inferGather(n *ir.Node) error {
	params, dt, axis, _, ok, err := gatherArgs(n)
	if err != nil {
		return err
	}
	idx := n.Inputs[1].Shape
	if !ok || idx == nil {
		setOut(n, 0, dt, nil)
		return nil
	}
	out := append(append(append(ir.Shape{}, params[:axis]...), idx...), params[axis+1:]...)
	setOut(n, 0, dt, out)
	return nil
}

func foldGather(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	params, _, axis, _, ok, err := gatherArgs(n)
	if err != nil || !ok {
		return nil, err
	}
	t := in[0]
	if n.Op == "ResourceGather" {
		t = n.Inputs[0].Variable.Value
	}
	idx := in[1].Ints()
	for _, i := range idx {
		if i < 0 || i >= params[axis] {
			return nil, fmt.Errorf("gather index %d is out of range [0, %d)", i, params[axis])
		}
	}
	out := n.Outputs[0].Shape
	count, ok := out.NumElements()
	if !ok || count > maxFoldElements(n) {
		return nil, nil
	}
	inner := 1
	for _, d := range params[axis+1:] {
		inner *= d
	}
	nIdx := len(idx)
	return []*ir.Tensor{gather(t, out, count, func(i int) int {
		r := i % inner
		q := i / inner
		j := q % max(nIdx, 1)
		o := q / max(nIdx, 1)
		return (o*params[axis]+idx[j])*inner + r
	})}, nil
}

// legalizeGather: ResourceGather reads the variable's checkpoint value as the
// constant params.
func legalizeGather(c *ctx) error {
	params, err := c.in(0)
	if err != nil {
		return err
	}
	idx, err := c.in(1)
	if err != nil {
		return err
	}
	axis := 0
	if c.n.Op == "ResourceGather" {
		if params.Variable == nil {
			return fmt.Errorf("gathers from a resource that is not a resolved variable")
		}
		if params.Variable.State {
			return fmt.Errorf("gathers from variable %q, which the model updates; tflrun gathers only from a variable that keeps its checkpoint value", params.Variable.Name)
		}
		params = c.f.NewConst(c.n.Name+"/params", params.Variable.Value)
	}
	if c.n.Op == "GatherV2" {
		s, err := static(params)
		if err != nil {
			return err
		}
		if axis, err = axisOf(c, 2, len(s)); err != nil {
			return err
		}
	}
	return c.same(schema.BuiltinOperatorGATHER, &schema.GatherOptionsT{Axis: int32(axis)}, params, idx)
}
