// Package flex holds tflrun's kernels for Flex operators: TensorFlow ops
// that TensorFlow's converter leaves in a TensorFlow Lite model as custom
// operators named "Flex<Op>", which stock TensorFlow Lite runs only with
// the Flex delegate (TensorFlow itself linked in). Each one's
// custom_options are a FlexBuffer vector [op name, serialized NodeDef],
// decoded by internal/tfnodedef for the attributes (element_dtype,
// num_elements, …).
//
// The kernels are those of the TensorList ops TensorFlow's converter
// emits for Keras LSTM, GRU and SimpleRNN layers it does not fuse (the
// WHILE loops of TensorFlow 2.16 and later): FlexTensorListReserve,
// FlexTensorListFromTensor, FlexTensorListSetItem, FlexTensorListGetItem,
// FlexTensorListStack, FlexTensorListLength and FlexTensorListElementShape.
// Their semantics, errors included, are TensorFlow's (tensorflow/core/
// kernels/list_kernels.h and .cc). A list is a value in the interpreter's
// store (ops.TensorLists) and a variant tensor holds its handle; see
// ops.TensorLists for its lifetime and memory bound. One difference: a
// tflrun list keeps one shape for all its items (TensorFlow allows
// different shapes compatible with the element shape), and refuses an
// item of another shape with an error.
//
// RegisterCustom adds the kernels to a resolver;
// interpreter.DefaultResolver does so.
package flex

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/internal/tfnodedef"
	"github.com/tflrun/tflrun/ops"
)

// kernels holds the package's kernels by custom code; each operator's
// file adds its own entry from init.
var kernels = ops.CustomKernels{}

func register(name string, newK func() ops.Kernel) { kernels.Register(name, newK) }

// RegisterCustom adds every kernel of this package to r under its custom
// code ("FlexTensorListReserve", …).
func RegisterCustom(r *ops.Resolver) { kernels.AddTo(r) }

// Names lists the custom codes this package has kernels for, sorted.
func Names() []string { return kernels.Names() }

// nodeDef decodes n's custom_options and checks they hold op.
func nodeDef(n *ops.Node, op string) (*tfnodedef.NodeDef, error) {
	nd, err := tfnodedef.FlexOp(n.CustomOptions)
	if err != nil {
		return nil, err
	}
	if nd.Op != op {
		return nil, fmt.Errorf("custom_options hold a NodeDef of op %q, the operator is %s", nd.Op, op)
	}
	return nd, nil
}

// typeAttr reads the required type attribute name as a TFLite type.
func typeAttr(nd *tfnodedef.NodeDef, name string) (ops.DataType, error) {
	a, ok := nd.Attr[name]
	if !ok {
		return 0, fmt.Errorf("NodeDef attribute %q is missing", name)
	}
	if a.Kind != tfnodedef.KindType {
		return 0, fmt.Errorf("NodeDef attribute %q is not a type", name)
	}
	t, ok := tfTypes[a.Type]
	if !ok {
		return 0, fmt.Errorf("NodeDef attribute %s=%s: tflrun's TensorLists do not hold that type", name, a.Type)
	}
	return t, nil
}

// intAttr reads the optional int attribute name (def when absent).
func intAttr(nd *tfnodedef.NodeDef, name string, def int64) (int64, error) {
	a, ok := nd.Attr[name]
	if !ok {
		return def, nil
	}
	if a.Kind != tfnodedef.KindInt {
		return 0, fmt.Errorf("NodeDef attribute %q is not an int", name)
	}
	return a.I, nil
}

// boolAttr reads the optional bool attribute name (false when absent).
func boolAttr(nd *tfnodedef.NodeDef, name string) (bool, error) {
	a, ok := nd.Attr[name]
	if !ok {
		return false, nil
	}
	if a.Kind != tfnodedef.KindBool {
		return false, fmt.Errorf("NodeDef attribute %q is not a bool", name)
	}
	return a.B, nil
}

// tfTypes maps the TensorFlow element types a list may hold to TFLite's.
var tfTypes = map[tfnodedef.DataType]ops.DataType{
	tfnodedef.DTFloat: ops.Float32, tfnodedef.DTDouble: ops.Float64,
	tfnodedef.DTInt32: ops.Int32, tfnodedef.DTUint8: ops.Uint8,
	tfnodedef.DTInt16: ops.Int16, tfnodedef.DTInt8: ops.Int8,
	tfnodedef.DTComplex64: ops.Complex64, tfnodedef.DTInt64: ops.Int64,
	tfnodedef.DTBool: ops.Bool, tfnodedef.DTBfloat16: ops.BFloat16,
	tfnodedef.DTUint16: ops.Uint16, tfnodedef.DTComplex128: ops.Complex128,
	tfnodedef.DTHalf: ops.Float16, tfnodedef.DTUint32: ops.Uint32,
	tfnodedef.DTUint64: ops.Uint64,
}

// store returns the interpreter's TensorList store of n.
func store(n *ops.Node) (*ops.TensorLists, error) {
	if n.Lists == nil {
		return nil, errors.New("the node has no TensorList store (run it in an interpreter)")
	}
	return n.Lists.TensorLists(), nil
}

// checkVariantScalar checks that t (labelled label) is a variant scalar.
func checkVariantScalar(t *ops.Tensor, label string) error {
	if t == nil {
		return fmt.Errorf("%s is missing", label)
	}
	if t.Type != ops.Variant {
		return fmt.Errorf("%s: type %s, need variant (a TensorList)", label, t.Type)
	}
	if t.Shape != nil && t.NumElements() != 1 {
		return fmt.Errorf("%s: shape %v, need a scalar", label, t.Shape)
	}
	return nil
}

// prepareListOutput makes output 0 a variant scalar.
func prepareListOutput(n *ops.Node) error {
	out := n.Output(0)
	if err := checkVariantScalar(out, "output 0 (handle)"); err != nil {
		return err
	}
	out.Shape = []int{}
	return nil
}

// inputList returns the list input i holds.
func inputList(n *ops.Node, i int) (*ops.TensorLists, *ops.TensorList, int32, error) {
	s, err := store(n)
	if err != nil {
		return nil, nil, 0, err
	}
	t := n.Input(i)
	if len(t.Data) < 4 {
		return nil, nil, 0, fmt.Errorf("input %d (handle): no data", i)
	}
	h := ops.View[int32](t.Data)[0]
	l, err := s.Get(h)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("input %d (handle): %w", i, err)
	}
	return s, l, h, nil
}

// writeHandle stores handle h in output 0.
func writeHandle(n *ops.Node, h int32) error {
	out := n.Output(0)
	if len(out.Data) < 4 {
		return fmt.Errorf("output 0 (handle): no data")
	}
	ops.View[int32](out.Data)[0] = h
	return nil
}

// checkIntScalar checks that input i (labelled label) is an int32
// scalar (or a one-element vector).
func checkIntScalar(n *ops.Node, i int, label string) error {
	t := n.Input(i)
	if t == nil {
		return fmt.Errorf("input %d (%s) is missing", i, label)
	}
	if t.Type != ops.Int32 {
		return fmt.Errorf("input %d (%s): type %s, need int32", i, label, t.Type)
	}
	if t.Shape != nil && t.NumElements() != 1 {
		return fmt.Errorf("input %d (%s): shape %v, need a scalar", i, label, t.Shape)
	}
	return nil
}

// intScalar reads input i, an int32 scalar.
func intScalar(n *ops.Node, i int) (int, error) {
	t := n.Input(i)
	if len(t.Data) < 4 || t.NumElements() != 1 {
		return 0, fmt.Errorf("input %d: shape %v, need a scalar", i, t.Shape)
	}
	return int(ops.View[int32](t.Data)[0]), nil
}

// checkShapeInput checks that input i is an int32 or int64 tensor of rank
// 0 or 1 (an element_shape).
func checkShapeInput(n *ops.Node, i int) error {
	t := n.Input(i)
	if t == nil {
		return fmt.Errorf("input %d (element_shape) is missing", i)
	}
	if t.Type != ops.Int32 && t.Type != ops.Int64 {
		return fmt.Errorf("input %d (element_shape): type %s, need int32 or int64", i, t.Type)
	}
	if t.Shape != nil && len(t.Shape) > 1 {
		return fmt.Errorf("input %d (element_shape): shape %v, need a scalar or a vector", i, t.Shape)
	}
	return nil
}

// shapeInput reads input i as TensorFlow's TensorShapeFromTensor: a
// scalar -1 is an unknown rank (nil), a vector lists the dimensions, -1
// for an unknown one. The shape is built in buf's storage (a kernel's
// own, so that a warm Eval allocates nothing).
func shapeInput(n *ops.Node, i int, buf []int) ([]int, error) {
	t := n.Input(i)
	count := t.NumElements()
	if len(t.Data) < t.Bytes() {
		return nil, fmt.Errorf("input %d (element_shape): no data", i)
	}
	value := func(j int) int64 {
		if t.Type == ops.Int64 {
			return ops.View[int64](t.Data)[j]
		}
		return int64(ops.View[int32](t.Data)[j])
	}
	if len(t.Shape) == 0 {
		if count == 1 && value(0) == -1 {
			return nil, nil
		}
		return nil, fmt.Errorf("input %d (element_shape): a scalar element_shape must be -1 (unknown rank)", i)
	}
	buf = buf[:0]
	for j := 0; j < count; j++ {
		v := value(j)
		if v < -1 || v > maxInt32 {
			return nil, fmt.Errorf("input %d (element_shape): dimension %d is %d", i, j, v)
		}
		buf = append(buf, int(v))
	}
	if buf == nil {
		buf = []int{} // an empty vector: scalar items
	}
	return buf, nil
}

const maxInt32 = 1<<31 - 1

// mergeShapes merges two partially known shapes into dst's storage, as
// TensorFlow's PartialTensorShape::MergeWith: an error when they are
// incompatible.
func mergeShapes(dst, a, b []int) ([]int, error) {
	if a == nil {
		a, b = b, a
	}
	if a == nil {
		return nil, nil
	}
	if b != nil && len(a) != len(b) {
		return nil, fmt.Errorf("shapes %s and %s have different ranks", shapeString(a), shapeString(b))
	}
	dst = append(dst[:0], a...)
	if dst == nil {
		dst = []int{}
	}
	for i := range b {
		switch {
		case dst[i] < 0:
			dst[i] = b[i]
		case b[i] >= 0 && dst[i] != b[i]:
			return nil, fmt.Errorf("shapes %s and %s are incompatible in dimension %d", shapeString(a), shapeString(b), i)
		}
	}
	return dst, nil
}

// shapeString prints a partial shape as TensorFlow does: "<unknown>",
// "[2,?]".
func shapeString(s []int) string {
	if s == nil {
		return "<unknown>"
	}
	out := "["
	for i, d := range s {
		if i > 0 {
			out += ","
		}
		if d < 0 {
			out += "?"
		} else {
			out += fmt.Sprint(d)
		}
	}
	return out + "]"
}
