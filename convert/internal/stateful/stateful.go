// Package stateful maps the variables a TensorFlow model updates at
// inference time — the recurrent state of a stateful Keras RNN, which
// TensorFlow 2 keeps in resource variables read at the start of a call
// and assigned at its end (DTLN's LSTM states) — onto TensorFlow Lite
// tensors, instead of freezing them to their checkpoint values.
//
// The mechanism is generic and runs in two steps around the converter's
// inlining:
//
//  1. MarkState, before anything is simplified, walks the entry function
//     and every function it can reach (calls, loop bodies, branches),
//     follows resource handles through call arguments, and marks each
//     variable some AssignVariableOp / AssignAddVariableOp /
//     AssignSubVariableOp writes (ir.Variable.State). Reads of a marked
//     variable are not folded to constants, and its updates survive
//     dead-node elimination (ir.IsStateUpdate), through inlining, loop
//     unrolling and fusion.
//  2. Lower, once everything is inlined, turns each marked variable into
//     TFLite tensors:
//     - when its update assigns a value that is already a TFLite variable
//     tensor (ir.Value.IsVariableTensor — a fused recurrent operator
//     that keeps this state in its own variable tensor, which the operator
//     updates in place), the update is dropped and the remaining reads
//     use that tensor: the state persists inside the model across
//     invocations, as in TFLite's fused DTLN;
//     - otherwise the variable becomes an explicit state input (every
//     read uses it) and a state output (the assigned value), the way
//     TensorFlow's own conversion of DTLN exposes its LSTM states
//     (model_1.tflite: input_3 / Identity_1). The caller feeds each
//     state output back into the state input of the next invocation,
//     starting from the checkpoint value (State.Initial), usually zeros.
//
// A fusion rule that keeps a state in a variable tensor should, when the
// composite's initial state is a read of a marked variable (its argument
// is a resource whose ir.Variable has State set), use a variable tensor
// value for the operator's state input and replace the call output that
// the model assigns back to the variable by that same value. Lower then
// recognises the pair.
//
// Semantics follow TensorFlow 2's automatic control dependencies for the
// Keras stateful pattern: every read sees the value at the start of the
// invocation and the single update is its value at the end. A variable
// updated more than once per invocation is an error naming both updates.
package stateful

import (
	"fmt"
	"sort"

	"github.com/tflrun/tflrun/convert/ir"
)

// maxVisits bounds the function bodies MarkState walks, so that a hostile
// call graph (deep or wide) cannot make it run without bound.
const maxVisits = 100_000

// maxDepth bounds the nesting of calls MarkState follows.
const maxDepth = 256

var updateOps = map[string]bool{"AssignVariableOp": true, "AssignAddVariableOp": true, "AssignSubVariableOp": true}

// MarkState marks (ir.Variable.State) every resolved resource variable
// that f or a function it reaches writes, and returns them sorted by
// name. Errors name a function missing from the library or a call graph
// too large to walk.
func MarkState(f *ir.Function, m *ir.Module) ([]*ir.Variable, error) {
	w := &walker{m: m, seen: map[string]bool{}, marked: map[*ir.Variable]bool{}}
	if err := w.walk(f, nil, 0); err != nil {
		return nil, err
	}
	out := make([]*ir.Variable, 0, len(w.marked))
	for v := range w.marked {
		v.State = true
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

type walker struct {
	m      *ir.Module
	seen   map[string]bool
	marked map[*ir.Variable]bool
	visits int
}

// walk visits g with env binding some of its values (parameters, and
// identities of them) to variables.
func (w *walker) walk(g *ir.Function, env map[*ir.Value]*ir.Variable, depth int) error {
	w.visits++
	if w.visits > maxVisits {
		return fmt.Errorf("%s: the call graph is too large to search for variable updates (more than %d function bodies)", g.Where(), maxVisits)
	}
	if depth > maxDepth {
		return fmt.Errorf("%s: calls nest more than %d deep", g.Where(), maxDepth)
	}
	if env == nil {
		env = map[*ir.Value]*ir.Variable{}
	}
	resolve := func(v *ir.Value) *ir.Variable {
		if v == nil {
			return nil
		}
		if v.Variable != nil {
			return v.Variable
		}
		return env[v]
	}
	// Identities first: they may precede their users in g.Nodes or not,
	// so a variable is passed down each chain of identities from its
	// start (once per identity, however the chain is ordered).
	type idOut struct {
		n *ir.Node
		i int
	}
	var queue []idOut
	next := map[*ir.Value][]idOut{} // identity outputs fed by a value
	for _, n := range g.Nodes {
		if n.Op != "Identity" && n.Op != "IdentityN" {
			continue
		}
		for i := range n.Outputs {
			if i < len(n.Inputs) && n.Inputs[i] != nil {
				next[n.Inputs[i]] = append(next[n.Inputs[i]], idOut{n, i})
				queue = append(queue, idOut{n, i})
			}
		}
	}
	for len(queue) > 0 {
		d := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		o := d.n.Outputs[d.i]
		if env[o] != nil {
			continue
		}
		if v := resolve(d.n.Inputs[d.i]); v != nil {
			env[o] = v
			queue = append(queue, next[o]...)
		}
	}
	for _, n := range g.Nodes {
		if n.TFL != nil {
			continue
		}
		if updateOps[n.Op] && len(n.Inputs) > 0 {
			if v := resolve(n.Inputs[0]); v != nil {
				w.marked[v] = true
			}
			continue
		}
		for _, c := range callees(w.m, n) {
			fn, err := w.m.Function(c.name)
			if err != nil {
				return n.Wrap(err)
			}
			cenv := map[*ir.Value]*ir.Variable{}
			key := c.name
			for i, p := range fn.Params {
				if i < len(c.args) {
					if v := resolve(c.args[i]); v != nil {
						cenv[p] = v
						key += fmt.Sprintf("|%d=%p", i, v)
					}
				}
			}
			if len(cenv) == 0 || w.seen[key] {
				continue
			}
			w.seen[key] = true
			if err := w.walk(fn, cenv, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

type callee struct {
	name string
	args []*ir.Value
}

// callees lists the functions node n runs, with the arguments bound to
// their parameters.
func callees(m *ir.Module, n *ir.Node) []callee {
	fn := func(attr string) string {
		s, err := n.AttrFunc(attr)
		if err != nil {
			return ""
		}
		return s
	}
	var out []callee
	add := func(name string, args []*ir.Value) {
		if name != "" {
			out = append(out, callee{name, args})
		}
	}
	switch n.Op {
	case "StatefulPartitionedCall", "PartitionedCall":
		add(fn("f"), n.Inputs)
	case "While", "StatelessWhile":
		add(fn("body"), n.Inputs)
		add(fn("cond"), n.Inputs)
	case "If", "StatelessIf":
		if len(n.Inputs) > 0 {
			add(fn("then_branch"), n.Inputs[1:])
			add(fn("else_branch"), n.Inputs[1:])
		}
	default:
		if m != nil {
			if _, ok := m.Library[n.Op]; ok {
				add(n.Op, n.Inputs)
			}
		}
	}
	return out
}

// State is one variable the converted model keeps across invocations.
type State struct {
	// Variable is the TensorFlow variable (its Name is the shared name).
	Variable *ir.Variable
	// Input is the state input parameter (nil when the state lives in a
	// variable tensor instead), Output the index of the state output
	// among the function's results (-1 then).
	Input  *ir.Value
	Output int
	// VariableTensor is the TFLite variable tensor holding the state
	// (nil for an explicit input/output pair).
	VariableTensor *ir.Value
	// Initial is the value to feed the state input on the first
	// invocation (the checkpoint value).
	Initial *ir.Tensor
}

// Lower maps every marked variable f still reads or updates (see the
// package comment) and removes its reads and updates. It returns the
// states, sorted by variable name. The new state inputs are appended to
// f.Params, named after the variable, and the state outputs to f.Results
// with the same name in f.ResultNames. Errors name the nodes: a variable
// updated twice, an update whose value is missing, a read of a variable
// whose type the model contradicts.
func Lower(f *ir.Function) ([]State, error) {
	defer f.TrackUses()()
	reads := map[*ir.Variable][]*ir.Node{}
	updates := map[*ir.Variable][]*ir.Node{}
	var vars []*ir.Variable
	note := func(v *ir.Variable) {
		if _, ok := reads[v]; !ok {
			if _, ok := updates[v]; !ok {
				vars = append(vars, v)
			}
		}
	}
	for _, n := range f.Nodes {
		if n.TFL != nil || len(n.Inputs) == 0 || n.Inputs[0] == nil {
			continue
		}
		v := n.Inputs[0].Variable
		if v == nil || !v.State {
			continue
		}
		switch {
		case n.Op == "ReadVariableOp":
			note(v)
			reads[v] = append(reads[v], n)
		case updateOps[n.Op]:
			note(v)
			updates[v] = append(updates[v], n)
		}
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].Name < vars[j].Name })
	var states []State
	dead := map[*ir.Node]bool{}
	for _, v := range vars {
		ups := updates[v]
		if len(ups) > 1 {
			return nil, ups[1].Errorf("updates variable %q a second time (also updated by %s); tflrun maps a state variable to one value per invocation", v.Name, ups[0])
		}
		if len(ups) == 0 {
			// Updated only in parts of the model that were not converted
			// (cut away or dead): its reads see the checkpoint value.
			for _, r := range reads[v] {
				f.ReplaceAllUses(r.Outputs[0], f.NewConst(r.Name, v.Value))
				dead[r] = true
			}
			continue
		}
		up := ups[0]
		if len(up.Inputs) < 2 || up.Inputs[1] == nil {
			return nil, up.Errorf("has no value to assign")
		}
		val := up.Inputs[1]
		if val.DType != ir.Invalid && val.DType != v.Value.DType {
			return nil, up.Errorf("assigns a %s value to variable %q, which holds %s", val.DType, v.Name, v.Value.DType)
		}
		for _, r := range reads[v] {
			if dt, err := r.AttrTypeOr("dtype", v.Value.DType); err != nil {
				return nil, err
			} else if dt != v.Value.DType {
				return nil, r.Errorf("reads variable %q as %s, it holds %s", v.Name, dt, v.Value.DType)
			}
		}
		st := State{Variable: v, Output: -1, Initial: v.Value}
		var current *ir.Value // what reads of the variable see
		if val.IsVariableTensor && up.Op == "AssignVariableOp" {
			st.VariableTensor = val
			current = val
		} else {
			// Named after the variable itself (its VarHandleOp node, about
			// to become dead, may hold the name already).
			p := &ir.Value{Name: v.Name, DType: v.Value.DType, Shape: v.Value.Shape.Clone(), Index: len(f.Params)}
			f.Params = append(f.Params, p)
			st.Input = p
			current = p
			newVal := val
			if up.Op != "AssignVariableOp" {
				op := "AddV2"
				if up.Op == "AssignSubVariableOp" {
					op = "Sub"
				}
				a := f.NewNode(up.Name, op, []*ir.Value{p, val}, 1)
				a.InlinedFrom = up.InlinedFrom
				a.SetAttrType("T", v.Value.DType)
				a.Outputs[0].DType = v.Value.DType
				a.Outputs[0].Shape = v.Value.Shape.Clone()
				newVal = a.Outputs[0]
			}
			st.Output = len(f.Results)
			f.SetResults(append(f.Results, newVal))
			f.ResultNames = append(f.ResultNames, v.Name)
		}
		for _, r := range reads[v] {
			f.ReplaceAllUses(r.Outputs[0], current)
			dead[r] = true
		}
		dead[up] = true
		states = append(states, st)
	}
	f.RemoveNodes(dead)
	return states, nil
}
