package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// BatchToSpaceND is the kernel of TFLite's BATCH_TO_SPACE_ND operator, the
// inverse of SPACE_TO_BATCH_ND: it moves blocks of the batch back into the
// spatial dimensions and crops them. Input 0 is [batch, height, width,
// depth] or [batch, height, depth] (then width and the block's width are
// 1) with batch a multiple of the block sizes' product; input 1
// (block_shape) is a constant int32 [rank-2] of block sizes ≥ 1; input 2
// (crops) a constant int32 [rank-2, 2] of non-negative (before, after)
// crops. The output is [batch/(bh·bw), height·bh − crops, width·bw −
// crops, depth] with, as TFLite's BatchToSpaceND,
//
//	out[b, y·bh + s/bw − top, x·bw + s%bw − left, :] = in[s·outBatch + b, y, x, :]
//
// for every input pixel that lands inside the output (every output pixel
// gets exactly one). Values are copied bit for bit.
//
// Types: any element of 1, 2, 4 or 8 bytes (TFLite dispatches on the
// size); quantised uint8, int8 and int16 need the input's scale and zero
// point on the output, int16's zero point 0. Versions 1-4, as TFLite's
// register.cc (2: int8, 3: 3-D input, 4: int16). Block shape and crops
// that are not constants need dynamic tensors, which tflrun does not have
// yet: Prepare refuses them.
type BatchToSpaceND struct {
	g spaceBatchGeometry
}

// NewBatchToSpaceND returns a BATCH_TO_SPACE_ND kernel for one node.
func NewBatchToSpaceND() ops.Kernel { return &BatchToSpaceND{} }

func init() {
	register(ops.OpBatchToSpaceND, NewBatchToSpaceND, [2]int{1, 4})
}

// Prepare validates the node and sets the output shape.
func (k *BatchToSpaceND) Prepare(n *ops.Node) error {
	*k = BatchToSpaceND{}
	in, out, block, crops, err := spaceBatchInputs(n, "crops")
	if err != nil {
		return err
	}
	for i, c := range crops {
		if c < 0 {
			return fmt.Errorf("input 2 (crops): entry %d is %d, need ≥ 0", i, c)
		}
	}
	spatial := in.Rank() - 2
	shape := make([]int, in.Rank())
	batch := int64(in.Shape[0])
	for d := 0; d < spatial; d++ {
		if batch%block[d] != 0 {
			return fmt.Errorf("input 0: batch %d is not a multiple of the block sizes %v", in.Shape[0], block)
		}
		batch /= block[d]
		size := int64(in.Shape[d+1])*block[d] - crops[2*d] - crops[2*d+1]
		if size < 0 {
			return fmt.Errorf("input 2 (crops): crops (%d, %d) exceed spatial dimension %d of size %d·%d",
				crops[2*d], crops[2*d+1], d, in.Shape[d+1], block[d])
		}
		shape[d+1] = int(size)
	}
	shape[0] = int(batch)
	shape[spatial+1] = in.Shape[spatial+1]
	if _, err := ops.ShapeElements(shape, in.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	k.g.view(in, out, block, crops)
	return nil
}

// Eval moves the pixels of every input image to their output positions.
func (k *BatchToSpaceND) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("BATCH_TO_SPACE_ND: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	g := &k.g
	if g.pixel == 0 || g.outB == 0 || g.outH == 0 || g.outW == 0 {
		return nil
	}
	src, dst := in.Data, out.Data
	for ib := 0; ib < g.inB; ib++ {
		ob := ib % g.outB
		s := ib / g.outB
		offH := s/g.blockW - g.top
		offW := s%g.blockW - g.left
		for iy := 0; iy < g.inH; iy++ {
			oy := iy*g.blockH + offH
			if oy < 0 || oy >= g.outH {
				continue
			}
			rowIn := ib*g.inBatch + iy*g.inW*g.pixel
			rowOut := ob*g.outBatchN + oy*g.outW*g.pixel
			for ix := 0; ix < g.inW; ix++ {
				ox := ix*g.blockW + offW
				if ox < 0 || ox >= g.outW {
					continue
				}
				si, di := rowIn+ix*g.pixel, rowOut+ox*g.pixel
				copy(dst[di:di+g.pixel], src[si:si+g.pixel])
			}
		}
	}
	return nil
}
