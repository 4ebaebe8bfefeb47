package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Range", Outputs: "output:Tidx=int32", MinInputs: 3, Infer: inferRange, Fold: foldRange, NoLegalize: foldedOnly})
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
		if c > float64(maxFoldElements(n)) {
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
