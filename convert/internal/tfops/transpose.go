package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Transpose", Outputs: "y:T", MinInputs: 2, Infer: inferTranspose, Fold: foldTranspose, Legalize: rule(legalizeTranspose)})
}

func inferTranspose(n *ir.Node) error {
	if err := needInputs(n, 2); err != nil {
		return err
	}
	s := n.Inputs[0].Shape
	perm, ok := constInts(n, 1)
	if !ok || s == nil {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	if err := checkPerm(perm, len(s)); err != nil {
		return err
	}
	out := make(ir.Shape, len(s))
	for i, p := range perm {
		out[i] = s[p]
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func checkPerm(perm []int, rank int) error {
	if len(perm) != rank {
		return fmt.Errorf("permutation %v does not match rank %d", perm, rank)
	}
	seen := make([]bool, rank)
	for _, p := range perm {
		if p < 0 || p >= rank || seen[p] {
			return fmt.Errorf("%v is not a permutation of 0..%d", perm, rank-1)
		}
		seen[p] = true
	}
	return nil
}

// Transpose permutes a constant tensor's axes (out axis i = in axis
// perm[i]).
func Transpose(t *ir.Tensor, perm []int) (*ir.Tensor, error) {
	if err := checkPerm(perm, len(t.Shape)); err != nil {
		return nil, err
	}
	out := make(ir.Shape, len(perm))
	for i, p := range perm {
		out[i] = t.Shape[p]
	}
	count, _ := out.NumElements()
	st := strides(t.Shape)
	return gather(t, out, count, func(i int) int {
		k := 0
		for d := len(out) - 1; d >= 0; d-- {
			c := i % max(out[d], 1)
			i /= max(out[d], 1)
			k += c * st[perm[d]]
		}
		return k
	}), nil
}

func foldTranspose(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	r, err := Transpose(in[0], in[1].Ints())
	return []*ir.Tensor{r}, err
}

func legalizeTranspose(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	p, err := c.asInt32(1, "perm")
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorTRANSPOSE, &schema.TransposeOptionsT{}, x, p)
}
