package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// DepthToSpace is the kernel of TFLite's DEPTH_TO_SPACE operator: it moves
// blocks of depth into space. Input 0 is an NHWC tensor [batch, height,
// width, depth] with depth a multiple of block_size²; output 0 is [batch,
// height·block_size, width·block_size, depth/block_size²] of the same type,
// with, in TensorFlow's DCR order (as TFLite's reference DepthToSpace),
//
//	out[b, y, x, d] = in[b, y/bs, x/bs, ((y%bs)·bs + x%bs)·outDepth + d].
//
// Values are copied bit for bit, so quantised tensors keep their codes (the
// converter gives input and output one quantisation). Types, as TFLite's
// depth_to_space.cc: float32, uint8, int8, int32, int64, and uint16 (which
// LiteRT's kernel added); the input must be 4-D and block_size at least 1.
// Versions 1 and 2 (int8) as TFLite's register.cc.
type DepthToSpace struct {
	block             int
	batch, inH, inW   int
	outDepth, elem    int
	outW, inRowStride int
}

// DepthToSpaceOptions is TFLite's DepthToSpaceOptions.
type DepthToSpaceOptions struct {
	BlockSize int
}

// NewDepthToSpace returns a DEPTH_TO_SPACE kernel for one node.
func NewDepthToSpace() ops.Kernel { return &DepthToSpace{} }

func init() {
	register(ops.OpDepthToSpace, NewDepthToSpace, [2]int{1, 2})
	registerOptions(schema.BuiltinOptionsDepthToSpaceOptions, decodeDepthToSpaceOptions)
}

// decodeDepthToSpaceOptions decodes TFLite's DepthToSpaceOptions table.
func decodeDepthToSpaceOptions(t ops.OptionsTable) (any, error) {
	var o schema.DepthToSpaceOptions
	initTable(&o, t)
	return &DepthToSpaceOptions{BlockSize: int(o.BlockSize())}, nil
}

// Prepare validates the node and sets the output shape.
func (k *DepthToSpace) Prepare(n *ops.Node) error {
	*k = DepthToSpace{}
	// A model without the options table leaves block_size 0, which TFLite
	// refuses at Prepare; so does this.
	block := 0
	if o, ok := n.Options.(*DepthToSpaceOptions); ok && o != nil {
		block = o.BlockSize
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *DepthToSpaceOptions", n.Options)
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
	if err := requireType(in, "input 0", ops.Float32, ops.Uint8, ops.Int8, ops.Int32, ops.Int64, ops.Uint16); err != nil {
		return err
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	if in.Rank() != 4 {
		return fmt.Errorf("input 0: shape %v has rank %d, DEPTH_TO_SPACE needs a 4-D NHWC tensor", in.Shape, in.Rank())
	}
	if block < 1 {
		return fmt.Errorf("options: block_size %d, need at least 1", block)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	depth := in.Shape[3]
	// depth is a multiple of block² when both divisions are exact; this
	// way block² cannot overflow.
	if depth%block != 0 || depth/block%block != 0 {
		return fmt.Errorf("input 0: depth %d is not a multiple of block_size² (block_size %d)", depth, block)
	}
	// With depth 0 the input has no elements to bound the output's height
	// and width; TFLite checks them for overflow the same way.
	if h, w := in.Shape[1], in.Shape[2]; h > math.MaxInt32/block || w > math.MaxInt32/block {
		return fmt.Errorf("input 0: height %d or width %d times block_size %d overflows", h, w, block)
	}
	k.block = block
	k.batch, k.inH, k.inW = in.Shape[0], in.Shape[1], in.Shape[2]
	k.outDepth = depth / block / block
	k.elem = in.Type.Size()
	k.outW = k.inW * block
	k.inRowStride = k.inW * depth
	out.Shape = []int{k.batch, k.inH * block, k.outW, k.outDepth}
	return nil
}

// Eval moves the blocks: every output pixel's depth run is one contiguous
// run of the input pixel it comes from.
func (k *DepthToSpace) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("DEPTH_TO_SPACE: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	bs, run := k.block, k.outDepth*k.elem
	if run == 0 {
		return nil
	}
	src, dst := in.Data, out.Data
	o := 0
	for b := 0; b < k.batch; b++ {
		for y := 0; y < k.inH*bs; y++ {
			row := (b*k.inH + y/bs) * k.inRowStride
			for x := 0; x < k.outW; x++ {
				d := row + (x/bs)*bs*bs*k.outDepth + ((y%bs)*bs+x%bs)*k.outDepth
				copy(dst[o:o+run], src[d*k.elem:d*k.elem+run])
				o += run
			}
		}
	}
	return nil
}
