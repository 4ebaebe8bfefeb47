package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// This file holds what SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND share: the
// checks of TFLite's Prepare (space_to_batch_nd.cc, batch_to_space_nd.cc
// are mirror images) and the 4-D view of their 3-D or 4-D tensors.

// spaceBatchGeometry is a 3-D [batch, height, depth] or 4-D [batch,
// height, width, depth] tensor of SPACE_TO_BATCH_ND or BATCH_TO_SPACE_ND
// seen as 4-D (a 3-D tensor has width 1 and block width 1), as TFLite's
// ExtendShapeSpaceToBatch does.
type spaceBatchGeometry struct {
	inB, inH, inW      int // input batch, height, width
	outB, outH, outW   int // output batch, height, width
	depth              int // elements per pixel
	blockH, blockW     int
	top, left          int // padding (SPACE_TO_BATCH_ND) or crop (BATCH_TO_SPACE_ND) before the data
	elem               int // bytes per element
	pixel              int // depth·elem
	rank4              bool
	inBatch, outBatchN int // bytes of one input / output image
}

// spaceBatchInputs is the common Prepare of the two operators: three
// inputs (data, block_shape, paddings or crops), one output of the data's
// type; data of rank 3 or 4 and any type of 1, 2, 4 or 8 bytes (TFLite
// dispatches on the element size only); for uint8, int8 and int16 the
// output's scale and zero point equal the input's, and int16's zero point
// is 0. block_shape ([rank-2] int32) and the pads ([rank-2, 2] int32) must
// be constants: TFLite sizes the output from their values (otherwise it
// makes the output dynamic). what names the third input.
func spaceBatchInputs(n *ops.Node, what string) (in, out *ops.Tensor, block, pads []int64, err error) {
	if err := n.CheckIO(3, 3, 1); err != nil {
		return nil, nil, nil, nil, err
	}
	if in, err = n.RequireInput(0); err != nil {
		return nil, nil, nil, nil, err
	}
	bt, err := n.RequireInput(1)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	pt, err := n.RequireInput(2)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if out = n.Output(0); out == nil {
		return nil, nil, nil, nil, errors.New("output 0 is missing")
	}
	if r := in.Rank(); r < 3 || r > 4 {
		return nil, nil, nil, nil, fmt.Errorf("input 0: shape %v has rank %d, need 3 or 4", in.Shape, r)
	}
	switch in.Type.Size() {
	case 1, 2, 4, 8:
	default:
		return nil, nil, nil, nil, fmt.Errorf("input 0: type %s is not supported (need an element of 1, 2, 4 or 8 bytes)", in.Type)
	}
	if out.Type != in.Type {
		return nil, nil, nil, nil, fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	if in.Type == ops.Uint8 || in.Type == ops.Int8 || in.Type == ops.Int16 {
		if in.Scale() != out.Scale() || in.ZeroPoint() != out.ZeroPoint() {
			return nil, nil, nil, nil, fmt.Errorf("output 0: quantization (scale %g, zero point %d) differs from the input's (%g, %d)",
				out.Scale(), out.ZeroPoint(), in.Scale(), in.ZeroPoint())
		}
		if in.Type == ops.Int16 && in.ZeroPoint() != 0 {
			return nil, nil, nil, nil, fmt.Errorf("input 0: int16 zero point %d, need 0", in.ZeroPoint())
		}
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return nil, nil, nil, nil, err
	}
	if block, err = constInts(bt, 1, "block_shape", false); err != nil {
		return nil, nil, nil, nil, err
	}
	if pads, err = constInts(pt, 2, what, false); err != nil {
		return nil, nil, nil, nil, err
	}
	spatial := in.Rank() - 2
	if bt.Rank() != 1 || bt.Shape[0] != spatial {
		return nil, nil, nil, nil, fmt.Errorf("input 1 (block_shape): shape %v, need [%d]", bt.Shape, spatial)
	}
	if pt.Rank() != 2 || pt.Shape[0] != spatial || pt.Shape[1] != 2 {
		return nil, nil, nil, nil, fmt.Errorf("input 2 (%s): shape %v, need [%d 2]", what, pt.Shape, spatial)
	}
	for i, b := range block {
		// TFLite checks only b != 0; a negative block gives negative sizes
		// it cannot allocate.
		if b < 1 {
			return nil, nil, nil, nil, fmt.Errorf("input 1 (block_shape): entry %d is %d, need at least 1", i, b)
		}
	}
	return in, out, block, pads, nil
}

// view fills the 4-D geometry of in and out (whose shapes are set).
func (g *spaceBatchGeometry) view(in, out *ops.Tensor, block, pads []int64) {
	g.rank4 = in.Rank() == 4
	g.inB, g.inH, g.inW = in.Shape[0], in.Shape[1], 1
	g.outB, g.outH, g.outW = out.Shape[0], out.Shape[1], 1
	g.blockH, g.blockW = int(block[0]), 1
	g.top, g.left = int(pads[0]), 0
	if g.rank4 {
		g.inW, g.outW = in.Shape[2], out.Shape[2]
		g.blockW = int(block[1])
		g.left = int(pads[2])
	}
	g.depth = in.Shape[in.Rank()-1]
	g.elem = in.Type.Size()
	g.pixel = g.depth * g.elem
	g.inBatch = g.inH * g.inW * g.pixel
	g.outBatchN = g.outH * g.outW * g.pixel
}
