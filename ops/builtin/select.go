package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// maxSelectRank is the largest output rank of SELECT_V2 (TFLite's
// select.cc refuses more than 8 broadcast dimensions).
const maxSelectRank = 8

// Select is the kernel of TFLite's SELECT and SELECT_V2 operators:
// out[i] = condition[i] ? x[i] : y[i]. Input 0 is the bool condition,
// inputs 1 and 2 (x, y) share one type, which the output takes; values
// are copied bit for bit, so any fixed-size type works.
//
// Shapes, as TFLite's select.cc: when all three shapes are equal the
// selection is element-wise. Otherwise SELECT (version one) needs x and y
// of one shape and a condition that is a scalar (choosing all of x or all
// of y) or a vector as long as x's first dimension (choosing whole
// slices); SELECT_V2 broadcasts the three shapes numpy-style (at most 8
// dimensions). When every tensor holds one element the output keeps the
// shape the model gives it.
type Select struct {
	v2       bool
	elem     int
	outShape []int
	strides  [3][]int // per input, element stride per output dimension
	pos      []int
	rowCond  bool // SELECT's scalar or rank-1 condition
	inner    int  // elements per condition entry (rowCond)
	condLen  int
	count    int
}

// NewSelect returns a SELECT kernel for one node.
func NewSelect() ops.Kernel { return &Select{} }

func init() {
	register(ops.OpSelect, NewSelect, [2]int{1, 4})
}

// Prepare validates the node and sets the output shape.
func (k *Select) Prepare(n *ops.Node) error {
	v2 := k.v2
	*k = Select{v2: v2}
	if err := n.CheckIO(3, 3, 1); err != nil {
		return err
	}
	var t [3]*ops.Tensor
	for i := range t {
		var err error
		if t[i], err = n.RequireInput(i); err != nil {
			return err
		}
		if _, err := numElementsChecked(t[i], fmt.Sprintf("input %d", i)); err != nil {
			return err
		}
	}
	cond, x, y := t[0], t[1], t[2]
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if cond.Type != ops.Bool {
		return fmt.Errorf("input 0 (condition): type %s, need bool", cond.Type)
	}
	if y.Type != x.Type {
		return fmt.Errorf("input 2 (y): type %s differs from x's %s", y.Type, x.Type)
	}
	if out.Type != x.Type {
		return fmt.Errorf("output 0: type %s differs from x's %s", out.Type, x.Type)
	}
	if k.elem = x.Type.Size(); k.elem == 0 {
		return fmt.Errorf("input 1 (x): type %s is not supported", x.Type)
	}
	if cond.NumElements() == 1 && x.NumElements() == 1 && y.NumElements() == 1 && out.NumElements() == 1 {
		// TFLite keeps the model's output shape here; a scalar output
		// (rank 0, no dims) is given its empty shape, which Prepare must
		// set (a nil shape means "not set").
		if out.Shape == nil {
			out.Shape = []int{}
		}
		k.setStrides(out.Shape, t)
		return nil
	}
	switch {
	case ops.SameShape(cond.Shape, x.Shape) && ops.SameShape(x.Shape, y.Shape):
		out.Shape = copyShape(x.Shape)
	case !v2:
		if !ops.SameShape(x.Shape, y.Shape) {
			return fmt.Errorf("input 2 (y): shape %v differs from x's %v", y.Shape, x.Shape)
		}
		switch {
		case cond.Rank() == 0:
		case cond.Rank() == 1 && x.Rank() > 0 && cond.Shape[0] == x.Shape[0]:
		default:
			return fmt.Errorf("input 0 (condition): shape %v must equal x's %v, be a scalar, or be a vector of x's first dimension", cond.Shape, x.Shape)
		}
		out.Shape = copyShape(x.Shape)
		k.rowCond = true
		k.condLen = cond.NumElements()
		k.count = x.NumElements()
		k.inner = 1
		if cond.Rank() == 1 {
			k.inner = k.count / max(k.condLen, 1)
		}
		return nil
	default:
		shape, err := broadcastShapes(cond.Shape, x.Shape, y.Shape)
		if err != nil {
			return err
		}
		if len(shape) > maxSelectRank {
			return fmt.Errorf("output 0: rank %d, at most %d is supported", len(shape), maxSelectRank)
		}
		out.Shape = shape
	}
	k.setStrides(out.Shape, t)
	return nil
}

// broadcastShapes is numpy's broadcast of several shapes (trailing
// alignment; each dimension equal or 1; 0 against 1 gives 0).
func broadcastShapes(shapes ...[]int) ([]int, error) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for j, d := range s {
			o := rank - len(s) + j
			switch {
			case d == out[o] || d == 1:
			case out[o] == 1:
				out[o] = d
			default:
				return nil, fmt.Errorf("input shapes %v are not broadcastable", shapes)
			}
		}
	}
	return out, nil
}

func (k *Select) setStrides(outShape []int, t [3]*ops.Tensor) {
	rank := len(outShape)
	k.outShape = copyShape(outShape)
	k.pos = make([]int, rank)
	k.count = 1
	for _, d := range outShape {
		k.count *= d
	}
	for i, tt := range t {
		k.strides[i] = make([]int, rank)
		s := 1
		for d := rank - 1; d >= 0; d-- {
			j := d - (rank - tt.Rank())
			if j < 0 {
				continue
			}
			if tt.Shape[j] != 1 {
				k.strides[i][d] = s
			}
			s *= tt.Shape[j]
		}
	}
}

// Eval selects.
func (k *Select) Eval(n *ops.Node) error {
	cond, x, y, out := n.Input(0), n.Input(1), n.Input(2), n.Output(0)
	if cond == nil || x == nil || y == nil || out == nil {
		return errors.New("SELECT: input or output missing at Eval")
	}
	if err := checkData(cond, x, y, out); err != nil {
		return err
	}
	switch k.elem {
	case 1:
		selectElems(k, cond.Bools(), x.Data, y.Data, out.Data)
	case 2:
		selectElems(k, cond.Bools(), ops.View[uint16](x.Data), ops.View[uint16](y.Data), ops.View[uint16](out.Data))
	case 4:
		selectElems(k, cond.Bools(), ops.View[uint32](x.Data), ops.View[uint32](y.Data), ops.View[uint32](out.Data))
	default:
		selectElems(k, cond.Bools(), ops.View[uint64](x.Data), ops.View[uint64](y.Data), ops.View[uint64](out.Data))
	}
	return nil
}

func selectElems[T uint8 | uint16 | uint32 | uint64](k *Select, c []bool, x, y, o []T) {
	if k.count == 0 {
		return
	}
	if k.rowCond {
		for r := 0; r < k.count/k.inner; r++ {
			src := y
			if c[r%k.condLen] {
				src = x
			}
			copy(o[r*k.inner:(r+1)*k.inner], src[r*k.inner:])
		}
		return
	}
	rank := len(k.outShape)
	if rank == 0 {
		if c[0] {
			o[0] = x[0]
		} else {
			o[0] = y[0]
		}
		return
	}
	clear(k.pos)
	sc, sx, sy := k.strides[0], k.strides[1], k.strides[2]
	last := rank - 1
	i := 0
	for {
		ic, ix, iy := 0, 0, 0
		for d := 0; d < last; d++ {
			ic += k.pos[d] * sc[d]
			ix += k.pos[d] * sx[d]
			iy += k.pos[d] * sy[d]
		}
		for j := 0; j < k.outShape[last]; j++ {
			if c[ic+j*sc[last]] {
				o[i] = x[ix+j*sx[last]]
			} else {
				o[i] = y[iy+j*sy[last]]
			}
			i++
		}
		d := last - 1
		for ; d >= 0; d-- {
			k.pos[d]++
			if k.pos[d] < k.outShape[d] {
				break
			}
			k.pos[d] = 0
		}
		if d < 0 {
			return
		}
	}
}
