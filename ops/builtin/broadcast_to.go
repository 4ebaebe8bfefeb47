package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// maxBroadcastToRank is the largest output rank of TFLite's BROADCAST_TO
// (broadcast_to.cc's kMaxDims).
const maxBroadcastToRank = 8

// BroadcastTo is the kernel of TFLite's BROADCAST_TO operator: input 0
// repeated to the shape held by input 1, a constant int32 or int64
// vector of at most 8 non-negative sizes. Aligned at the trailing end,
// every input dimension must equal the output's or be 1, and the input
// may not have more dimensions than the output. Types: any fixed-size
// type.
type BroadcastTo struct {
	elem     int
	inShape  []int // padded with leading 1s to the output rank
	outShape []int
	pos      []int
}

// NewBroadcastTo returns a BROADCAST_TO kernel for one node.
func NewBroadcastTo() ops.Kernel { return &BroadcastTo{} }

func init() {
	// BROADCAST_TO version 1 was withdrawn (TFLite registers 2-4; 4 is the float8
	// types).
	register(ops.OpBroadcastTo, NewBroadcastTo, [2]int{2, 4})
}

// Prepare validates the node and sets the output shape.
func (k *BroadcastTo) Prepare(n *ops.Node) error {
	*k = BroadcastTo{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	st, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	sv, err := constIntVector(st, "input 1 (shape)", -1)
	if err != nil {
		return err
	}
	rank := len(sv)
	if rank > maxBroadcastToRank {
		return fmt.Errorf("input 1 (shape): %d dimensions, at most %d are supported", rank, maxBroadcastToRank)
	}
	if in.Rank() > rank {
		return fmt.Errorf("input 0: rank %d is larger than the target rank %d", in.Rank(), rank)
	}
	shape := make([]int, rank)
	k.inShape = make([]int, rank)
	off := rank - in.Rank()
	for d := range shape {
		if sv[d] < 0 || sv[d] > 1<<31-1 {
			return fmt.Errorf("input 1 (shape): entry %d is %d", d, sv[d])
		}
		shape[d] = int(sv[d])
		k.inShape[d] = 1
		if d >= off {
			k.inShape[d] = in.Shape[d-off]
		}
		if k.inShape[d] != shape[d] && k.inShape[d] != 1 {
			return fmt.Errorf("input 0: dimension %d is %d, cannot broadcast to %d", d-off, k.inShape[d], shape[d])
		}
	}
	k.elem = in.Type.Size()
	if _, err := ops.ShapeElements(shape, k.elem); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	k.outShape = shape
	k.pos = make([]int, rank)
	out.Shape = copyShape(shape)
	return nil
}

// Eval broadcasts the input.
func (k *BroadcastTo) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("BROADCAST_TO: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	repeatCopy(in.Data, out.Data, k.inShape, k.outShape, k.pos, k.elem)
	return nil
}
