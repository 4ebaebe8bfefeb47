package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Select", Outputs: "output:T", MinInputs: 3, Infer: inferSelect, Fold: foldSelect, Legalize: rule(legalizeSelect)})
	ir.RegisterOp(ir.OpRecord{Name: "SelectV2", Outputs: "output:T", MinInputs: 3, Infer: inferSelect, Fold: foldSelect, Legalize: rule(legalizeSelect)})
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
	if !ok || count > maxFoldElements(n) || x.DType != y.DType {
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

// legalizeSelect: SELECT_V2 broadcasts like SelectV2; TF1 Select with a vector
// condition selects rows, which SELECT (v1) implements.
func legalizeSelect(c *ctx) error {
	cond, err := c.in(0)
	if err != nil {
		return err
	}
	x, err := c.in(1)
	if err != nil {
		return err
	}
	y, err := c.in(2)
	if err != nil {
		return err
	}
	if c.n.Op == "Select" {
		return c.same(schema.BuiltinOperatorSELECT, nil, cond, x, y)
	}
	return c.same(schema.BuiltinOperatorSELECT_V2, &schema.SelectV2OptionsT{}, cond, x, y)
}
