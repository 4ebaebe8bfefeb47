package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	ir.RegisterOp(ir.OpRecord{Name: "Split", Outputs: "output:T*num_split", MinInputs: 2, Infer: inferSplit, Fold: foldSplit, Legalize: rule(legalizeSplit)})
	ir.RegisterOp(ir.OpRecord{Name: "SplitV", Outputs: "output:T*num_split", MinInputs: 3, Infer: inferSplit, Fold: foldSplit, Legalize: rule(legalizeSplit)})
}

// splitSizes returns the axis and the size of each piece of Split/SplitV.
func splitSizes(n *ir.Node) (value *ir.Value, axis int, sizes []int, ok bool, err error) {
	var axisIn, valueIn int
	if n.Op == "Split" {
		axisIn, valueIn = 0, 1
	} else {
		axisIn, valueIn = 2, 0
	}
	if err := needInputs(n, map[string]int{"Split": 2, "SplitV": 3}[n.Op]); err != nil {
		return nil, 0, nil, false, err
	}
	value = n.Inputs[valueIn]
	s := value.Shape
	axes, known := constInts(n, axisIn)
	if !known || s == nil || len(axes) != 1 {
		return value, 0, nil, false, nil
	}
	if axis, err = normAxis(axes[0], len(s)); err != nil {
		return nil, 0, nil, false, err
	}
	k := len(n.Outputs)
	if n.Op == "Split" {
		if s[axis] < 0 {
			return value, axis, nil, false, nil
		}
		if k == 0 || s[axis]%k != 0 {
			return nil, 0, nil, false, fmt.Errorf("cannot split dimension %d of size %d into %d parts", axis, s[axis], k)
		}
		sizes = make([]int, k)
		for i := range sizes {
			sizes[i] = s[axis] / k
		}
		return value, axis, sizes, true, nil
	}
	sz, known := constInts(n, 1)
	if !known {
		return value, axis, nil, false, nil
	}
	if len(sz) != k {
		return nil, 0, nil, false, fmt.Errorf("SplitV has %d sizes for %d outputs", len(sz), k)
	}
	unknown, total := -1, 0
	for i, d := range sz {
		if d == -1 {
			if unknown >= 0 {
				return nil, 0, nil, false, fmt.Errorf("SplitV sizes %v have more than one -1", sz)
			}
			unknown = i
			continue
		}
		if d < 0 {
			return nil, 0, nil, false, fmt.Errorf("SplitV sizes %v have a negative size", sz)
		}
		total += d
	}
	if s[axis] < 0 {
		return value, axis, nil, false, nil
	}
	if unknown >= 0 {
		sz = append([]int(nil), sz...)
		sz[unknown] = s[axis] - total
		total = s[axis]
	}
	if total != s[axis] || (unknown >= 0 && sz[unknown] < 0) {
		return nil, 0, nil, false, fmt.Errorf("SplitV sizes %v do not add up to %d", sz, s[axis])
	}
	return value, axis, sz, true, nil
}

func inferSplit(n *ir.Node) error {
	value, axis, sizes, ok, err := splitSizes(n)
	if err != nil {
		return err
	}
	for i := range n.Outputs {
		var s ir.Shape
		if value.Shape != nil {
			s = value.Shape.Clone()
			if ok {
				s[axis] = sizes[i]
			} else if axes, known := constInts(n, map[string]int{"Split": 0, "SplitV": 2}[n.Op]); known && len(axes) == 1 {
				if a, err := normAxis(axes[0], len(s)); err == nil {
					s[a] = -1
				}
			} else {
				s = make(ir.Shape, len(s))
				for j := range s {
					s[j] = -1
				}
			}
		}
		setOut(n, i, value.DType, s)
	}
	return nil
}

func foldSplit(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	value, axis, sizes, ok, err := splitSizes(n)
	if err != nil || !ok {
		return nil, err
	}
	t := value.Const
	var outs []*ir.Tensor
	off := 0
	for _, sz := range sizes {
		begin := make([]int, len(t.Shape))
		size := t.Shape.Clone()
		begin[axis], size[axis] = off, sz
		outs = append(outs, sliceTensor(t, begin, size))
		off += sz
	}
	return outs, nil
}

func legalizeSplit(c *ctx) error {
	k := int32(len(c.n.Outputs))
	if c.n.Op == "Split" {
		x, err := c.in(1)
		if err != nil {
			return err
		}
		s, err := static(x)
		if err != nil {
			return err
		}
		a, err := axisOf(c, 0, len(s))
		if err != nil {
			return err
		}
		av, err := c.constInt32("axis", []int{a}, ir.Scalar())
		if err != nil {
			return err
		}
		return c.same(schema.BuiltinOperatorSPLIT, &schema.SplitOptionsT{NumSplits: k}, av, x)
	}
	x, err := c.in(0)
	if err != nil {
		return err
	}
	s, err := static(x)
	if err != nil {
		return err
	}
	a, err := axisOf(c, 2, len(s))
	if err != nil {
		return err
	}
	sizes := make([]int, len(c.n.Outputs))
	for i, o := range c.n.Outputs {
		os, err := static(o)
		if err != nil {
			return err
		}
		sizes[i] = os[a]
	}
	sv, err := c.constInt32("size_splits", sizes, ir.Shape{len(sizes)})
	if err != nil {
		return err
	}
	av, err := c.constInt32("axis", []int{a}, ir.Scalar())
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorSPLIT_V, &schema.SplitVOptionsT{NumSplits: k}, x, sv, av)
}
