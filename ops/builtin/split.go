package builtin

import "github.com/tflrun/tflrun/ops"
import "fmt"

// Split is the kernel of TFLite's SPLIT operator: input 1 cut along the
// axis given by input 0 (one int32 value, negative counting from the end;
// a constant tensor) into SplitOptions.NumSplits equal parts, one per
// output. The axis dimension must be divisible by the number of outputs.
// Any fixed-size element type; quantised outputs must share the input's
// scale and zero point. Matches TFLite's split.cc.
type Split struct{ splitter }

// splitter copies consecutive chunks along one axis into the outputs; it
// serves SPLIT and SPLIT_V.
type splitter struct {
	outer int   // product of dimensions before the axis
	sizes []int // bytes per outer slice, per output
	total int   // bytes per outer slice of the input
}

// NewSplit returns a SPLIT kernel for one node.
func NewSplit() ops.Kernel { return &Split{} }

// Prepare validates the node and sets the output shapes.
func (k *Split) Prepare(n *ops.Node) error {
	k.splitter = splitter{}
	var opts ops.SplitOptions
	if o, ok := n.Options.(*ops.SplitOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *SplitOptions", n.Options)
	}
	if len(n.Inputs) != 2 {
		return fmt.Errorf("has %d inputs, needs 2 (axis, input)", len(n.Inputs))
	}
	at, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	in, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	axis, err := constAxis(at, "input 0 (axis)", in.Rank())
	if err != nil {
		return err
	}
	num := len(n.Outputs)
	if opts.NumSplits != num {
		return fmt.Errorf("options: num_splits %d, but the node has %d outputs", opts.NumSplits, num)
	}
	if num == 0 || in.Shape[axis]%num != 0 {
		return fmt.Errorf("input 1: dimension %d of size %d is not divisible into %d splits", axis, in.Shape[axis], num)
	}
	sizes := make([]int, num)
	for i := range sizes {
		sizes[i] = in.Shape[axis] / num
	}
	return k.prepare(n, in, axis, sizes)
}

// constAxis reads a one-element constant int32 axis and resolves it
// against rank.
func constAxis(at *ops.Tensor, label string, rank int) (int, error) {
	if at.Type != ops.Int32 || at.NumElements() != 1 {
		return 0, fmt.Errorf("%s: %s%v, need one int32 value", label, at.Type, at.Shape)
	}
	if at.Kind != ops.ConstTensor || len(at.Data) < 4 {
		return 0, fmt.Errorf("%s: must be a constant tensor (tflrun sizes outputs at Prepare)", label)
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
	src := 0
	for outer := 0; outer < s.outer; outer++ {
		for i, o := range n.Outputs {
			sz := s.sizes[i]
			copy(o.Data[outer*sz:(outer+1)*sz], in.Data[src:src+sz])
			src += sz
		}
	}
	return nil
}

// Eval copies the parts.
func (k *Split) Eval(n *ops.Node) error { return k.eval(n, n.Input(1)) }
