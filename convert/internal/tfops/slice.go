package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Slice", Outputs: "output:T", MinInputs: 3, Infer: inferSlice, Fold: foldSlice, Legalize: rule(legalizeSlice)})
}

func sliceArgs(n *ir.Node) (begin, size []int, ok bool, err error) {
	s := n.Inputs[0].Shape
	b, okb := constInts(n, 1)
	z, okz := constInts(n, 2)
	if !okb || !okz || !s.Static() {
		return nil, nil, false, nil
	}
	if len(b) != len(s) || len(z) != len(s) {
		return nil, nil, false, fmt.Errorf("Slice begin %v / size %v do not match rank %d", b, z, len(s))
	}
	size = make([]int, len(s))
	for i := range s {
		if z[i] == -1 {
			z[i] = s[i] - b[i]
		}
		if b[i] < 0 || z[i] < 0 || b[i]+z[i] > s[i] {
			return nil, nil, false, fmt.Errorf("Slice begin %v size %v is out of range for %s", b, z, s)
		}
		size[i] = z[i]
	}
	return b, size, true, nil
}

func inferSlice(n *ir.Node) error {
	if err := needInputs(n, 3); err != nil {
		return err
	}
	_, size, ok, err := sliceArgs(n)
	if err != nil {
		return err
	}
	if !ok {
		var out ir.Shape
		if s := n.Inputs[0].Shape; s != nil {
			out = make(ir.Shape, len(s))
			for i := range out {
				out[i] = -1
			}
			if z, okz := constInts(n, 2); okz && len(z) == len(s) {
				for i, d := range z {
					if d >= 0 {
						out[i] = d
					}
				}
			}
		}
		setOut(n, 0, n.Inputs[0].DType, out)
		return nil
	}
	setOut(n, 0, n.Inputs[0].DType, ir.Shape(size))
	return nil
}

func foldSlice(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	b, size, ok, err := sliceArgs(n)
	if err != nil || !ok {
		return nil, err
	}
	return []*ir.Tensor{sliceTensor(in[0], b, ir.Shape(size))}, nil
}

// sliceTensor extracts t[begin : begin+size] (all static, in range).
func sliceTensor(t *ir.Tensor, begin []int, size ir.Shape) *ir.Tensor {
	count, _ := size.NumElements()
	st := strides(t.Shape)
	return gather(t, size, count, func(i int) int {
		k := 0
		for d := len(size) - 1; d >= 0; d-- {
			c := i % max(size[d], 1)
			i /= max(size[d], 1)
			k += (begin[d] + c) * st[d]
		}
		return k
	})
}

func legalizeSlice(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	s, err := static(x)
	if err != nil {
		return err
	}
	bt, err := c.constOf(1, "begin")
	if err != nil {
		return err
	}
	out, err := static(c.n.Outputs[0])
	if err != nil {
		return err
	}
	begin := bt.Ints()
	if len(begin) != len(s) {
		return fmt.Errorf("begin %v does not match rank %d", begin, len(s))
	}
	b, err := c.constInt32("begin", begin, ir.Shape{len(s)})
	if err != nil {
		return err
	}
	z, err := c.constInt32("size", out, ir.Shape{len(s)})
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorSLICE, &schema.SliceOptionsT{}, x, b, z)
}
