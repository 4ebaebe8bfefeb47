package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// SpaceToBatchND pads the spatial dimensions of its input and moves
// blocks of them into the batch; BatchToSpaceND undoes it and crops, as
// TensorFlow's kernels and TFLite's SPACE_TO_BATCH_ND and
// BATCH_TO_SPACE_ND define them. TensorFlow writes a dilated convolution
// as SpaceToBatchND → a VALID, undilated Conv2D or DepthwiseConv2dNative →
// BatchToSpaceND (tf.nn.with_space_to_batch, used by atrous_conv2d and
// the dilated depthwise and separable convolutions): where the pads and
// crops are those of SAME or VALID padding of the dilated filter, the
// three become one convolution with that dilation and padding, as
// TensorFlow's converter folds them (identify_dilated_conv); otherwise
// each op becomes its TFLite operator.
func init() {
	ir.RegisterOp(ir.OpRecord{Name: "SpaceToBatchND", Outputs: "output:T", MinInputs: 3, Infer: inferSpaceToBatchND, Legalize: rule(legalizeSpaceToBatchND)})
	ir.RegisterOp(ir.OpRecord{Name: "BatchToSpaceND", Outputs: "output:T", MinInputs: 3, Infer: inferBatchToSpaceND, Legalize: rule(legalizeBatchToSpaceND)})
}

// spaceBatchArgs reads the constant block shape [m] and paddings or crops
// [m, 2] of a node whose input has rank rank; ok is false while either is
// not yet constant.
func spaceBatchArgs(n *ir.Node, rank int) (block []int, pads [][2]int, ok bool, err error) {
	b, okB := constInts(n, 1)
	p, okP := constInts(n, 2)
	if !okB || !okP {
		return nil, nil, false, nil
	}
	m := len(b)
	if m < 1 || len(p) != 2*m || (rank >= 0 && rank < m+1) {
		return nil, nil, false, fmt.Errorf("block_shape has %d values and paddings/crops %d for an input of rank %d (want m ≥ 1 block sizes, 2m pads, rank ≥ m+1)", m, len(p), rank)
	}
	prod := 1
	for i, v := range b {
		if v < 1 || v > maxBlockSize {
			return nil, nil, false, fmt.Errorf("block_shape[%d] = %d is not in [1, %d]", i, v, maxBlockSize)
		}
		if prod *= v; prod > maxBlockSize*maxBlockSize {
			return nil, nil, false, fmt.Errorf("block_shape %v has more than %d elements", b, maxBlockSize*maxBlockSize)
		}
		if p[2*i] < 0 || p[2*i+1] < 0 || p[2*i] > 1<<30 || p[2*i+1] > 1<<30 {
			return nil, nil, false, fmt.Errorf("paddings/crops [%d] = (%d, %d) are not sizes", i, p[2*i], p[2*i+1])
		}
		pads = append(pads, [2]int{p[2*i], p[2*i+1]})
	}
	return b, pads, true, nil
}

func inferSpaceToBatchND(n *ir.Node) error {
	x := n.Inputs[0].Shape
	block, pads, ok, err := spaceBatchArgs(n, x.Rank())
	if err != nil {
		return err
	}
	if !ok || x == nil {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	out := x.Clone()
	prod := 1
	for i, b := range block {
		prod *= b
		if d := x[i+1]; d >= 0 {
			if (d+pads[i][0]+pads[i][1])%b != 0 {
				return fmt.Errorf("padded dimension %d (%d + %d + %d) is not a multiple of block size %d", i+1, d, pads[i][0], pads[i][1], b)
			}
			out[i+1] = (d + pads[i][0] + pads[i][1]) / b
		}
	}
	if x[0] >= 0 {
		out[0] = x[0] * prod
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

func inferBatchToSpaceND(n *ir.Node) error {
	x := n.Inputs[0].Shape
	block, crops, ok, err := spaceBatchArgs(n, x.Rank())
	if err != nil {
		return err
	}
	if !ok || x == nil {
		setOut(n, 0, n.Inputs[0].DType, nil)
		return nil
	}
	out := x.Clone()
	prod := 1
	for i, b := range block {
		prod *= b
		if d := x[i+1]; d >= 0 {
			if d*b < crops[i][0]+crops[i][1] {
				return fmt.Errorf("crops (%d, %d) of dimension %d exceed its size %d", crops[i][0], crops[i][1], i+1, d*b)
			}
			out[i+1] = d*b - crops[i][0] - crops[i][1]
		}
	}
	if x[0] >= 0 {
		if x[0]%prod != 0 {
			return fmt.Errorf("batch %d is not a multiple of the block's %d elements", x[0], prod)
		}
		out[0] = x[0] / prod
	}
	setOut(n, 0, n.Inputs[0].DType, out)
	return nil
}

// legalizeSpaceToBatchND folds a dilated convolution (see init) or emits
// SPACE_TO_BATCH_ND.
func legalizeSpaceToBatchND(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	if folded, err := c.foldDilatedConv(x); folded || err != nil {
		return err
	}
	return c.spaceBatchOp(schema.BuiltinOperatorSPACE_TO_BATCH_ND, &schema.SpaceToBatchNDOptionsT{}, x)
}

// legalizeBatchToSpaceND emits BATCH_TO_SPACE_ND, unless a dilated
// convolution was folded through it (then it has no users left).
func legalizeBatchToSpaceND(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	if !c.f.HasUses(c.n.Outputs[0]) && !c.f.IsResult(c.n.Outputs[0]) {
		return nil
	}
	return c.spaceBatchOp(schema.BuiltinOperatorBATCH_TO_SPACE_ND, &schema.BatchToSpaceNDOptionsT{}, x)
}

// spaceBatchOp emits the operator with int32 block shape and pads, the
// version TFLite's converter writes (2 for int8, 3 for a 3-D input, 4 for
// int16) for the types its kernel takes.
func (c *ctx) spaceBatchOp(code schema.BuiltinOperator, opts any, x *ir.Value) error {
	s, err := static(x)
	if err != nil {
		return err
	}
	block, pads, ok, err := spaceBatchArgs(c.n, len(s))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("block_shape and paddings/crops (inputs 1 and 2) must be constants")
	}
	if len(s) != 3 && len(s) != 4 || len(block) != len(s)-2 {
		return fmt.Errorf("input of shape %s with %d block dimensions is not supported (TFLite takes a 3-D or 4-D input with 1 or 2 block dimensions)", s, len(block))
	}
	version := int32(1)
	switch x.DType {
	case ir.Float32:
	case ir.Int8, ir.Uint8:
		version = 2
	case ir.Int16:
		version = 4
	default:
		return fmt.Errorf("%s of %s is not supported (float32, int8, uint8 and int16)", c.n.Op, x.DType)
	}
	if len(s) == 3 && version < 3 {
		version = 3
	}
	flat := make([]int, 0, 2*len(pads))
	for _, p := range pads {
		flat = append(flat, p[0], p[1])
	}
	b, err := c.constInt32("block_shape", block, ir.Shape{len(block)})
	if err != nil {
		return err
	}
	p, err := c.constInt32("paddings", flat, ir.Shape{len(pads), 2})
	if err != nil {
		return err
	}
	c.replace(c.emit(code, version, opts, []*ir.Value{x, b, p}, c.outs()...))
	return nil
}

// foldDilatedConv rewrites SpaceToBatchND (c.n) → conv → BatchToSpaceND
// into the conv with dilations and SAME or VALID padding, read from x,
// when the three compute exactly that: a 4-D input, one block size per
// spatial dimension, the conv VALID with stride and dilation 1 and used
// only by a BatchToSpaceND of the same block, no crop before, and pads
// and crops that are the dilated filter's SAME padding (plus the bottom
// and right rows added to fill the last block and cropped again) or no
// padding at all. The conv, legalised after this node, then reads x; the
// SpaceToBatchND and BatchToSpaceND are left without users.
func (c *ctx) foldDilatedConv(x *ir.Value) (bool, error) {
	s := x.Shape
	if len(s) != 4 || !s.Static() {
		return false, nil
	}
	block, pads, ok, err := spaceBatchArgs(c.n, 4)
	if err != nil || !ok || len(block) != 2 {
		return false, err
	}
	users := c.f.Uses()[c.n.Outputs[0]]
	if len(users) != 1 || c.f.IsResult(c.n.Outputs[0]) {
		return false, nil
	}
	conv := users[0]
	if (conv.Op != "Conv2D" && conv.Op != "DepthwiseConv2dNative") || conv.TFL != nil || len(conv.Inputs) < 2 || conv.Inputs[0] != c.n.Outputs[0] {
		return false, nil
	}
	if p, err := conv.AttrString("padding", ""); err != nil || p != "VALID" {
		return false, nil
	}
	if f, err := conv.AttrString("data_format", "NHWC"); err != nil || f != "NHWC" {
		return false, nil
	}
	sh, sw, err := Window4(conv, "strides", nil)
	if err != nil || sh != 1 || sw != 1 {
		return false, nil
	}
	dh, dw, err := Window4(conv, "dilations", []int64{1, 1, 1, 1})
	if err != nil || dh != 1 || dw != 1 {
		return false, nil
	}
	fs := conv.Inputs[1].Shape
	if len(fs) != 4 || !fs.Static() {
		return false, nil
	}
	cu := c.f.Uses()[conv.Outputs[0]]
	if len(cu) != 1 || c.f.IsResult(conv.Outputs[0]) {
		return false, nil
	}
	b2s := cu[0]
	if b2s.Op != "BatchToSpaceND" || b2s.TFL != nil || len(b2s.Inputs) < 3 || b2s.Inputs[0] != conv.Outputs[0] {
		return false, nil
	}
	block2, crops, ok, err := spaceBatchArgs(b2s, 4)
	if err != nil || !ok || len(block2) != 2 || block2[0] != block[0] || block2[1] != block[1] {
		return false, nil
	}
	padding := ""
	for _, mode := range []string{"VALID", "SAME"} {
		match := true
		for i := 0; i < 2; i++ {
			before, after := 0, 0
			if mode == "SAME" {
				total := (fs[i] - 1) * block[i] // the dilated filter's extent − 1
				before, after = total/2, total-total/2
			}
			if crops[i][0] != 0 || pads[i][0] != before || pads[i][1]-crops[i][1] != after {
				match = false
			}
		}
		if match {
			padding = mode
			break
		}
	}
	out := b2s.Outputs[0]
	if padding == "" || !out.Shape.Static() {
		return false, nil
	}
	c.f.SetInput(conv, 0, x)
	conv.SetAttrString("padding", padding)
	conv.SetAttrInts("dilations", []int64{1, int64(block[0]), int64(block[1]), 1})
	conv.Outputs[0].Shape = out.Shape.Clone()
	c.f.ReplaceAllUses(out, conv.Outputs[0])
	return true, nil
}
