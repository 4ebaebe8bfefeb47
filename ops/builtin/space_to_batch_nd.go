package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// SpaceToBatchND is the kernel of TFLite's SPACE_TO_BATCH_ND operator: it
// pads the spatial dimensions of input 0 and moves blocks of them into the
// batch. Input 0 is [batch, height, width, depth] or [batch, height,
// depth] (then width and the block's width are 1); input 1 (block_shape) is
// a constant int32 [rank-2] of block sizes ≥ 1; input 2 (paddings) a
// constant int32 [rank-2, 2] of (before, after) pads per spatial dimension.
// Each padded size must be a non-negative multiple of its block size. The
// output is [batch·bh·bw, (height+pads)/bh, (width+pads)/bw, depth] with,
// as TFLite's reference SpaceToBatchND,
//
//	out[(sh·bw + sw)·batch + b, y, x, :] = in[b, y·bh + sh − top, x·bw + sw − left, :]
//
// where the input position lies inside the input, and pad bytes
// elsewhere. As TFLite (which memsets the pixel with the output zero
// point), every pad byte of a 1- or 2-byte type is the low byte of the
// output's zero point (so int8 and uint8 pad with their zero point, and
// int16, whose zero point must be 0, with 0) and 4- and 8-byte types pad
// with zero bytes. Negative paddings, which TFLite accepts, crop.
//
// Types: any element of 1, 2, 4 or 8 bytes (TFLite dispatches on the size:
// float32, float16, bfloat16, float64, int8, uint8, int16, uint16, int32,
// uint32, int64, uint64, bool, complex64); quantised uint8, int8 and int16
// need the input's scale and zero point on the output. Versions 1-4, as
// TFLite's register.cc (2: int8, 3: 3-D input, 4: int16). Block shape and
// paddings that are not constants need dynamic tensors, which tflrun does
// not have yet: Prepare refuses them.
type SpaceToBatchND struct {
	g       spaceBatchGeometry
	padByte byte
}

// NewSpaceToBatchND returns a SPACE_TO_BATCH_ND kernel for one node.
func NewSpaceToBatchND() ops.Kernel { return &SpaceToBatchND{} }

func init() {
	register(ops.OpSpaceToBatchND, NewSpaceToBatchND, [2]int{1, 4})
}

// Prepare validates the node and sets the output shape.
func (k *SpaceToBatchND) Prepare(n *ops.Node) error {
	*k = SpaceToBatchND{}
	in, out, block, pads, err := spaceBatchInputs(n, "paddings")
	if err != nil {
		return err
	}
	spatial := in.Rank() - 2
	shape := make([]int, in.Rank())
	batch := int64(in.Shape[0])
	for d := 0; d < spatial; d++ {
		padded := int64(in.Shape[d+1]) + pads[2*d] + pads[2*d+1]
		if padded < 0 {
			return fmt.Errorf("input 2 (paddings): spatial dimension %d of size %d padded by (%d, %d) is negative",
				d, in.Shape[d+1], pads[2*d], pads[2*d+1])
		}
		if padded%block[d] != 0 {
			return fmt.Errorf("input 2 (paddings): spatial dimension %d padded to %d is not a multiple of block size %d",
				d, padded, block[d])
		}
		shape[d+1] = int(padded / block[d])
		batch *= block[d]
		if batch > math.MaxInt32 {
			return fmt.Errorf("output 0: batch %d times the block sizes %v overflows", in.Shape[0], block)
		}
	}
	shape[0] = int(batch)
	shape[spatial+1] = in.Shape[spatial+1]
	if _, err := ops.ShapeElements(shape, in.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	k.g.view(in, out, block, pads)
	// TFLite's memset takes the output zero point; for 4- and 8-byte
	// types its macro passes 0.
	if in.Type.Size() <= 2 {
		k.padByte = byte(out.ZeroPoint())
	}
	return nil
}

// Eval moves the pixels; output pixels that fall in the padding get the
// pad bytes.
func (k *SpaceToBatchND) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("SPACE_TO_BATCH_ND: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	g := &k.g
	if g.pixel == 0 || g.outB == 0 || g.outH == 0 || g.outW == 0 {
		return nil
	}
	src, dst := in.Data, out.Data
	o := 0
	for ob := 0; ob < g.outB; ob++ {
		b := ob % g.inB
		shiftW := (ob / g.inB) % g.blockW
		shiftH := (ob / g.inB) / g.blockW
		base := b * g.inBatch
		for oy := 0; oy < g.outH; oy++ {
			y := oy*g.blockH + shiftH - g.top
			rowIn := y >= 0 && y < g.inH
			for ox := 0; ox < g.outW; ox++ {
				x := ox*g.blockW + shiftW - g.left
				px := dst[o : o+g.pixel]
				if rowIn && x >= 0 && x < g.inW {
					s := base + (y*g.inW+x)*g.pixel
					copy(px, src[s:s+g.pixel])
				} else if k.padByte == 0 {
					clear(px)
				} else {
					for i := range px {
						px[i] = k.padByte
					}
				}
				o += g.pixel
			}
		}
	}
	return nil
}
