package ir

import (
	"fmt"
	"maps"

	"github.com/tflrun/tflrun/schema"
)

// InputSpec names a tensor that becomes a function parameter when a graph
// is cut: Tensor is the graph tensor, Name the parameter (signature input)
// name; DType and Shape override what the graph says (Invalid / nil keep
// it).
type InputSpec struct {
	Name   string
	Tensor TensorRef
	DType  DType
	Shape  Shape
}

// OutputSpec names a graph tensor that becomes a function result.
type OutputSpec struct {
	Name   string
	Tensor TensorRef
}

// Cut turns the graph function f (from ImportGraph) into a function of
// the given inputs and outputs: each input tensor is replaced by a new
// parameter everywhere it is used, the outputs become the results, and
// every node the outputs do not depend on is removed. Errors name a tensor
// that does not exist.
func (f *Function) Cut(inputs []InputSpec, outputs []OutputSpec) error {
	lookup := f.tensorLookup()
	type bound struct{ old, param *Value }
	var binds []bound
	for _, in := range inputs {
		v, err := lookup(in.Tensor)
		if err != nil {
			return fmt.Errorf("input %q: %v", in.Name, err)
		}
		dt := in.DType
		if dt == Invalid {
			dt = v.DType
		}
		if dt == Invalid && v.Producer.Op == "Placeholder" {
			dt, _ = v.Producer.AttrTypeOr("dtype", Invalid)
		}
		shape := in.Shape
		if shape == nil {
			shape = v.Shape
			if v.Producer.Op == "Placeholder" {
				if s, ok, err := v.Producer.AttrShape("shape"); err == nil && ok {
					shape, _ = Merge(shape, s)
				}
			}
		}
		p := &Value{Name: in.Name, DType: dt, Shape: shape.Clone(), Index: len(f.Params)}
		f.Params = append(f.Params, p)
		binds = append(binds, bound{v, p})
	}
	for _, out := range outputs {
		v, err := lookup(out.Tensor)
		if err != nil {
			return fmt.Errorf("output %q: %v", out.Name, err)
		}
		f.Results = append(f.Results, v)
		f.ResultNames = append(f.ResultNames, out.Name)
	}
	stop := f.TrackUses()
	for _, b := range binds {
		f.ReplaceAllUses(b.old, b.param)
	}
	stop()
	f.names = nil
	f.RemoveUnused()
	return nil
}

// tensorLookup returns a function finding a tensor of f by reference
// (errors name a missing node or output).
func (f *Function) tensorLookup() func(TensorRef) (*Value, error) {
	byName := make(map[string]*Node, len(f.Nodes))
	for _, n := range f.Nodes {
		if _, dup := byName[n.Name]; !dup {
			byName[n.Name] = n // the first, as Node finds it
		}
	}
	return func(r TensorRef) (*Value, error) {
		n := byName[r.Node]
		if n == nil {
			return nil, fmt.Errorf("graph has no node %q", r.Node)
		}
		if r.Index >= len(n.Outputs) {
			return nil, fmt.Errorf("node %q (%s) has %d outputs, not %d", n.Name, n.Op, len(n.Outputs), r.Index+1)
		}
		return n.Outputs[r.Index], nil
	}
}

// IsStateUpdate reports whether n writes a variable marked State
// (AssignVariableOp, AssignAddVariableOp, AssignSubVariableOp), or is a
// TFLite operator with an effect beyond its outputs (ASSIGN_VARIABLE,
// CALL_ONCE, an operator without outputs), which dead-node removal must
// keep too.
func IsStateUpdate(n *Node) bool {
	if n.TFL != nil {
		// A TFLite operator read from a .tflite with an effect beyond its
		// outputs: a resource variable written, an initialiser run once,
		// or no outputs at all.
		switch n.TFL.Builtin {
		case schema.BuiltinOperatorASSIGN_VARIABLE, schema.BuiltinOperatorCALL_ONCE:
			return true
		}
		return len(n.Outputs) == 0
	}
	switch n.Op {
	case "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp":
		return n.TFL == nil && len(n.Inputs) > 0 && n.Inputs[0] != nil && n.Inputs[0].Variable != nil && n.Inputs[0].Variable.State
	}
	return false
}

// RemoveUnused deletes every node that no result depends on, keeping
// updates of state variables (IsStateUpdate) and what they depend on. It returns
// the number of nodes removed.
func (f *Function) RemoveUnused() int {
	live := f.markLive(f.Results)
	removed := 0
	kept := f.Nodes[:0]
	for _, n := range f.Nodes {
		if n.mark == live {
			kept = append(kept, n)
			continue
		}
		removed++
		if u := f.uses; u != nil {
			u.remove(n)
		}
	}
	for i := len(kept); i < len(f.Nodes); i++ {
		f.Nodes[i] = nil
	}
	f.Nodes = kept
	return removed
}

// markLive marks with a fresh mark, which it returns, every node that
// results depend on, and the updates of state variables (IsStateUpdate)
// with what they depend on.
func (f *Function) markLive(results []*Value) uint64 {
	f.Budget.AddWork(len(f.Nodes))
	live := newMarks(1)
	var stack []*Node
	mark := func(v *Value) {
		if v != nil && v.Producer != nil && v.Producer.mark != live {
			v.Producer.mark = live
			stack = append(stack, v.Producer)
		}
	}
	for _, r := range results {
		mark(r)
	}
	for _, n := range f.Nodes {
		// Updates of state variables have no outputs but must stay until
		// package stateful maps them (see Variable.State).
		if IsStateUpdate(n) && n.mark != live {
			n.mark = live
			stack = append(stack, n)
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, in := range n.Inputs {
			mark(in)
		}
		if n.TFL != nil {
			for _, in := range n.TFL.Intermediates {
				mark(in)
			}
		}
	}
	return live
}

// Needed returns the nodes of f that the outputs depend on (with the
// updates of state variables), in f's order: the nodes Cut(nil, outputs)
// would keep, without changing f. Errors name an output that does not
// exist.
func (f *Function) Needed(outputs []OutputSpec) ([]*Node, error) {
	lookup := f.tensorLookup()
	var results []*Value
	for _, out := range outputs {
		v, err := lookup(out.Tensor)
		if err != nil {
			return nil, fmt.Errorf("output %q: %v", out.Name, err)
		}
		results = append(results, v)
	}
	live := f.markLive(results)
	var out []*Node
	for _, n := range f.Nodes {
		if n.mark == live {
			out = append(out, n)
		}
	}
	return out, nil
}

// Clone returns a deep copy of f's graph: new nodes and values with the
// same names, types, shapes and attributes. Constant tensors and attribute
// values are shared (both are treated as immutable).
func (f *Function) Clone() *Function {
	g := &Function{Name: f.Name, Graph: f.Graph, Module: f.Module, Budget: f.Budget, Attrs: maps.Clone(f.Attrs), ResultNames: append([]string(nil), f.ResultNames...)}
	f.Budget.AddWork(len(f.Nodes))
	vm := map[*Value]*Value{}
	cp := func(v *Value) *Value {
		if v == nil {
			return nil
		}
		if w, ok := vm[v]; ok {
			return w
		}
		w := *v
		w.Shape = v.Shape.Clone()
		w.useEpoch, w.users, w.results = 0, nil, 0
		vm[v] = &w
		return &w
	}
	for _, p := range f.Params {
		g.Params = append(g.Params, cp(p))
	}
	for _, a := range f.ArgAttrs {
		g.ArgAttrs = append(g.ArgAttrs, a)
	}
	for _, n := range f.Nodes {
		m := &Node{Name: n.Name, Op: n.Op, Attrs: maps.Clone(n.Attrs), Func: g, InlinedFrom: n.InlinedFrom}
		for _, o := range n.Outputs {
			w := cp(o)
			w.Producer = m
			m.Outputs = append(m.Outputs, w)
		}
		if n.TFL != nil {
			t := *n.TFL
			m.TFL = &t
		}
		g.Nodes = append(g.Nodes, m)
	}
	for i, n := range f.Nodes {
		m := g.Nodes[i]
		for _, in := range n.Inputs {
			m.Inputs = append(m.Inputs, cp(in))
		}
		if n.TFL != nil {
			m.TFL.Intermediates = nil
			for _, in := range n.TFL.Intermediates {
				m.TFL.Intermediates = append(m.TFL.Intermediates, cp(in))
			}
		}
	}
	for _, r := range f.Results {
		g.Results = append(g.Results, cp(r))
	}
	return g
}

// Inline replaces the call node in f by the body of callee, which must be
// a private copy (Clone) that Inline consumes. Callee parameters are bound
// to the call's inputs, the call's outputs are replaced by the callee's
// results, and the callee's nodes are renamed "<call>/<node>" and recorded
// as inlined from callee. The number of inputs and outputs must match.
func (f *Function) Inline(call *Node, callee *Function) error {
	if _, _, err := f.InlineKeep(call, callee); err != nil {
		return err
	}
	f.RemoveNodes(map[*Node]bool{call: true})
	return nil
}

// InlineKeep is Inline except that the call node, left without users,
// stays in f for the caller to remove; it returns the values that now
// stand for the call's outputs and, when uses are tracked, the input
// slots that used each output (see ReplaceUses).
func (f *Function) InlineKeep(call *Node, callee *Function) ([]*Value, [][]UseRef, error) {
	if len(call.Inputs) != len(callee.Params) {
		return nil, nil, call.Errorf("calls %s with %d inputs, the function takes %d", callee.Name, len(call.Inputs), len(callee.Params))
	}
	if len(call.Outputs) != len(callee.Results) {
		return nil, nil, call.Errorf("expects %d outputs from %s, the function returns %d", len(call.Outputs), callee.Name, len(callee.Results))
	}
	bind := map[*Value]*Value{}
	for i, p := range callee.Params {
		bind[p] = call.Inputs[i]
	}
	sub := func(v *Value) *Value {
		if w, ok := bind[v]; ok {
			return w
		}
		return v
	}
	f.Budget.AddWork(len(callee.Nodes))
	chain := append(append([]string(nil), call.InlinedFrom...), callee.Name)
	for _, n := range callee.Nodes {
		n.Name = f.UniqueName(call.Name + "/" + n.Name)
		for i, o := range n.Outputs {
			o.Name = n.Name
			if i > 0 {
				o.Name = fmt.Sprintf("%s:%d", n.Name, i)
			}
		}
		n.Func = f
		n.InlinedFrom = chain
		for i, in := range n.Inputs {
			n.Inputs[i] = sub(in)
		}
		if n.TFL != nil {
			for i, in := range n.TFL.Intermediates {
				n.TFL.Intermediates[i] = sub(in)
			}
		}
		f.Nodes = append(f.Nodes, n)
		f.uses.add(n)
	}
	outs := make([]*Value, len(call.Outputs))
	uses := make([][]UseRef, len(call.Outputs))
	for i, o := range call.Outputs {
		r := sub(callee.Results[i])
		if r.Shape == nil && o.Shape != nil {
			r.Shape = o.Shape.Clone()
		}
		uses[i] = f.ReplaceUses(o, r)
		outs[i] = r
	}
	return outs, uses, nil
}
