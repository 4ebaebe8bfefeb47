package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// DepthToSpace moves depth into blocks of space: output[b, h, w, d] =
// input[b, h/bs, w/bs, ((h%bs)·bs + w%bs)·depth_out + d] with bs the
// block_size and depth_out = depth_in/bs², as TensorFlow's NHWC kernel
// computes and TFLite's DEPTH_TO_SPACE does. Only data_format NHWC is
// converted.
func init() {
	ir.RegisterOp(ir.OpRecord{Name: "DepthToSpace", Outputs: "output:T", MinInputs: 1,
		Infer: inferDepthToSpace, Fold: foldDepthToSpace, Legalize: rule(legalizeDepthToSpace)})
}

// maxBlockSize bounds block_size so that block_size² and the output sizes
// stay far from overflowing.
const maxBlockSize = 1 << 15

// depthToSpaceBlock reads block_size (at least 2, as TensorFlow's op
// requires) and refuses a data_format other than NHWC.
func depthToSpaceBlock(n *ir.Node) (int, error) {
	format, err := n.AttrString("data_format", "NHWC")
	if err != nil {
		return 0, err
	}
	if format != "NHWC" {
		return 0, fmt.Errorf("data_format %q is not supported (only NHWC)", format)
	}
	if !n.HasAttr("block_size") {
		return 0, fmt.Errorf("attribute \"block_size\" is missing")
	}
	bs, err := n.AttrInt("block_size", 0)
	if err != nil {
		return 0, err
	}
	if bs < 2 || bs > maxBlockSize {
		return 0, fmt.Errorf("block_size %d is not in [2, %d]", bs, maxBlockSize)
	}
	return int(bs), nil
}

// depthToSpaceShape is the output shape for input shape x (unknown sizes
// stay unknown).
func depthToSpaceShape(x ir.Shape, bs int) (ir.Shape, error) {
	if len(x) != 4 {
		return nil, fmt.Errorf("input must be 4-D NHWC, has shape %s", x)
	}
	out := ir.Shape{x[0], -1, -1, -1}
	for i := 1; i <= 2; i++ {
		if x[i] >= 0 {
			out[i] = x[i] * bs
		}
	}
	if d := x[3]; d >= 0 {
		if d%(bs*bs) != 0 {
			return nil, fmt.Errorf("input depth %d is not divisible by block_size² = %d", d, bs*bs)
		}
		out[3] = d / (bs * bs)
	}
	return out, nil // as many elements as the input
}

func inferDepthToSpace(n *ir.Node) error {
	bs, err := depthToSpaceBlock(n)
	if err != nil {
		return err
	}
	x := n.Inputs[0].Shape
	if x == nil {
		setOut(n, 0, n.Inputs[0].DType, ir.Shape{-1, -1, -1, -1})
		return nil
	}
	out, err := depthToSpaceShape(x, bs)
	if err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

// foldDepthToSpace folds a constant input, as the other layout ops
// (Transpose, Reshape, Tile, ...) fold.
func foldDepthToSpace(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error) {
	bs, err := depthToSpaceBlock(n)
	if err != nil {
		return nil, err
	}
	t := in[0]
	out, err := depthToSpaceShape(t.Shape, bs)
	if err != nil {
		return nil, err
	}
	count, _ := out.NumElements()
	if count > maxFoldElements(n) {
		return nil, nil
	}
	s := t.Shape
	return []*ir.Tensor{gather(t, out, count, func(i int) int {
		d := i % out[3]
		i /= out[3]
		w := i % out[2]
		i /= out[2]
		h := i % out[1]
		b := i / out[1]
		return ((b*s[1]+h/bs)*s[2]+w/bs)*s[3] + ((h%bs)*bs+w%bs)*out[3] + d
	})}, nil
}

// legalizeDepthToSpace: DEPTH_TO_SPACE with the block size, version 2
// for int8 as TFLite's converter writes it, for the element types its
// kernel takes.
func legalizeDepthToSpace(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	bs, err := depthToSpaceBlock(c.n)
	if err != nil {
		return err
	}
	switch x.DType {
	case ir.Float32, ir.Uint8, ir.Int8, ir.Int32, ir.Int64:
	default:
		return fmt.Errorf("DepthToSpace of %s is not supported (TFLite's DEPTH_TO_SPACE takes float32, uint8, int8, int32 and int64)", x.DType)
	}
	version := int32(1)
	if x.DType == ir.Int8 {
		version = 2
	}
	c.replace(c.emit(schema.BuiltinOperatorDEPTH_TO_SPACE, version, &schema.DepthToSpaceOptionsT{BlockSize: int32(bs)}, []*ir.Value{x}, c.outs()...))
	return nil
}
