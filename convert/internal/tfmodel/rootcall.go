package tfmodel

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"google.golang.org/protobuf/proto"
)

// rootCallName is the entry a tf.Module saved without signatures for
// inference exposes: the root object's __call__ method.
const rootCallName = "__call__"

// rootCall adds to the main graph a call of the root object's __call__
// method, when the object graph has one with a single concrete function
// whose inputs are all tensors: a Placeholder per input (named and shaped
// by the concrete function's input signature), a VarHandleOp per
// captured variable (the bound inputs, named after the variable) and a
// StatefulPartitionedCall "__call__" of the function. The call's
// captured handles then resolve to checkpoint values as a signature's do
// (through the bound inputs: objectGraphKeys). It returns the inputs and
// outputs of the entry, or ok false when the model has no such method.
func (m *Model) rootCall() (ins []ir.InputSpec, outs []ir.OutputSpec, inNames, outNames []string, ok bool, err error) {
	if c := m.root; c != nil {
		// Added once: conversions of one Model agree.
		return c.ins, c.outs, c.inNames, c.outNames, true, nil
	}
	og := m.MetaGraph.GetObjectGraphDef()
	nodes := og.GetNodes()
	if len(nodes) == 0 {
		return nil, nil, nil, nil, false, nil
	}
	var fn *tfpb.SavedFunction
	for _, c := range nodes[0].GetChildren() {
		if c.GetLocalName() == rootCallName && int(c.GetNodeId()) < len(nodes) {
			fn = nodes[c.GetNodeId()].GetFunction()
		}
	}
	if fn == nil || len(fn.GetConcreteFunctions()) != 1 {
		return nil, nil, nil, nil, false, nil
	}
	fname := fn.GetConcreteFunctions()[0]
	cf := og.GetConcreteFunctions()[fname]
	fd := m.Module.Library[fname]
	if cf == nil || fd == nil {
		return nil, nil, nil, nil, false, nil
	}
	args := cf.GetCanonicalizedInputSignature().GetTupleValue().GetValues()
	if len(args) != 2 || len(args[1].GetDictValue().GetFields()) > 0 {
		return nil, nil, nil, nil, false, nil
	}
	var specs []*tfpb.TensorSpecProto
	for _, a := range args[0].GetTupleValue().GetValues() {
		s := a.GetTensorSpecValue()
		if s == nil {
			return nil, nil, nil, nil, false, nil
		}
		specs = append(specs, s)
	}
	bound := cf.GetBoundInputs()
	sig := fd.GetSignature()
	if len(sig.GetInputArg()) != len(specs)+len(bound) || len(sig.GetOutputArg()) == 0 {
		return nil, nil, nil, nil, false, nil
	}
	g := proto.Clone(m.Graph).(*tfpb.GraphDef)
	taken := map[string]bool{}
	for _, n := range g.GetNode() {
		taken[n.GetName()] = true
	}
	unique := func(name string) string {
		base := rootCallName + "/" + name
		name = base
		for i := 1; taken[name]; i++ {
			name = fmt.Sprintf("%s_%d", base, i)
		}
		taken[name] = true
		return name
	}
	typeAttr := func(t tfpb.DataType) *tfpb.AttrValue { return &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: t}} }
	var callInputs []string
	var tin, tout []tfpb.DataType
	for i, s := range specs {
		name := s.GetName()
		if name == "" {
			name = fmt.Sprintf("input_%d", i)
		}
		shape, err := ir.ShapeFromTF(s.GetShape())
		if err != nil {
			return nil, nil, nil, nil, false, fmt.Errorf("%s input %q: %v", rootCallName, name, err)
		}
		dt, err := ir.FromTF(s.GetDtype())
		if err != nil {
			return nil, nil, nil, nil, false, fmt.Errorf("%s input %q: %v", rootCallName, name, err)
		}
		node := unique(name)
		g.Node = append(g.Node, &tfpb.NodeDef{Name: node, Op: "Placeholder", Attr: map[string]*tfpb.AttrValue{
			"dtype": typeAttr(s.GetDtype()), "shape": {Value: &tfpb.AttrValue_Shape{Shape: s.GetShape()}}}})
		callInputs = append(callInputs, node)
		tin = append(tin, s.GetDtype())
		ins = append(ins, ir.InputSpec{Name: node + ":0", Tensor: ir.TensorRef{Node: node}, DType: dt, Shape: shape})
		inNames = append(inNames, name)
	}
	for j, id := range bound {
		if int(id) >= len(nodes) || nodes[id].GetVariable() == nil {
			return nil, nil, nil, nil, false, nil
		}
		v := nodes[id].GetVariable()
		name := v.GetName()
		if name == "" {
			name = fmt.Sprintf("captured_%d", j)
		}
		node := unique(name)
		g.Node = append(g.Node, &tfpb.NodeDef{Name: node, Op: "VarHandleOp", Attr: map[string]*tfpb.AttrValue{
			"dtype": typeAttr(v.GetDtype()), "shape": {Value: &tfpb.AttrValue_Shape{Shape: v.GetShape()}},
			"shared_name": {Value: &tfpb.AttrValue_S{S: []byte(node)}}, "container": {Value: &tfpb.AttrValue_S{S: nil}}}})
		callInputs = append(callInputs, node)
		tin = append(tin, tfpb.DataType_DT_RESOURCE)
	}
	for _, a := range sig.GetOutputArg() {
		tout = append(tout, a.GetType())
	}
	list := func(ts []tfpb.DataType) *tfpb.AttrValue {
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Type: ts}}}
	}
	call := unique("call")
	g.Node = append(g.Node, &tfpb.NodeDef{Name: call, Op: "StatefulPartitionedCall", Input: callInputs, Attr: map[string]*tfpb.AttrValue{
		"Tin": list(tin), "Tout": list(tout), "f": {Value: &tfpb.AttrValue_Func{Func: &tfpb.NameAttrList{Name: fname}}}}})
	for k := range tout {
		outs = append(outs, ir.OutputSpec{Name: fmt.Sprintf("%s:%d", call, k), Tensor: ir.TensorRef{Node: call, Index: k}})
		outNames = append(outNames, fmt.Sprintf("output_%d", k))
	}
	m.Graph = g
	m.varKeys, m.varKeysErr = nil, nil
	m.root = &rootEntry{ins: ins, outs: outs, inNames: inNames, outNames: outNames}
	return ins, outs, inNames, outNames, true, nil
}

// rootEntry is the entry rootCall added to a Model's main graph.
type rootEntry struct {
	ins               []ir.InputSpec
	outs              []ir.OutputSpec
	inNames, outNames []string
}
