package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Cast", Outputs: "y:DstT", MinInputs: 1, Infer: inferCast, Fold: foldCast, Legalize: rule(legalizeCast)})
}

func inferCast(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	dt, err := n.AttrType("DstT")
	if err != nil {
		return err
	}
	setOut(n, 0, dt, n.Inputs[0].Shape.Clone())
	return nil
}

func foldCast(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	dt, err := n.AttrType("DstT")
	if err != nil {
		return nil, err
	}
	r, err := Cast(in[0], dt)
	return []*ir.Tensor{r}, err
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

func legalizeCast(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	out := c.n.Outputs[0].DType
	return c.same(schema.BuiltinOperatorCAST, &schema.CastOptionsT{InDataType: schema.TensorType(x.DType), OutDataType: schema.TensorType(out)}, x)
}
