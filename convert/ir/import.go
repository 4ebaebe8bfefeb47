package ir

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
)

// maxListOutputs bounds number_attr/type_list_attr output counts, so a
// corrupt attribute cannot make the importer allocate millions of values.
const maxListOutputs = 1 << 16

// maxGraphOutputs bounds the total number of node outputs one imported
// graph or function may declare (each is a Value of about 150 bytes).
const maxGraphOutputs = 1 << 21

// maxUnknownOutputs bounds the outputs assumed for an op tflrun has no
// definition of (sized from the largest index its consumers use).
const maxUnknownOutputs = 1 << 10

// countOutputs fails when a graph's nodes declare more outputs in total
// than maxGraphOutputs.
func countOutputs(where string, nodes []*Node) error {
	total := 0
	for _, n := range nodes {
		total += len(n.Outputs)
		if total > maxGraphOutputs {
			return fmt.Errorf("%s declares more than %d node outputs", where, maxGraphOutputs)
		}
	}
	return nil
}

// outputCounter checks the outputs declared so far as nodes are
// imported, without rescanning the nodes before.
type outputCounter struct {
	where string
	total int
}

func (c *outputCounter) add(n *Node) error {
	c.total += len(n.Outputs)
	if c.total > maxGraphOutputs {
		return fmt.Errorf("%s declares more than %d node outputs", c.where, maxGraphOutputs)
	}
	return nil
}

// argSpan is one declared output argument and the flat output indices it
// occupies.
type argSpan struct {
	name         string
	start, count int
}

// outputLayout works out n's output arguments from its op definition (or,
// for a direct function call, the callee's signature), sets n's output
// count and types, and returns the argument spans. ok is false when the op
// is unknown.
func outputLayout(m *Module, n *Node) (spans []argSpan, ok bool, err error) {
	var args []*tfpb.OpDef_ArgDef
	if fd, isFn := m.libraryFunc(n.Op); isFn {
		args = fd.GetSignature().GetOutputArg()
	} else if od := m.OpDef(n.Op); od != nil {
		args = od.OutputArg
		applyDefaults(n, od)
	} else {
		return nil, false, nil
	}
	var types []DType
	for _, a := range args {
		count := 1
		if a.NumberAttr != "" {
			k, err := n.AttrInt(a.NumberAttr, -1)
			if err != nil {
				return nil, true, err
			}
			if k < 0 || k > maxListOutputs {
				return nil, true, n.Errorf("attribute %q = %d is not a valid output count", a.NumberAttr, k)
			}
			count = int(k)
		}
		var dts []DType
		switch {
		case a.TypeListAttr != "":
			dts, err = n.AttrTypes(a.TypeListAttr)
			if err != nil {
				return nil, true, err
			}
			if !n.HasAttr(a.TypeListAttr) {
				return nil, true, n.Errorf("missing attribute %q (types of output %q)", a.TypeListAttr, a.Name)
			}
			if len(dts) > maxListOutputs {
				return nil, true, n.Errorf("attribute %q lists %d outputs", a.TypeListAttr, len(dts))
			}
			count = len(dts)
		case a.TypeAttr != "":
			dt := Invalid
			if n.HasAttr(a.TypeAttr) {
				if dt, err = n.AttrType(a.TypeAttr); err != nil {
					return nil, true, err
				}
			}
			dts = repeat(dt, count)
		default:
			dt, err := FromTF(a.Type)
			if err != nil {
				return nil, true, n.Errorf("output %q: %v", a.Name, err)
			}
			dts = repeat(dt, count)
		}
		spans = append(spans, argSpan{name: a.Name, start: len(types), count: count})
		types = append(types, dts...)
	}
	if len(types) > maxListOutputs {
		return nil, true, n.Errorf("%d outputs is more than tflrun accepts", len(types))
	}
	n.SetNumOutputs(len(types))
	for i, dt := range types {
		n.Outputs[i].DType = dt
	}
	return spans, true, nil
}

func repeat(dt DType, k int) []DType {
	out := make([]DType, k)
	for i := range out {
		out[i] = dt
	}
	return out
}

// applyDefaults fills attributes the op declares with a default and the
// node leaves out (SavedModels are written with defaults stripped).
func applyDefaults(n *Node, od *tfpb.OpDef) {
	for _, a := range od.Attr {
		if a.DefaultValue != nil && !n.HasAttr(a.Name) {
			n.Attrs[a.Name] = a.DefaultValue
		}
	}
}

func (m *Module) libraryFunc(name string) (*tfpb.FunctionDef, bool) {
	if m == nil {
		return nil, false
	}
	fd, ok := m.Library[name]
	return fd, ok
}

// newImportedNode builds a node from a NodeDef (attributes copied into a
// fresh map so later edits stay local).
func newImportedNode(f *Function, nd *tfpb.NodeDef) *Node {
	n := &Node{Name: nd.Name, Op: nd.Op, Func: f, Attrs: make(map[string]*tfpb.AttrValue, len(nd.Attr))}
	for k, v := range nd.Attr {
		n.Attrs[k] = v
	}
	return n
}

// applyShapeHints copies the "_output_shapes" attribute TensorFlow records
// on saved nodes into the output shapes (a hint; shape inference refines
// it). A malformed hint is ignored.
func applyShapeHints(n *Node) {
	shapes, err := n.AttrShapes("_output_shapes")
	if err != nil || len(shapes) != len(n.Outputs) {
		return
	}
	for i, s := range shapes {
		n.Outputs[i].Shape = s
	}
}

// ImportFunction converts a FunctionDef into a Function. Tensor references
// in the body ("node:output_arg:index", or an argument name) are resolved
// with the op definitions of m; control inputs ("^node") and control_ret
// are dropped, since execution order does not matter for inference
// (stateful side effects are checked by the passes). Errors name the
// function and node: duplicate or empty names, unknown ops, unresolvable
// references, polymorphic signatures, malformed attributes.
func ImportFunction(m *Module, fd *tfpb.FunctionDef) (*Function, error) {
	sig := fd.GetSignature()
	f := NewFunction(sig.GetName(), m)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("function %s: %s", f.Name, fmt.Sprintf(format, args...))
	}
	for k, v := range fd.Attr {
		f.Attrs[k] = v
	}
	taken := map[string]bool{}
	for i, a := range sig.GetInputArg() {
		if a.Name == "" || taken[a.Name] {
			return nil, fail("input argument %d has an empty or duplicate name %q", i, a.Name)
		}
		taken[a.Name] = true
		if a.TypeAttr != "" || a.NumberAttr != "" || a.TypeListAttr != "" {
			return nil, fail("input argument %q is polymorphic; only concrete (traced) functions are supported", a.Name)
		}
		dt, err := FromTF(a.Type)
		if err != nil {
			return nil, fail("input argument %q: %v", a.Name, err)
		}
		v := &Value{Name: a.Name, DType: dt, Index: i}
		f.Params = append(f.Params, v)
		var attrs map[string]*tfpb.AttrValue
		if aa, ok := fd.ArgAttr[uint32(i)]; ok {
			attrs = aa.GetAttr()
			if a, ok := attrs["_output_shapes"]; ok {
				if l := a.GetList(); l != nil && len(l.Shape) == 1 {
					if s, err := ShapeFromTF(l.Shape[0]); err == nil {
						v.Shape = s
					}
				}
			}
		}
		f.ArgAttrs = append(f.ArgAttrs, attrs)
	}
	for k := range fd.ArgAttr {
		if int(k) >= len(sig.GetInputArg()) {
			return nil, fail("arg_attr names argument %d of %d", k, len(sig.GetInputArg()))
		}
	}
	params := map[string]*Value{}
	for _, p := range f.Params {
		params[p.Name] = p
	}
	type entry struct {
		n     *Node
		spans []argSpan
	}
	byName := map[string]entry{}
	counted := &outputCounter{where: "function " + f.Name}
	for i, nd := range fd.NodeDef {
		if nd.Name == "" {
			return nil, fail("node %d has no name", i)
		}
		if taken[nd.Name] {
			return nil, fail("node name %q is used twice", nd.Name)
		}
		taken[nd.Name] = true
		n := newImportedNode(f, nd)
		spans, known, err := outputLayout(m, n)
		if err != nil {
			return nil, err
		}
		if !known {
			return nil, n.Errorf("unknown op %q: not in the graph's op list, its function library or tflrun's op table", nd.Op)
		}
		applyShapeHints(n)
		byName[nd.Name] = entry{n, spans}
		f.Nodes = append(f.Nodes, n)
		if err := counted.add(n); err != nil {
			return nil, err
		}
	}
	resolve := func(ref string) (*Value, error) {
		parts := strings.Split(ref, ":")
		if len(parts) == 1 {
			if p, ok := params[ref]; ok {
				return p, nil
			}
			// A bare node name means its first output (seen in some
			// hand-written function bodies).
			if e, ok := byName[ref]; ok && len(e.n.Outputs) > 0 {
				return e.n.Outputs[0], nil
			}
			return nil, fmt.Errorf("reference %q names no argument or node", ref)
		}
		if len(parts) > 3 {
			return nil, fmt.Errorf("reference %q is not node:output:index", ref)
		}
		e, ok := byName[parts[0]]
		if !ok {
			return nil, fmt.Errorf("reference %q names no node", ref)
		}
		idx := 0
		if len(parts) == 3 {
			k, err := strconv.Atoi(parts[2])
			if err != nil || k < 0 {
				return nil, fmt.Errorf("reference %q has a bad index", ref)
			}
			idx = k
		}
		for _, s := range e.spans {
			if s.name == parts[1] {
				if idx >= s.count {
					return nil, fmt.Errorf("reference %q: output %q of %s has %d tensors", ref, s.name, e.n.Op, s.count)
				}
				return e.n.Outputs[s.start+idx], nil
			}
		}
		return nil, fmt.Errorf("reference %q: op %s has no output named %q", ref, e.n.Op, parts[1])
	}
	for i, nd := range fd.NodeDef {
		n := f.Nodes[i]
		for _, in := range nd.Input {
			if strings.HasPrefix(in, "^") {
				continue
			}
			v, err := resolve(in)
			if err != nil {
				return nil, n.Wrap(err)
			}
			n.Inputs = append(n.Inputs, v)
		}
	}
	for _, a := range sig.GetOutputArg() {
		ref, ok := fd.Ret[a.Name]
		if !ok {
			return nil, fail("output %q has no entry in ret", a.Name)
		}
		v, err := resolve(ref)
		if err != nil {
			return nil, fail("output %q: %v", a.Name, err)
		}
		f.Results = append(f.Results, v)
		f.ResultNames = append(f.ResultNames, a.Name)
	}
	return f, nil
}

// TensorRef is a parsed GraphDef tensor name "node:index".
type TensorRef struct {
	Node  string
	Index int
}

// ParseTensorRef parses "node", "node:3" (and tolerates a leading "^",
// returning control=true).
func ParseTensorRef(s string) (ref TensorRef, control bool, err error) {
	if strings.HasPrefix(s, "^") {
		return TensorRef{Node: s[1:]}, true, nil
	}
	name, idx, found := strings.Cut(s, ":")
	if !found {
		return TensorRef{Node: s}, false, nil
	}
	k, err := strconv.Atoi(idx)
	if err != nil || k < 0 || k > maxListOutputs || strings.Contains(idx, ":") {
		return TensorRef{}, false, fmt.Errorf("tensor name %q is not node:index", s)
	}
	if name == "" {
		return TensorRef{}, false, fmt.Errorf("tensor name %q has an empty node name", s)
	}
	return TensorRef{Node: name, Index: k}, false, nil
}

// ImportGraph converts a GraphDef's nodes into a Function named name with
// no parameters or results yet (Cut binds them). Inputs are "node:index";
// control inputs are dropped. Output counts and types come from the op
// definitions when known; for other ops the count is the largest index
// any consumer uses, and the types are left to shape inference.
func ImportGraph(m *Module, g *tfpb.GraphDef, name string) (*Function, error) {
	f := NewFunction(name, m)
	// Sized once: the GraphDef is already in memory, so its node count is
	// bounded by the input, and growing a million-entry map costs a third
	// of an import.
	byName := make(map[string]*Node, len(g.GetNode()))
	f.Nodes = make([]*Node, 0, len(g.GetNode()))
	counted := &outputCounter{where: "graph"}
	for i, nd := range g.GetNode() {
		if nd.Name == "" {
			return nil, fmt.Errorf("graph node %d has no name", i)
		}
		if _, dup := byName[nd.Name]; dup {
			return nil, fmt.Errorf("graph node name %q is used twice", nd.Name)
		}
		n := newImportedNode(f, nd)
		if _, known, err := outputLayout(m, n); err != nil {
			return nil, err
		} else if !known {
			n.Outputs = nil // sized below from the references
		}
		byName[nd.Name] = n
		f.Nodes = append(f.Nodes, n)
		if err := counted.add(n); err != nil {
			return nil, err
		}
	}
	// Size outputs of ops without a definition from the references.
	for _, nd := range g.GetNode() {
		for _, in := range nd.Input {
			ref, control, err := ParseTensorRef(in)
			if err != nil || control {
				continue
			}
			if p, ok := byName[ref.Node]; ok && m.OpDef(p.Op) == nil && !m.isFunc(p.Op) && ref.Index >= len(p.Outputs) {
				if ref.Index >= maxUnknownOutputs {
					return nil, fmt.Errorf("graph node %q uses output %d of node %q, whose op %s tflrun does not know", nd.Name, ref.Index, p.Name, p.Op)
				}
				p.SetNumOutputs(ref.Index + 1)
			}
		}
	}
	if err := countOutputs("graph", f.Nodes); err != nil {
		return nil, err
	}
	for i, nd := range g.GetNode() {
		n := f.Nodes[i]
		if m.OpDef(n.Op) == nil && !m.isFunc(n.Op) && len(n.Outputs) == 0 {
			n.SetNumOutputs(1)
		}
		applyShapeHints(n)
		for _, in := range nd.Input {
			ref, control, err := ParseTensorRef(in)
			if err != nil {
				return nil, n.Wrap(err)
			}
			if control {
				if _, ok := byName[ref.Node]; !ok {
					return nil, n.Errorf("control input %q names no node", in)
				}
				continue
			}
			p, ok := byName[ref.Node]
			if !ok {
				return nil, n.Errorf("input %q names no node", in)
			}
			if ref.Index >= len(p.Outputs) {
				return nil, n.Errorf("input %q: node %q (%s) has %d outputs", in, p.Name, p.Op, len(p.Outputs))
			}
			n.Inputs = append(n.Inputs, p.Outputs[ref.Index])
		}
	}
	return f, nil
}

func (m *Module) isFunc(name string) bool {
	_, ok := m.libraryFunc(name)
	return ok
}
