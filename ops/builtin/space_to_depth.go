package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// SpaceToDepth is the kernel of TFLite's SPACE_TO_DEPTH operator, the
// inverse of DEPTH_TO_SPACE: it moves blocks of space into depth. Input 0
// is an NHWC tensor [batch, height, width, depth] with height and width
// multiples of block_size; output 0 is [batch, height/block_size,
// width/block_size, depth·block_size²] of the same type with
//
//	out[b, y, x, (dy·bs + dx)·depth + d] = in[b, y·bs + dy, x·bs + dx, d].
//
// Values are copied bit for bit (quantised tensors keep their codes).
// Types, as TFLite's space_to_depth.cc: float32, uint8, int8, int32 and
// int64; block_size must be at least 1. Versions 1 and 2 (int8) as
// TFLite's register.cc.
type SpaceToDepth struct {
	block          int
	batch, outH    int
	outW, inW      int
	run, outDepthB int // bytes of one block row (bs·depth) and of one output pixel
}

// SpaceToDepthOptions is TFLite's SpaceToDepthOptions.
type SpaceToDepthOptions struct {
	BlockSize int
}

// NewSpaceToDepth returns a SPACE_TO_DEPTH kernel for one node.
func NewSpaceToDepth() ops.Kernel { return &SpaceToDepth{} }

func init() {
	register(ops.OpSpaceToDepth, NewSpaceToDepth, [2]int{1, 2})
	registerOptions(schema.BuiltinOptionsSpaceToDepthOptions, decodeSpaceToDepthOptions)
}

// decodeSpaceToDepthOptions decodes TFLite's SpaceToDepthOptions table.
func decodeSpaceToDepthOptions(t ops.OptionsTable) (any, error) {
	var o schema.SpaceToDepthOptions
	initTable(&o, t)
	return &SpaceToDepthOptions{BlockSize: int(o.BlockSize())}, nil
}

// Prepare validates the node and sets the output shape.
func (k *SpaceToDepth) Prepare(n *ops.Node) error {
	*k = SpaceToDepth{}
	// Without the options table block_size is 0, which TFLite refuses.
	block := 0
	if o, ok := n.Options.(*SpaceToDepthOptions); ok && o != nil {
		block = o.BlockSize
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *SpaceToDepthOptions", n.Options)
	}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if in.Rank() != 4 {
		return fmt.Errorf("input 0: shape %v has rank %d, SPACE_TO_DEPTH needs a 4-D NHWC tensor", in.Shape, in.Rank())
	}
	if err := requireType(out, "output 0", ops.Float32, ops.Uint8, ops.Int8, ops.Int32, ops.Int64); err != nil {
		return err
	}
	if in.Type != out.Type {
		return fmt.Errorf("input 0: type %s differs from output type %s", in.Type, out.Type)
	}
	if block < 1 {
		return fmt.Errorf("options: block_size %d, need at least 1", block)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	h, w, depth := in.Shape[1], in.Shape[2], in.Shape[3]
	if h%block != 0 || w%block != 0 {
		return fmt.Errorf("input 0: height %d and width %d must be multiples of block_size %d", h, w, block)
	}
	// With height or width 0 the input has no elements to bound
	// depth·block²; check it on its own.
	if depth > 0 && (block > (1<<31-1)/depth || block*depth > (1<<31-1)/block) {
		return fmt.Errorf("input 0: depth %d times block_size² (block_size %d) overflows", depth, block)
	}
	k.block = block
	k.batch, k.outH, k.outW, k.inW = in.Shape[0], h/block, w/block, w
	elem := in.Type.Size()
	k.run = block * depth * elem
	k.outDepthB = block * block * depth * elem
	out.Shape = []int{k.batch, k.outH, k.outW, depth * block * block}
	return nil
}

// Eval moves the blocks: the bs pixels of one block row are contiguous in
// the input and land contiguously in their output pixel, as in TFLite's
// optimized SpaceToDepth.
func (k *SpaceToDepth) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("SPACE_TO_DEPTH: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	if k.run == 0 {
		return nil
	}
	src, dst := in.Data, out.Data
	s := 0
	outRow := k.outW * k.outDepthB
	for b := 0; b < k.batch; b++ {
		for y := 0; y < k.outH; y++ {
			row := (b*k.outH + y) * outRow
			for dy := 0; dy < k.block; dy++ {
				d := row + dy*k.run
				for x := 0; x < k.outW; x++ {
					copy(dst[d:d+k.run], src[s:s+k.run])
					s += k.run
					d += k.outDepthB
				}
			}
		}
	}
	return nil
}
