package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// splitter copies consecutive chunks along one axis into the outputs; it
// serves SPLIT and SPLIT_V.
type splitter struct {
	outer int   // product of dimensions before the axis
	sizes []int // bytes per outer slice, per output
	total int   // bytes per outer slice of the input
}

// constAxis reads a one-element constant int32 axis and resolves it
// against rank.
func constAxis(at *ops.Tensor, label string, rank int) (int, error) {
	if at.Type != ops.Int32 || at.NumElements() != 1 {
		return 0, fmt.Errorf("%s: %s%v, need one int32 value", label, at.Type, at.Shape)
	}
	if at.Kind != ops.ConstTensor || len(at.Data) < 4 {
		return 0, ops.NotConstant(label)
	}
	a := int(at.Int32s()[0])
	axis := a
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return 0, fmt.Errorf("%s: axis %d is outside an input of rank %d", label, a, rank)
	}
	return axis, nil
}

// prepare sets the output shapes for the given split sizes along axis.
func (s *splitter) prepare(n *ops.Node, in *ops.Tensor, axis int, sizes []int) error {
	if in.Type.Size() == 0 {
		return fmt.Errorf("input: type %s is not supported", in.Type)
	}
	if _, err := numElementsChecked(in, "input"); err != nil {
		return err
	}
	inner := in.Type.Size()
	s.outer = 1
	for d, v := range in.Shape {
		if d < axis {
			s.outer *= v
		} else if d > axis {
			inner *= v
		}
	}
	s.sizes = make([]int, len(sizes))
	for i, o := range n.Outputs {
		if o == nil {
			return fmt.Errorf("output %d is missing", i)
		}
		if o.Type != in.Type {
			return fmt.Errorf("output %d: type %s differs from input type %s", i, o.Type, in.Type)
		}
		if err := sameQuant(in, o, fmt.Sprintf("output %d", i)); err != nil {
			return err
		}
		shape := copyShape(in.Shape)
		shape[axis] = sizes[i]
		o.Shape = shape
		s.sizes[i] = sizes[i] * inner
	}
	s.total = in.Shape[axis] * inner
	return nil
}

// eval copies the chunks from input t.
func (s *splitter) eval(n *ops.Node, in *ops.Tensor) error {
	if in == nil || len(in.Data) < s.outer*s.total {
		return errShortData
	}
	for i, o := range n.Outputs {
		if o == nil || len(o.Data) < s.outer*s.sizes[i] {
			return errShortData
		}
	}
	// Output by output: its segment of every outer slice, as runs at the
	// input's row stride.
	start := 0
	for i, o := range n.Outputs {
		sz := s.sizes[i]
		copyByteRuns(o.Data, sz, in.Data[start:], s.total, sz, s.outer)
		start += sz
	}
	return nil
}

// SplitOptions is TFLite's SplitOptions (also used for SPLIT_V's
// SplitVOptions, which has the same single field).
type SplitOptions struct {
	NumSplits int
}
