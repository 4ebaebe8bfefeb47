package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// MirrorPad is the kernel of TFLite's MIRROR_PAD operator: input 0 padded
// with its own mirror image, paddings[d][0] elements before and
// paddings[d][1] after along every dimension d. Input 1 holds the
// paddings, a constant int32 or int64 tensor of shape [rank, 2].
// MirrorPadOptions.Mode REFLECT mirrors about the edge element (which is
// not repeated; pads ≤ dim − 1), SYMMETRIC includes it (pads ≤ dim), as
// TensorFlow requires and as TFLite's mirror_pad.cc index mapping
// assumes. Types: any fixed-size type.
type MirrorPad struct {
	elem     int
	offset   int // 1 for REFLECT, 0 for SYMMETRIC
	inShape  []int
	outShape []int
	before   []int
	pos      []int
	count    int
}

// NewMirrorPad returns a MIRROR_PAD kernel for one node.
func NewMirrorPad() ops.Kernel { return &MirrorPad{} }

// MirrorPadMode is TFLite's MirrorPadMode.
type MirrorPadMode int8

// Mirror padding modes (TFLite schema numbering).
const (
	// MirrorPadReflect mirrors without repeating the edge element.
	MirrorPadReflect MirrorPadMode = 0
	// MirrorPadSymmetric mirrors including the edge element.
	MirrorPadSymmetric MirrorPadMode = 1
)

// MirrorPadOptions is TFLite's MirrorPadOptions (operator MIRROR_PAD).
type MirrorPadOptions struct {
	Mode MirrorPadMode
}

func init() {
	register(ops.OpMirrorPad, NewMirrorPad, [2]int{1, 3})
	registerOptions(schema.BuiltinOptionsMirrorPadOptions, decodeMirrorPadOptions)
}

// decodeMirrorPadOptions decodes TFLite's MirrorPadOptions table.
func decodeMirrorPadOptions(t ops.OptionsTable) (any, error) {
	var o schema.MirrorPadOptions
	initTable(&o, t)
	return &MirrorPadOptions{Mode: MirrorPadMode(o.Mode())}, nil
}

// Prepare validates the node and sets the output shape.
func (k *MirrorPad) Prepare(n *ops.Node) error {
	*k = MirrorPad{}
	mode := MirrorPadReflect
	if o, ok := n.Options.(*MirrorPadOptions); ok && o != nil {
		mode = o.Mode
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *MirrorPadOptions", n.Options)
	}
	switch mode {
	case MirrorPadReflect:
		k.offset = 1
	case MirrorPadSymmetric:
	default:
		return fmt.Errorf("options: mode %d is neither REFLECT (0) nor SYMMETRIC (1)", mode)
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	p, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	rank := in.Rank()
	if p.Rank() != 2 || p.Shape[0] != rank || p.Shape[1] != 2 {
		return fmt.Errorf("input 1 (paddings): shape %v, need [%d 2]", p.Shape, rank)
	}
	flat := &ops.Tensor{Type: p.Type, Shape: []int{2 * rank}, Data: p.Data, Kind: p.Kind}
	pads, err := constIntVector(flat, "input 1 (paddings)", 2*rank)
	if err != nil {
		return err
	}
	k.elem = in.Type.Size()
	k.inShape = copyShape(in.Shape)
	k.outShape = make([]int, rank)
	k.before = make([]int, rank)
	k.pos = make([]int, rank)
	for d := 0; d < rank; d++ {
		lo, hi := pads[2*d], pads[2*d+1]
		limit := int64(in.Shape[d] - k.offset)
		if lo < 0 || hi < 0 || lo > limit || hi > limit {
			return fmt.Errorf("input 1 (paddings): dimension %d pads by %d and %d; each must be in [0, %d] for mode %s",
				d, lo, hi, max(limit, 0), map[int]string{1: "REFLECT", 0: "SYMMETRIC"}[k.offset])
		}
		size := int64(in.Shape[d]) + lo + hi
		if size > math.MaxInt32 {
			return fmt.Errorf("output 0: dimension %d overflows", d)
		}
		k.outShape[d], k.before[d] = int(size), int(lo)
	}
	if k.count, err = ops.ShapeElements(k.outShape, k.elem); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = copyShape(k.outShape)
	return nil
}

// source maps an output coordinate of dimension d to the input
// coordinate it mirrors.
func (k *MirrorPad) source(d, i int) int {
	i -= k.before[d]
	dim := k.inShape[d]
	switch {
	case i < 0:
		return -i - 1 + k.offset
	case i >= dim:
		return 2*dim - 1 - k.offset - i
	}
	return i
}

// Eval fills the output row by row. The dimensions inside the innermost
// padded one are as contiguous in the output as in the input, so they
// move as one block; along the innermost padded dimension the part that
// mirrors nothing (the input's own run) is one copy, and only the
// reflected edges go block by block.
func (k *MirrorPad) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("MIRROR_PAD: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	if k.count == 0 {
		return nil
	}
	rank := len(k.outShape)
	if rank == 0 {
		copy(out.Data[:k.elem], in.Data)
		return nil
	}
	// last: the innermost dimension with padding (0 if none); block: the
	// bytes of one element of it (the dimensions inside it and the
	// element size).
	last := 0
	for d := range rank {
		if k.outShape[d] != k.inShape[d] {
			last = d
		}
	}
	block := k.elem
	for d := last + 1; d < rank; d++ {
		block *= k.inShape[d]
	}
	// inRow: the input's bytes per step of dimension last.
	inRow := block * k.inShape[last]
	dst, src := out.Data, in.Data
	clear(k.pos)
	lo, w := k.before[last], k.inShape[last]
	o := 0
	for {
		// The input offset of the row the outer positions select.
		off, stride := 0, inRow
		for d := last - 1; d >= 0; d-- {
			off += k.source(d, k.pos[d]) * stride
			stride *= k.inShape[d]
		}
		row := src[off : off+inRow]
		for j := 0; j < lo; j++ {
			s := k.source(last, j) * block
			copy(dst[o:o+block], row[s:s+block])
			o += block
		}
		o += copy(dst[o:o+inRow], row)
		for j := lo + w; j < k.outShape[last]; j++ {
			s := k.source(last, j) * block
			copy(dst[o:o+block], row[s:s+block])
			o += block
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
			return nil
		}
	}
}
