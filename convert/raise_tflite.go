package convert

import (
	"fmt"
	"slices"

	"github.com/tflrun/tflrun/convert/internal/passes"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// The fusion loop rules read a recurrent loop as the SavedModel path
// presents it: a TensorFlow While node whose body and condition are
// functions of TensorFlow ops, which they analyse and evaluate with the
// converter's constant folding (package fusion, loop.go). A .tflite's
// WHILE loop is brought to that form by raising TFLite operators back to
// the TensorFlow ops TensorFlow's converter legalised them from:
// FULLY_CONNECTED to MatMul (+ BiasAdd, + the fused activation), LOGISTIC
// to Sigmoid, the Flex TensorList ops to TensorList ops, and the
// concatenation of slices TensorFlow's lower-static-tensor-list pass
// writes for a TensorListSetItem back to one. An operator with no
// equivalent stays a TFLite node, which folding cannot evaluate, so the
// rules refuse the loop saying the body could not be evaluated.

// raiser raises TFLite nodes of one function.
type raiser struct {
	f *ir.Function
	// hybrid is set when a FULLY_CONNECTED with int8 weights was raised
	// over its dequantised weights.
	hybrid bool
	// scales are the per-tensor scales of those weights, and asymmetric
	// tells whether one of those FULLY_CONNECTED quantised its input
	// asymmetrically.
	scales     []float32
	asymmetric bool
}

// hybridLoop is what the raising of a loop's functions found of a
// dynamic-range loop: whether it had int8 weights, their per-tensor
// scales, and whether its FULLY_CONNECTED quantised inputs
// asymmetrically.
type hybridLoop struct {
	hybrid     bool
	scales     []float32
	asymmetric bool
}

// raisedNode is an entry-function node raised in place, with the TFLite
// operator it was.
type raisedNode struct {
	n   *ir.Node
	tfl *ir.TFLOp
}

// tfOps are the TFLite builtins raised one for one: same inputs in the
// same order, no options beyond what TensorFlow attributes hold.
var tfOps = map[schema.BuiltinOperator]string{
	schema.BuiltinOperatorLOGISTIC:      "Sigmoid",
	schema.BuiltinOperatorTANH:          "Tanh",
	schema.BuiltinOperatorRELU:          "Relu",
	schema.BuiltinOperatorRELU6:         "Relu6",
	schema.BuiltinOperatorTRANSPOSE:     "Transpose",
	schema.BuiltinOperatorREVERSE_V2:    "ReverseV2",
	schema.BuiltinOperatorFILL:          "Fill",
	schema.BuiltinOperatorSLICE:         "Slice",
	schema.BuiltinOperatorEXPAND_DIMS:   "ExpandDims",
	schema.BuiltinOperatorLESS:          "Less",
	schema.BuiltinOperatorLESS_EQUAL:    "LessEqual",
	schema.BuiltinOperatorGREATER:       "Greater",
	schema.BuiltinOperatorLOGICAL_AND:   "LogicalAnd",
	schema.BuiltinOperatorMINIMUM:       "Minimum",
	schema.BuiltinOperatorMAXIMUM:       "Maximum",
	schema.BuiltinOperatorSELECT_V2:     "SelectV2",
	schema.BuiltinOperatorSQUARE:        "Square",
	schema.BuiltinOperatorNEG:           "Neg",
	schema.BuiltinOperatorZEROS_LIKE:    "ZerosLike",
	schema.BuiltinOperatorSTRIDED_SLICE: "StridedSlice",
	schema.BuiltinOperatorRESHAPE:       "Reshape",
	schema.BuiltinOperatorPACK:          "Pack",
	schema.BuiltinOperatorSHAPE:         "Shape",
	schema.BuiltinOperatorADD:           "AddV2",
	schema.BuiltinOperatorSUB:           "Sub",
	schema.BuiltinOperatorMUL:           "Mul",
	schema.BuiltinOperatorCAST:          "Cast",
}

// flexOps are the Flex TensorList ops raised to their TensorFlow op
// (the custom name is "Flex" + the op; the inputs are the op's).
var flexOps = map[string]string{
	"FlexTensorListReserve":    "TensorListReserve",
	"FlexTensorListSetItem":    "TensorListSetItem",
	"FlexTensorListGetItem":    "TensorListGetItem",
	"FlexTensorListStack":      "TensorListStack",
	"FlexTensorListFromTensor": "TensorListFromTensor",
}

// raiseOne raises n in place when it is one of the one-for-one
// operators (tfOps with no fused activation, the Flex list ops), setting
// the attributes the TensorFlow op has. It reports whether it did.
func (r *raiser) raiseOne(n *ir.Node) bool {
	t := n.TFL
	if t == nil {
		return false
	}
	var op string
	if t.Builtin == schema.BuiltinOperatorCUSTOM {
		op = flexOps[t.Custom]
	} else {
		op = tfOps[t.Builtin]
	}
	if op == "" || len(n.Outputs) == 0 {
		return false
	}
	attrs := map[string]*tfpb.AttrValue{}
	setInt := func(k string, v int64) { attrs[k] = &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: v}} }
	setType := func(k string, dt ir.DType) { attrs[k] = &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: dt.TF()}} }
	if len(n.Inputs) > 0 && n.Inputs[0] != nil {
		setType("T", n.Inputs[0].DType)
	}
	var opts any
	if t.Options != nil {
		opts = t.Options.Value
	}
	switch o := opts.(type) {
	case *schema.AddOptionsT:
		if o.FusedActivationFunction != schema.ActivationFunctionTypeNONE {
			return false
		}
	case *schema.SubOptionsT:
		if o.FusedActivationFunction != schema.ActivationFunctionTypeNONE {
			return false
		}
	case *schema.MulOptionsT:
		if o.FusedActivationFunction != schema.ActivationFunctionTypeNONE {
			return false
		}
	case *schema.StridedSliceOptionsT:
		if o.Offset {
			return false
		}
		setInt("begin_mask", int64(o.BeginMask))
		setInt("end_mask", int64(o.EndMask))
		setInt("ellipsis_mask", int64(o.EllipsisMask))
		setInt("new_axis_mask", int64(o.NewAxisMask))
		setInt("shrink_axis_mask", int64(o.ShrinkAxisMask))
	case *schema.PackOptionsT:
		setInt("axis", int64(o.Axis))
		setInt("N", int64(o.ValuesCount))
	case *schema.ShapeOptionsT:
		setType("out_type", ir.DType(o.OutType))
	}
	switch t.Builtin {
	case schema.BuiltinOperatorRESHAPE:
		if len(n.Inputs) != 2 || n.Inputs[1] == nil {
			return false // the shape in the options only
		}
	case schema.BuiltinOperatorSHAPE:
		if _, ok := attrs["out_type"]; !ok {
			setType("out_type", n.Outputs[0].DType)
		}
	case schema.BuiltinOperatorCAST:
		if len(n.Inputs) != 1 || n.Inputs[0] == nil {
			return false
		}
		setType("SrcT", n.Inputs[0].DType)
		setType("DstT", n.Outputs[0].DType)
	case schema.BuiltinOperatorPACK:
		if _, ok := attrs["N"]; !ok {
			setInt("N", int64(len(n.Inputs)))
		}
	}
	if t.Builtin == schema.BuiltinOperatorCUSTOM {
		// The list element type: the item's, or the stacked tensor's.
		dt := ir.Float32
		for _, v := range append(append([]*ir.Value(nil), n.Inputs...), n.Outputs...) {
			if v != nil && v.DType.IsFloat() {
				dt = v.DType
			}
		}
		setType("element_dtype", dt)
		setType("shape_type", ir.Int32)
	}
	n.Op, n.Attrs, n.TFL = op, attrs, nil
	return true
}

// raiseEntry raises the one-for-one operators of the entry function and
// its WHILE loops (to While nodes over the raised functions bodies names)
// in place, returning them so that restore can undo what fusion left.
func raiseEntry(f *ir.Function, bodies map[*ir.Node][2]string) []raisedNode {
	r := &raiser{f: f}
	// Only what the loops depend on, and the Flex list ops reading their
	// outputs (the stack): the code after a loop may carry the file's
	// stale shapes of the loop's outputs, which folding must not see.
	upstream := map[*ir.Node]bool{}
	var stack []*ir.Node
	for w := range bodies {
		stack = append(stack, w)
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, in := range n.Inputs {
			if in != nil && in.Producer != nil && !upstream[in.Producer] {
				upstream[in.Producer] = true
				stack = append(stack, in.Producer)
			}
		}
	}
	for _, n := range f.Nodes {
		for _, in := range n.Inputs {
			if in != nil && in.Producer != nil && bodies[in.Producer] != ([2]string{}) && n.TFL != nil && flexOps[n.TFL.Custom] != "" {
				upstream[n] = true
			}
		}
	}
	var raised []raisedNode
	for _, n := range f.Nodes {
		t := n.TFL
		if t == nil || !upstream[n] && bodies[n] == ([2]string{}) {
			continue
		}
		if names, ok := bodies[n]; ok {
			n.Op, n.TFL = "While", nil
			n.Attrs = map[string]*tfpb.AttrValue{
				"cond": {Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: names[0]}}},
				"body": {Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: names[1]}}},
			}
			raised = append(raised, raisedNode{n, t})
			continue
		}
		if r.raiseOne(n) {
			raised = append(raised, raisedNode{n, t})
		}
	}
	return raised
}

// restore turns the raised nodes still in f back into the TFLite
// operators they were (their inputs as fusion left them).
func restore(f *ir.Function, raised []raisedNode) {
	for _, rn := range raised {
		rn.n.Op, rn.n.TFL, rn.n.Attrs = "", rn.tfl, map[string]*tfpb.AttrValue{}
	}
}

// raiseBody returns a raised private copy of a loop body or condition:
// every operator raised that can be, value shapes dropped where the
// TFLite file's are stale (a WHILE's loop variables may change shape),
// and TensorListSetItem rebuilt from the concatenation of slices
// TensorFlow lowers it to. fold, run on the copy first, turns the
// variable reads that are constants into them.
func raiseBody(g *ir.Function, name string, loopInputs []*ir.Value, fold func(*ir.Function)) (*ir.Function, hybridLoop, error) {
	f := g.Clone()
	f.Name = name
	fold(f)
	// The loop variables' shapes are the loop inputs' (the file's may be
	// stale: TFLite resizes them when the loop runs).
	for i, p := range f.Params {
		if i < len(loopInputs) && loopInputs[i] != nil && loopInputs[i].Shape.Static() && loopInputs[i].DType == p.DType {
			p.Shape = loopInputs[i].Shape.Clone()
		}
	}
	r := &raiser{f: f}
	for _, n := range append([]*ir.Node(nil), f.Nodes...) {
		if n.TFL == nil {
			continue
		}
		if r.raiseOne(n) {
			continue
		}
		if err := r.raiseComposite(n); err != nil {
			return nil, hybridLoop{}, err
		}
	}
	for _, n := range f.Nodes {
		if n.Op != "Const" {
			for _, o := range n.Outputs {
				o.Shape = nil
			}
		}
	}
	if err := passes.Simplify(f); err != nil {
		return nil, hybridLoop{}, fmt.Errorf("loop function %s: %w", g.Name, err)
	}
	r.raiseSetItems()
	r.raiseOverwrites()
	return f, hybridLoop{r.hybrid, r.scales, r.asymmetric}, nil
}

// raiseComposite raises the operators that become several TensorFlow
// ops or need an input made from an option: FULLY_CONNECTED, SPLIT,
// GATHER, CONCATENATION, SQUEEZE, and the element-wise operators with a
// fused activation. Others stay TFLite nodes.
func (r *raiser) raiseComposite(n *ir.Node) error {
	f, t := r.f, n.TFL
	var opts any
	if t.Options != nil {
		opts = t.Options.Value
	}
	axisConst := func(k int) *ir.Value {
		return f.NewConst(n.Name+"/axis", ir.FromInt32s(ir.Scalar(), []int32{int32(k)}))
	}
	none := schema.ActivationFunctionTypeNONE
	var m *ir.Node
	switch o := opts.(type) {
	case *schema.AddOptionsT:
		m = r.replace(n, "AddV2", n.Inputs, o.FusedActivationFunction)
	case *schema.SubOptionsT:
		m = r.replace(n, "Sub", n.Inputs, o.FusedActivationFunction)
	case *schema.MulOptionsT:
		m = r.replace(n, "Mul", n.Inputs, o.FusedActivationFunction)
	case *schema.SplitOptionsT:
		if m = r.replace(n, "Split", n.Inputs, none); m != nil {
			m.SetAttrInt("num_split", int64(o.NumSplits))
		}
	case *schema.ConcatenationOptionsT:
		if m = r.replace(n, "ConcatV2", append(append([]*ir.Value(nil), n.Inputs...), axisConst(int(o.Axis))), o.FusedActivationFunction); m != nil {
			m.SetAttrInt("N", int64(len(n.Inputs)))
		}
	case *schema.GatherOptionsT:
		if len(n.Inputs) == 2 {
			if m = r.replace(n, "GatherV2", []*ir.Value{n.Inputs[0], n.Inputs[1], axisConst(int(o.Axis))}, none); m != nil {
				m.SetAttrInt("batch_dims", int64(o.BatchDims))
				m.SetAttrType("Tparams", n.Inputs[0].DType)
			}
		}
	case *schema.SqueezeOptionsT:
		if m = r.replace(n, "Squeeze", n.Inputs, none); m != nil {
			dims := make([]int64, len(o.SqueezeDims))
			for i, d := range o.SqueezeDims {
				dims[i] = int64(d)
			}
			m.SetAttrInts("squeeze_dims", dims)
		}
	case *schema.FullyConnectedOptionsT:
		r.raiseFC(n, o)
	case *schema.BatchMatMulOptionsT:
		// Two float matrices: BATCH_MATMUL is MatMul (Keras 3's LSTM
		// cell through resource variables converts its dots so).
		if len(n.Inputs) == 2 && !o.AsymmetricQuantizeInputs && rank2Float(n.Inputs[0]) && rank2Float(n.Inputs[1]) {
			if m = r.replace(n, "MatMul", n.Inputs, none); m != nil {
				m.Attrs["transpose_a"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: o.AdjX}}
				m.Attrs["transpose_b"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: o.AdjY}}
			}
		}
	}
	return nil
}

// rank2Float reports whether v is a float32 matrix.
func rank2Float(v *ir.Value) bool {
	return v != nil && v.DType == ir.Float32 && len(v.Shape) == 2
}

// replace puts TensorFlow op op over inputs, followed by the fused
// activation act, in place of n (which becomes dead), and returns the
// op's node; nil (n kept) for an activation TensorFlow has no op for.
func (r *raiser) replace(n *ir.Node, op string, inputs []*ir.Value, act schema.ActivationFunctionType) *ir.Node {
	f := r.f
	actOp := map[schema.ActivationFunctionType]string{schema.ActivationFunctionTypeRELU: "Relu",
		schema.ActivationFunctionTypeRELU6: "Relu6", schema.ActivationFunctionTypeTANH: "Tanh"}[act]
	if act != schema.ActivationFunctionTypeNONE && actOp == "" {
		return nil
	}
	m := f.NewNode(n.Name+"/raised", op, inputs, len(n.Outputs))
	for j, o := range n.Outputs {
		m.Outputs[j].DType, m.Outputs[j].Shape = o.DType, o.Shape.Clone()
	}
	if len(inputs) > 0 && inputs[0] != nil {
		m.SetAttrType("T", inputs[0].DType)
	}
	out := m.Outputs
	if actOp != "" {
		a := f.NewNode(n.Name+"/activation", actOp, []*ir.Value{m.Outputs[0]}, 1)
		a.SetAttrType("T", m.Outputs[0].DType)
		a.Outputs[0].DType = n.Outputs[0].DType
		out = a.Outputs
	}
	for j, o := range n.Outputs {
		f.ReplaceAllUses(o, out[j])
	}
	return m
}

// raiseFC raises a FULLY_CONNECTED over a rank-2 input and constant
// [units, n_input] weights (float, or int8 ones of a hybrid model,
// dequantised) to MatMul(x, kernel) + BiasAdd, the kernel being the
// weights transposed, as Keras holds it.
func (r *raiser) raiseFC(n *ir.Node, o *schema.FullyConnectedOptionsT) {
	if o.KeepNumDims || o.WeightsFormat != schema.FullyConnectedOptionsWeightsFormatDEFAULT || len(n.Inputs) < 2 || len(n.Outputs) != 1 {
		return
	}
	x, w := n.Inputs[0], n.Inputs[1]
	if x == nil || w == nil || w.Const == nil || w.Const.Shape.Rank() != 2 || x.DType != ir.Float32 || x.Shape.Rank() != 2 {
		return
	}
	wt := w.Const
	if wt.DType == ir.Int8 {
		deq, ok := dequantize(wt, w.Quant)
		if !ok {
			return
		}
		wt, r.hybrid = deq, true
		if len(w.Quant.Scale) == 1 && (len(w.Quant.ZeroPoint) == 0 || w.Quant.ZeroPoint[0] == 0) && !slices.Contains(r.scales, w.Quant.Scale[0]) {
			r.scales = append(r.scales, w.Quant.Scale[0])
		}
		r.asymmetric = r.asymmetric || o.AsymmetricQuantizeInputs
	}
	if wt.DType != ir.Float32 {
		return
	}
	// TensorFlow's kernel [n_input, units]: the weights transposed.
	rows, cols := wt.Shape[0], wt.Shape[1]
	src := wt.Float64s()
	tr := make([]float32, len(src))
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			tr[j*rows+i] = float32(src[i*cols+j])
		}
	}
	wv := r.f.NewConst(n.Name+"/kernel", ir.FromFloat32s(ir.Shape{cols, rows}, tr))
	m := r.replace(n, "MatMul", []*ir.Value{x, wv}, schema.ActivationFunctionTypeNONE)
	if m == nil {
		return
	}
	out := m.Outputs[0]
	if len(n.Inputs) > 2 && n.Inputs[2] != nil {
		b := r.f.NewNode(n.Name+"/bias", "BiasAdd", []*ir.Value{out, n.Inputs[2]}, 1)
		b.SetAttrType("T", ir.Float32)
		b.Outputs[0].DType = ir.Float32
		r.f.ReplaceAllUses(out, b.Outputs[0])
		b.Inputs[0] = out
		out = b.Outputs[0]
	}
	act := map[schema.ActivationFunctionType]string{schema.ActivationFunctionTypeRELU: "Relu",
		schema.ActivationFunctionTypeRELU6: "Relu6", schema.ActivationFunctionTypeTANH: "Tanh"}[o.FusedActivationFunction]
	if o.FusedActivationFunction != schema.ActivationFunctionTypeNONE {
		if act == "" {
			return // leaves the MatMul computing without its activation: refused below
		}
		a := r.f.NewNode(n.Name+"/activation", act, []*ir.Value{out}, 1)
		a.SetAttrType("T", ir.Float32)
		a.Outputs[0].DType = ir.Float32
		r.f.ReplaceAllUses(out, a.Outputs[0])
		a.Inputs[0] = out
	}
}

// dequantize returns the float32 values of an int8 weight tensor
// quantised per tensor or per channel along dimension 0.
func dequantize(t *ir.Tensor, q *ir.Quantization) (*ir.Tensor, bool) {
	if q == nil || len(q.Scale) == 0 {
		return nil, false
	}
	rows := t.Shape[0]
	cols := t.NumElements() / max(rows, 1)
	if len(q.Scale) != 1 && (len(q.Scale) != rows || q.Dim != 0) {
		return nil, false
	}
	out := make([]float32, t.NumElements())
	for i := range out {
		c := 0
		if len(q.Scale) > 1 {
			c = i / cols
		}
		zp := int64(0)
		if c < len(q.ZeroPoint) {
			zp = q.ZeroPoint[c]
		}
		out[i] = q.Scale[c] * float32(int64(int8(t.Data[i]))-zp)
	}
	return ir.FromFloat32s(t.Shape, out), true
}

// raiseSetItems finds TensorFlow's lowering of TensorListSetItem(list,
// i, item) over a tensor-valued list (lower-static-tensor-list):
// ConcatV2(Slice(list, 0, [i, -1, ...]), ExpandDims(item, 0),
// Slice(list, [i+1, 0, ...], [-1, ...]), axis 0), and puts a
// TensorListSetItem in its place. i is found by evaluating the slice
// bounds with each integer scalar parameter set, or is a constant.
func (r *raiser) raiseSetItems() {
	f := r.f
	for _, n := range append([]*ir.Node(nil), f.Nodes...) {
		if n.Op != "ConcatV2" || len(n.Inputs) != 4 || !constIs(n.Inputs[3], 0) || n.Inputs[0] == nil || n.Inputs[1] == nil || n.Inputs[2] == nil {
			continue
		}
		s0, e, s2 := n.Inputs[0].Producer, n.Inputs[1].Producer, n.Inputs[2].Producer
		if s0 == nil || e == nil || s2 == nil || s0.Op != "Slice" || s2.Op != "Slice" || len(s0.Inputs) != 3 || len(s2.Inputs) != 3 ||
			s0.Inputs[0] != s2.Inputs[0] || !s0.Inputs[0].IsParam() {
			continue
		}
		if e.Op != "ExpandDims" || len(e.Inputs) != 2 || !constIs(e.Inputs[1], 0) || e.Inputs[0] == nil {
			continue
		}
		idx := r.setIndex(s0.Inputs[2], s2.Inputs[1])
		if idx == nil {
			continue
		}
		set := f.NewNode(n.Name+"/set_item", "TensorListSetItem", []*ir.Value{s0.Inputs[0], idx, e.Inputs[0]}, 1)
		set.SetAttrType("element_dtype", e.Inputs[0].DType)
		set.Outputs[0].DType, set.Outputs[0].Shape = n.Outputs[0].DType, n.Outputs[0].Shape
		f.ReplaceAllUses(n.Outputs[0], set.Outputs[0])
	}
	f.RemoveUnused()
}

// setIndex returns the list index a lowered set writes: a parameter p
// when size[0] of the first slice is p and begin[0] of the last is p+1
// for p = 5 and 9 (the others unbound), or the constant index when the
// bounds are constants.
func (r *raiser) setIndex(size, begin *ir.Value) *ir.Value {
	first := func(v *ir.Value) (int, bool) {
		if v.Const == nil || v.Const.NumElements() < 1 {
			return 0, false
		}
		return v.Const.Ints()[0], true
	}
	if k, ok := first(size); ok {
		if b, ok := first(begin); ok && b == k+1 {
			return r.f.NewConst("set_index", ir.FromInt32s(ir.Scalar(), []int32{int32(k)}))
		}
		return nil
	}
	for _, p := range r.f.Params {
		if p.DType != ir.Int32 || p.Shape.Rank() != 0 {
			continue
		}
		good := true
		for _, k := range []int{5, 9} {
			got, err := probe(r.f, p, ir.FromInt32s(ir.Scalar(), []int32{int32(k)}), []*ir.Value{size, begin})
			if err != nil || got[0] == nil || got[1] == nil || got[0].NumElements() < 1 || got[1].NumElements() < 1 ||
				got[0].Ints()[0] != k || got[1].Ints()[0] != k+1 {
				good = false
				break
			}
		}
		if good {
			return p
		}
	}
	return nil
}

// constIs reports whether v is a one-element integer constant k.
func constIs(v *ir.Value, k int) bool {
	return v != nil && v.Const != nil && v.Const.NumElements() == 1 && v.Const.DType.IsInteger() && v.Const.Ints()[0] == k
}

// probe evaluates want in a private copy of f with parameter p bound to
// c (p nil: nothing bound), nil where folding cannot reach a value.
func probe(f *ir.Function, p *ir.Value, c *ir.Tensor, want []*ir.Value) ([]*ir.Tensor, error) {
	g := f.Clone()
	vm := map[*ir.Value]*ir.Value{}
	for i, q := range f.Params {
		vm[q] = g.Params[i]
	}
	for i, n := range f.Nodes {
		for j, o := range n.Outputs {
			vm[o] = g.Nodes[i].Outputs[j]
		}
	}
	g.Results = nil
	for _, w := range want {
		g.Results = append(g.Results, vm[w])
	}
	g.ResultNames = make([]string, len(want))
	if p != nil {
		q := vm[p]
		q.Const, q.Shape = c, c.Shape.Clone()
	}
	if err := passes.Simplify(g); err != nil {
		return nil, err
	}
	out := make([]*ir.Tensor, len(want))
	for i, r := range g.Results {
		out[i] = r.Const
	}
	return out, nil
}

// raiseOverwrites finds the lowering of TensorListSetItem(list, 0, item)
// on a one-item list (Keras keeping only the last output): loop variable
// i, a [1, ...] tensor the body does not read, becomes Reshape or
// ExpandDims(item) of the item's shape with a leading 1. It puts a
// TensorListSetItem of the variable at index 0 in its place, which
// computes the same.
func (r *raiser) raiseOverwrites() {
	f := r.f
	uses := f.Uses()
	for i, res := range f.Results {
		if i >= len(f.Params) || res == nil || res.Producer == nil {
			continue
		}
		p, n := f.Params[i], res.Producer
		if (n.Op != "Reshape" && n.Op != "ExpandDims") || len(n.Inputs) != 2 || n.Inputs[0] == nil || len(uses[p]) > 0 || !p.DType.IsFloat() {
			continue
		}
		item := n.Inputs[0]
		if !item.Shape.Static() || !p.Shape.Equal(append(ir.Shape{1}, item.Shape...)) {
			continue
		}
		zero := f.NewConst(n.Name+"/index", ir.FromInt32s(ir.Scalar(), []int32{0}))
		set := f.NewNode(n.Name+"/set_item", "TensorListSetItem", []*ir.Value{p, zero, item}, 1)
		set.SetAttrType("element_dtype", item.DType)
		set.Outputs[0].DType, set.Outputs[0].Shape = res.DType, p.Shape.Clone()
		f.Results[i] = set.Outputs[0]
	}
	f.RemoveUnused()
}
