package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// maxSliceRank is the most dimensions TFLite's SLICE handles (slice.cc's
// kMaxDim).
const maxSliceRank = 5

// Slice is the kernel of TFLite's SLICE operator: the block of input 0
// starting at begin (input 1) with size (input 2) elements along each
// dimension, a size of −1 meaning "to the end". begin and size are
// constant int32 or int64 vectors with one entry per input dimension
// (rank ≤ 5); as TFLite's slice.cc, every begin must be ≥ 0 and
// begin + size within the dimension. Types: any fixed-size type.
type Slice struct {
	elem     int
	inShape  []int
	outShape []int
	begin    []int
	pos      []int
}

// NewSlice returns a SLICE kernel for one node.
func NewSlice() ops.Kernel { return &Slice{} }

func init() {
	// Versions 1-8 as TFLite registers (8: float16, which TFLite's
	// slice.cc, too, moves by element size).
	register(ops.OpSlice, NewSlice, [2]int{1, 8})
}

// Prepare validates the node and sets the output shape.
func (k *Slice) Prepare(n *ops.Node) error {
	*k = Slice{}
	if err := n.CheckIO(3, 3, 1); err != nil {
		return err
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	rank := in.Rank()
	if rank > maxSliceRank {
		return fmt.Errorf("input 0: rank %d, at most %d is supported", rank, maxSliceRank)
	}
	bt, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	st, err := n.RequireInput(2)
	if err != nil {
		return err
	}
	if bt.Type != st.Type {
		return fmt.Errorf("input 2 (size): type %s differs from begin's %s", st.Type, bt.Type)
	}
	begin, err := constIntVector(bt, "input 1 (begin)", rank)
	if err != nil {
		return err
	}
	size, err := constIntVector(st, "input 2 (size)", rank)
	if err != nil {
		return err
	}
	k.begin = make([]int, rank)
	shape := make([]int, rank)
	for d := 0; d < rank; d++ {
		dim := int64(in.Shape[d])
		b, s := begin[d], size[d]
		if s == -1 {
			s = dim - b
		}
		if b < 0 || b > dim {
			return fmt.Errorf("input 1 (begin): entry %d is %d, outside [0, %d]", d, begin[d], dim)
		}
		if s < 0 || b+s > dim {
			return fmt.Errorf("input 2 (size): entry %d is %d; begin %d + size exceeds dimension %d", d, size[d], b, dim)
		}
		k.begin[d], shape[d] = int(b), int(s)
	}
	k.elem = in.Type.Size()
	k.inShape, k.outShape = copyShape(in.Shape), shape
	k.pos = make([]int, rank)
	out.Shape = copyShape(shape)
	return nil
}

// Eval copies the block row by row.
func (k *Slice) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("SLICE: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	rank := len(k.outShape)
	total := 1
	for _, d := range k.outShape {
		total *= d
	}
	eb := k.elem
	if total == 0 {
		return nil
	}
	if rank == 0 {
		copy(out.Data[:eb], in.Data)
		return nil
	}
	last := rank - 1
	row := k.outShape[last] * eb
	if rank == 1 {
		off := k.begin[0] * eb
		copy(out.Data[:row], in.Data[off:off+row])
		return nil
	}
	// The rows along the second-to-last axis of each outer position go
	// as one run (copyRuns: short rows, such as RoPE's pairs, are a few
	// moves each rather than a memmove call).
	rows, inRow := k.outShape[last-1], k.inShape[last]*eb
	clear(k.pos)
	o := 0
	for {
		off, stride := k.begin[last]+k.begin[last-1]*k.inShape[last], k.inShape[last]*k.inShape[last-1]
		for d := last - 2; d >= 0; d-- {
			off += (k.pos[d] + k.begin[d]) * stride
			stride *= k.inShape[d]
		}
		copyRuns(out.Data[o:], row, in.Data[off*eb:], inRow, row, rows)
		o += rows * row
		d := last - 2
		for ; d >= 0; d-- {
			k.pos[d]++
			if k.pos[d] < k.outShape[d] {
				break
			}
			k.pos[d] = 0
		}
		if d < 0 {
			return nil
		}
	}
}
