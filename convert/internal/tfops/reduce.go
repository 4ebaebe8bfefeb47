package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// The reductions, each with the TFLite operator it becomes (reducers).
func init() {
	for op := range reducers {
		outputs := "output:T"
		if op == "All" || op == "Any" {
			outputs = "output:=bool"
		}
		ir.RegisterOp(ir.OpRecord{Name: op, Outputs: outputs, MinInputs: 2, Infer: inferReduce, Fold: foldReduce, Legalize: rule(legalizeReduce)})
	}
}

// ReduceAxes resolves a reduction's axes against a rank (nil means all).
func ReduceAxes(axes []int, rank int) ([]bool, error) {
	red := make([]bool, rank)
	for _, a := range axes {
		k, err := normAxis(a, rank)
		if err != nil {
			return nil, err
		}
		red[k] = true
	}
	return red, nil
}

func reduceShape(n *ir.Node) (ir.Shape, []bool, bool, error) {
	if err := needInputs(n, 2); err != nil {
		return nil, nil, false, err
	}
	keep, err := n.AttrBool("keep_dims", false)
	if err != nil {
		return nil, nil, false, err
	}
	s := n.Inputs[0].Shape
	axes, ok := constInts(n, 1)
	if !ok || s == nil {
		return nil, nil, false, nil
	}
	red, err := ReduceAxes(axes, len(s))
	if err != nil {
		return nil, nil, false, err
	}
	out := ir.Shape{}
	for i, d := range s {
		switch {
		case !red[i]:
			out = append(out, d)
		case keep:
			out = append(out, 1)
		}
	}
	return out, red, true, nil
}

func inferReduce(n *ir.Node) error {
	out, _, _, err := reduceShape(n)
	if err != nil {
		return err
	}
	dt := n.Inputs[0].DType
	if n.Op == "All" || n.Op == "Any" {
		dt = ir.Bool
	}
	setOut(n, 0, dt, out)
	return nil
}

func foldReduce(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	out, red, ok, err := reduceShape(n)
	if err != nil || !ok {
		return nil, err
	}
	t := in[0]
	if t.DType == ir.String {
		return nil, nil
	}
	count, _ := out.NumElements()
	acc := make([]float64, count)
	cnt := make([]int, count)
	v := t.Float64s()
	st := strides(t.Shape)
	_ = st
	for i, x := range v {
		// map input flat index to output flat index
		o, rem, mul := 0, i, 1
		for d := len(t.Shape) - 1; d >= 0; d-- {
			c := rem % max(t.Shape[d], 1)
			rem /= max(t.Shape[d], 1)
			if !red[d] {
				o += c * mul
				mul *= t.Shape[d]
			}
		}
		if cnt[o] == 0 {
			acc[o] = x
		} else {
			switch n.Op {
			case "Sum", "Mean":
				acc[o] += x
			case "Prod":
				acc[o] *= x
			case "Max", "Any":
				acc[o] = math.Max(acc[o], x)
			case "Min", "All":
				acc[o] = math.Min(acc[o], x)
			}
		}
		cnt[o]++
	}
	for o := range acc {
		if cnt[o] == 0 {
			switch n.Op {
			case "Prod", "All":
				acc[o] = 1
			case "Max":
				acc[o] = math.Inf(-1)
			case "Min":
				acc[o] = math.Inf(1)
			}
		}
		if n.Op == "Mean" && cnt[o] > 0 {
			acc[o] /= float64(cnt[o])
		}
	}
	dt := n.Outputs[0].DType
	if dt.IsFloat() {
		r, err := ir.FromFloat64s(dt, out, acc)
		return []*ir.Tensor{r}, err
	}
	iv := make([]int64, len(acc))
	for i, x := range acc {
		iv[i] = wrapInt(dt, int64(x))
		if dt == ir.Bool && x != 0 {
			iv[i] = 1
		}
	}
	r, err := ir.FromInt64s(dt, out, iv)
	return []*ir.Tensor{r}, err
}

var reducers = map[string]schema.BuiltinOperator{
	"Mean": schema.BuiltinOperatorMEAN, "Sum": schema.BuiltinOperatorSUM, "Max": schema.BuiltinOperatorREDUCE_MAX,
	"Min": schema.BuiltinOperatorREDUCE_MIN, "Prod": schema.BuiltinOperatorREDUCE_PROD,
	"All": schema.BuiltinOperatorREDUCE_ALL, "Any": schema.BuiltinOperatorREDUCE_ANY,
}

func legalizeReduce(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	s, err := static(x)
	if err != nil {
		return err
	}
	keep, err := c.n.AttrBool("keep_dims", false)
	if err != nil {
		return err
	}
	at, err := c.constOf(1, "reduction axes")
	if err != nil {
		return err
	}
	axes := at.Ints()
	for i, a := range axes {
		if a < -len(s) || a >= len(s) {
			return fmt.Errorf("reduction axis %d is out of range for rank %d", a, len(s))
		}
		if a < 0 {
			axes[i] = a + len(s)
		}
	}
	av, err := c.constInt32("axes", axes, ir.Shape{len(axes)})
	if err != nil {
		return err
	}
	return c.same(reducers[c.n.Op], &schema.ReducerOptionsT{KeepDims: keep}, x, av)
}
