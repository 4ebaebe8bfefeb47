// Package tfops knows what TensorFlow ops compute, for the converter's
// static analysis: the type and shape of each op's outputs given its
// inputs (Infer) and, for ops whose inputs are all constant, their value
// (Fold). Semantics follow TensorFlow's op definitions (broadcasting,
// StridedSlice masks, keep_dims, negative axes, ...). Ops not listed are
// left alone: Infer keeps whatever the importer knew and Fold declines.
package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

// MaxFoldElements bounds the size of a tensor constant folding produces.
var MaxFoldElements = 1 << 24

// opDef is what tfops knows of one op.
type opDef struct {
	// infer sets output types and shapes (may read constant inputs).
	infer func(n *ir.Node) error
	// fold computes the outputs from constant inputs (nil: not foldable).
	fold func(n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error)
}

var ops = map[string]opDef{}

func register(def opDef, names ...string) {
	for _, name := range names {
		ops[name] = def
	}
}

// Known reports whether tfops has rules for op.
func Known(op string) bool {
	_, ok := ops[op]
	return ok
}

// minInputs is the number of inputs each op needs (ops not listed need
// one when they have an infer rule); Infer reports fewer as an error and
// Fold declines.
var minInputs = map[string]int{
	"Const": 0, "Placeholder": 0, "VarHandleOp": 0, "Identity": 0, "IdentityN": 0,
	"Reshape": 2, "ExpandDims": 2, "Fill": 2, "Range": 3, "BroadcastTo": 2,
	"ConcatV2": 2, "Concat": 2, "Split": 2, "SplitV": 3, "Transpose": 2, "Slice": 3, "Tile": 2,
	"Pad": 2, "PadV2": 3, "MirrorPad": 2, "ReverseV2": 2, "GatherV2": 3, "Gather": 2, "ResourceGather": 2,
	"StridedSlice": 4, "MatMul": 2, "BatchMatMul": 2, "BatchMatMulV2": 2, "BatchMatMulV3": 2,
	"BiasAdd": 2, "BiasAddV1": 2, "Conv2D": 2, "DepthwiseConv2dNative": 2,
	"FusedBatchNorm": 5, "FusedBatchNormV2": 5, "FusedBatchNormV3": 5,
	"Mean": 2, "Sum": 2, "Max": 2, "Min": 2, "Prod": 2, "All": 2, "Any": 2, "ArgMax": 2, "ArgMin": 2,
	"ResizeBilinear": 2, "ResizeNearestNeighbor": 2, "Select": 3, "SelectV2": 3, "ClipByValue": 3,
	"LogicalAnd": 2, "LogicalOr": 2,
}

func enoughInputs(n *ir.Node) error {
	k, ok := minInputs[n.Op]
	if !ok {
		k = 1
		if _, bin := binaryFloat[n.Op]; bin {
			k = 2
		}
		if _, cmp := compare[n.Op]; cmp {
			k = 2
		}
	}
	return needInputs(n, k)
}

// Infer sets the output types and shapes of n as far as they follow from
// its inputs and attributes, merging with what is already recorded (the
// "_output_shapes" hints of saved graphs). Errors (NodeError) report
// inconsistent inputs or malformed attributes.
func Infer(n *ir.Node) error {
	def, ok := ops[n.Op]
	if !ok || def.infer == nil {
		return nil
	}
	if err := enoughInputs(n); err != nil {
		return n.Wrap(err)
	}
	old := make([]ir.Shape, len(n.Outputs))
	for i, o := range n.Outputs {
		old[i] = o.Shape
		o.Shape = nil
	}
	if err := def.infer(n); err != nil {
		for i, o := range n.Outputs {
			o.Shape = old[i]
		}
		return n.Wrap(err)
	}
	for i, o := range n.Outputs {
		merged, ok := ir.Merge(o.Shape, old[i])
		if !ok {
			// The recorded hint disagrees with what the inputs imply; the
			// inputs win (hints describe the traced, unpinned graph).
			continue
		}
		o.Shape = merged
	}
	return nil
}

// CanFold reports whether n's op can be folded when its inputs are
// constant.
func CanFold(n *ir.Node) bool {
	def, ok := ops[n.Op]
	return ok && def.fold != nil
}

// Fold computes n's outputs when every input is constant and the op is
// foldable; it returns nil (and no error) otherwise, or when a result
// would exceed MaxFoldElements.
func Fold(n *ir.Node) ([]*ir.Tensor, error) {
	def, ok := ops[n.Op]
	if !ok || def.fold == nil || enoughInputs(n) != nil {
		return nil, nil
	}
	in := make([]*ir.Tensor, len(n.Inputs))
	for i, v := range n.Inputs {
		if v == nil || v.Const == nil {
			return nil, nil
		}
		in[i] = v.Const
	}
	for _, o := range n.Outputs {
		if k, ok := o.Shape.NumElements(); ok && k > MaxFoldElements {
			return nil, nil
		}
	}
	out, err := def.fold(n, in)
	if err != nil {
		return nil, n.Wrap(err)
	}
	if out != nil && len(out) != len(n.Outputs) {
		return nil, n.Errorf("folding produced %d values for %d outputs", len(out), len(n.Outputs))
	}
	return out, nil
}

// --- helpers shared by the op files ---

func needInputs(n *ir.Node, k int) error {
	if len(n.Inputs) < k {
		return fmt.Errorf("needs %d inputs, has %d", k, len(n.Inputs))
	}
	for i := 0; i < k; i++ {
		if n.Inputs[i] == nil {
			return fmt.Errorf("input %d is missing", i)
		}
	}
	return nil
}

func setOut(n *ir.Node, i int, dt ir.DType, s ir.Shape) {
	if i >= len(n.Outputs) {
		return
	}
	o := n.Outputs[i]
	if dt != ir.Invalid {
		o.DType = dt
	}
	o.Shape = s
}

// constInts returns the integer values of a constant input (ok=false when
// the input is not constant).
func constInts(n *ir.Node, i int) ([]int, bool) {
	if i >= len(n.Inputs) || n.Inputs[i] == nil || n.Inputs[i].Const == nil {
		return nil, false
	}
	c := n.Inputs[i].Const
	if !c.DType.IsInteger() {
		return nil, false
	}
	return c.Ints(), true
}

// normAxis maps a possibly negative axis into [0, rank).
func normAxis(axis, rank int) (int, error) {
	if axis < -rank || axis >= rank {
		return 0, fmt.Errorf("axis %d is out of range for rank %d", axis, rank)
	}
	if axis < 0 {
		axis += rank
	}
	return axis, nil
}

func checkElements(s ir.Shape) error {
	if n, ok := s.NumElements(); ok && n > MaxFoldElements*4 {
		return fmt.Errorf("shape %s has too many elements", s)
	}
	return nil
}

// strides returns row-major element strides of a static shape.
func strides(s ir.Shape) []int {
	st := make([]int, len(s))
	k := 1
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = k
		k *= s[i]
	}
	return st
}

// gather builds a tensor of shape out whose element i is element src(i)
// of t (raw bytes copied, strings shared).
func gather(t *ir.Tensor, out ir.Shape, count int, src func(i int) int) *ir.Tensor {
	r := &ir.Tensor{DType: t.DType, Shape: out.Clone()}
	if t.DType == ir.String {
		r.Strings = make([][]byte, count)
		for i := range r.Strings {
			r.Strings[i] = t.Strings[src(i)]
		}
		return r
	}
	sz := t.DType.Size()
	r.Data = make([]byte, count*sz)
	for i := 0; i < count; i++ {
		j := src(i)
		copy(r.Data[i*sz:(i+1)*sz], t.Data[j*sz:(j+1)*sz])
	}
	return r
}
