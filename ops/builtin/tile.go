package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// Tile is the kernel of TFLite's TILE operator: input 0 repeated
// multiples[d] times along every dimension d, so output dimension d is
// input[d]·multiples[d]. Input 1 holds the multiples: a constant int32 or
// int64 vector with one non-negative entry per input dimension. Types:
// any fixed-size type (TFLite's tile.cc takes float32, int8, uint8, int16,
// int32, int64, bool, and strings, which tflrun lacks).
type Tile struct {
	elem     int
	inShape  []int
	outShape []int
	pos      []int
}

// NewTile returns a TILE kernel for one node.
func NewTile() ops.Kernel { return &Tile{} }

func init() {
	register(ops.OpTile, NewTile, [2]int{1, 3})
}

// Prepare validates the node and sets the output shape.
func (k *Tile) Prepare(n *ops.Node) error {
	*k = Tile{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, out, err := unaryCopyIO(n)
	if err != nil {
		return err
	}
	mt, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	mult, err := constIntVector(mt, "input 1 (multiples)", in.Rank())
	if err != nil {
		return err
	}
	shape := make([]int, in.Rank())
	for d, m := range mult {
		if m < 0 {
			return fmt.Errorf("input 1 (multiples): entry %d is %d; multiples must be ≥ 0", d, m)
		}
		size := int64(in.Shape[d]) * m
		if m != 0 && size/m != int64(in.Shape[d]) || size > math.MaxInt32 {
			return fmt.Errorf("output 0: dimension %d (%d × %d) overflows", d, in.Shape[d], m)
		}
		shape[d] = int(size)
	}
	k.elem = in.Type.Size()
	if _, err := ops.ShapeElements(shape, k.elem); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	k.inShape, k.outShape = copyShape(in.Shape), shape
	k.pos = make([]int, len(shape))
	out.Shape = shape
	return nil
}

// Eval repeats the input.
func (k *Tile) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("TILE: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	repeatCopy(in.Data, out.Data, k.inShape, k.outShape, k.pos, k.elem)
	return nil
}
