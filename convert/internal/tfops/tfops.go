// Package tfops holds tflrun's record of each TensorFlow op it knows
// (ir.OpRecord, registered with ir.RegisterOp): the outputs the importer
// needs, the minimum inputs, the type and shape of the outputs given the
// inputs (Infer), their value when every input is constant (Fold), and
// the TFLite operators the op becomes (Legalize, which package legalize
// runs). Each record sits in the file of its op, or of its family of ops
// (unary.go, binary.go, reduce.go, ...), beside the code it names; the 40
// ops that map one to one onto a TFLite operator are rows of the tables in
// unary.go and binary.go.
//
// Semantics follow TensorFlow's op definitions (broadcasting, StridedSlice
// masks, keep_dims, negative axes, ...), and the legalisations follow
// TensorFlow's own converter (MatMul → FULLY_CONNECTED with the weights
// transposed to [out, in], Conv2D → CONV_2D with the filter transposed to
// [out, h, w, in], DepthwiseConv2dNative → DEPTHWISE_CONV_2D with the
// filter reshaped to [1, h, w, in·multiplier], FusedBatchNorm at inference
// → MUL and ADD by per-channel constants, ...). Ops without a record are
// left alone: Infer keeps whatever the importer knew, Fold declines and
// the legalize pass refuses them.
package tfops

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

// Known reports whether tfops has shape inference for op.
func Known(op string) bool {
	r, ok := ir.LookupOp(op)
	return ok && r.Infer != nil
}

// Infer sets the output types and shapes of n as far as they follow from
// its inputs and attributes, merging with what is already recorded (the
// "_output_shapes" hints of saved graphs). Errors (NodeError) report
// inconsistent inputs, too few of them (OpRecord.MinInputs) or malformed
// attributes.
func Infer(n *ir.Node) error {
	r, ok := ir.LookupOp(n.Op)
	if !ok || r.Infer == nil {
		return nil
	}
	if err := needInputs(n, r.MinInputs); err != nil {
		return n.Wrap(err)
	}
	old := make([]ir.Shape, len(n.Outputs))
	for i, o := range n.Outputs {
		old[i] = o.Shape
		o.Shape = nil
	}
	if err := r.Infer(n); err != nil {
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
	r, ok := ir.LookupOp(n.Op)
	return ok && r.Fold != nil
}

// Fold computes n's outputs when every input is constant and the op is
// foldable; it returns nil (and no error) otherwise, or when a result
// would exceed the MaxFoldElements limit of n's function's Budget.
func Fold(n *ir.Node) ([]*ir.Tensor, error) {
	r, ok := ir.LookupOp(n.Op)
	if !ok || r.Fold == nil || needInputs(n, r.MinInputs) != nil {
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
		if k, ok := o.Shape.NumElements(); ok && k > maxFoldElements(n) {
			return nil, nil
		}
	}
	out, err := r.Fold(n, in)
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

// budgetOf is the Budget of n's conversion (nil: the defaults).
func budgetOf(n *ir.Node) *ir.Budget {
	if n.Func == nil {
		return nil
	}
	return n.Func.Budget
}

// maxFoldElements is the MaxFoldElements limit of n's conversion.
func maxFoldElements(n *ir.Node) int { return budgetOf(n).Get().MaxFoldElements }

// checkElements refuses an inferred shape of more than four times
// MaxFoldElements elements.
func checkElements(n *ir.Node, s ir.Shape) error {
	k, ok := s.NumElements()
	if ok && k > maxFoldElements(n)*4 || !ok && s.Static() {
		// A static shape whose count overflows has too many as well.
		return fmt.Errorf("shape %s has too many elements (more than 4 × %s)", s, budgetOf(n).Name("MaxFoldElements"))
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

// wrapInt truncates x to the width of an integer type (two's complement
// wraparound, as TensorFlow's integer kernels do).
func wrapInt(dt ir.DType, x int64) int64 {
	switch dt {
	case ir.Int8:
		return int64(int8(x))
	case ir.Uint8:
		return int64(uint8(x))
	case ir.Int16:
		return int64(int16(x))
	case ir.Uint16:
		return int64(uint16(x))
	case ir.Int32:
		return int64(int32(x))
	case ir.Uint32:
		return int64(uint32(x))
	}
	return x
}

// inferSameShape gives the output the type and shape of input 0.
func inferSameShape(n *ir.Node) error {
	if err := needInputs(n, 1); err != nil {
		return err
	}
	setOut(n, 0, n.Inputs[0].DType, n.Inputs[0].Shape.Clone())
	return nil
}
