package controlflow

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
)

// v1Ops are the TF1 control-flow ops of a while loop.
var v1Ops = map[string]bool{"Enter": true, "Exit": true, "Merge": true, "Switch": true, "NextIteration": true, "LoopCond": true}

// FunctionalizeV1 rewrites every TF1 while loop of f — a "frame" of Enter,
// Merge, Switch, LoopCond, NextIteration and Exit nodes, as
// tf.while_loop and tf.nn.dynamic_rnn build it in TensorFlow 1 graphs —
// into a While node over a condition function and a body function built
// from the frame's nodes and registered in m (ir.Module.AddFunction).
// The loop then unrolls like a TF2 loop (Step).
//
// Each loop variable is an Enter (is_constant false) feeding a Merge with
// a NextIteration, a Switch on the LoopCond, and optionally an Exit.
// Loop invariants are Enters with is_constant true; any other value the
// loop reads from outside its frame (a constant whose control input tied
// it to the frame, for instance) is passed in as an invariant too. The
// functions take the loop variables, then the invariants; the body
// returns the next loop values and the invariants unchanged. Nested
// loops are functionalised innermost first.
//
// It must run before f is sorted or simplified (a TF1 loop is a cycle).
// Errors name the frame and the node that does not fit the structure.
// HasV1Loops says beforehand whether there is anything to rewrite.
func FunctionalizeV1(f *ir.Function, m *ir.Module) error {
	for round := 0; ; round++ {
		if m == nil {
			for _, n := range f.Nodes {
				if n.TFL == nil && n.Op == "Enter" {
					return n.Errorf("TF1 loop needs a module to hold its functions")
				}
			}
			return nil
		}
		frames := map[string][]*ir.Node{}
		for _, n := range f.Nodes {
			if n.TFL == nil && n.Op == "Enter" {
				name, err := n.AttrString("frame_name", "")
				if err != nil {
					return err
				}
				frames[name] = append(frames[name], n)
			}
		}
		if len(frames) == 0 {
			if err := lowerV1Conds(f); err != nil {
				return err
			}
			return checkNoV1Left(f)
		}
		if round > len(f.Nodes) {
			return fmt.Errorf("%s: TF1 loops could not be functionalised (frames nest in a cycle)", f.Where())
		}
		names := make([]string, 0, len(frames))
		for k := range frames {
			names = append(names, k)
		}
		sort.Strings(names)
		uses := f.Uses()
		done := false
		for _, name := range names {
			body := frameClosure(frames[name], uses)
			inner := false
			for n := range body {
				if n.Op == "Enter" && !contains(frames[name], n) {
					inner = true
					break
				}
			}
			if inner {
				continue // an outer loop: wait for the loops inside it
			}
			if err := functionalize(f, m, name, frames[name], body, uses); err != nil {
				return err
			}
			done = true
			break
		}
		if !done {
			return fmt.Errorf("%s: TF1 loops could not be functionalised (no innermost frame among %s)", f.Where(), strings.Join(names, ", "))
		}
	}
}

// checkNoV1Left reports TF1 loop nodes outside any frame (a malformed
// loop, or TF1 cond's Switch/Merge, which tflrun does not convert).
func checkNoV1Left(f *ir.Function) error {
	for _, n := range f.Nodes {
		if n.TFL == nil && (n.Op == "NextIteration" || n.Op == "LoopCond" || n.Op == "Exit") {
			return n.Errorf("is TF1 loop control flow outside any loop frame (no Enter reaches it)")
		}
	}
	return nil
}

func contains(ns []*ir.Node, n *ir.Node) bool {
	for _, m := range ns {
		if m == n {
			return true
		}
	}
	return false
}

// frameClosure is every node reachable from the frame's Enters, stopping
// at (and including) Exit nodes.
func frameClosure(enters []*ir.Node, uses map[*ir.Value][]*ir.Node) map[*ir.Node]bool {
	in := map[*ir.Node]bool{}
	stack := append([]*ir.Node(nil), enters...)
	for _, e := range enters {
		in[e] = true
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Op == "Exit" {
			continue
		}
		for _, o := range n.Outputs {
			for _, u := range uses[o] {
				if !in[u] {
					in[u] = true
					stack = append(stack, u)
				}
			}
		}
	}
	return in
}

// loopVar is one loop variable's control nodes.
type loopVar struct {
	enter, merge, sw, next, exit *ir.Node
}

// functionalize replaces one innermost frame by a While node.
func functionalize(f *ir.Function, m *ir.Module, frame string, enters []*ir.Node, members map[*ir.Node]bool, uses map[*ir.Value][]*ir.Node) error {
	where := func(n *ir.Node, format string, args ...any) error {
		return n.Errorf("TF1 loop %q: %s", frame, fmt.Sprintf(format, args...))
	}
	var vars []loopVar
	var invariants []*ir.Node
	var loopCond *ir.Node
	for _, e := range enters {
		if len(e.Inputs) != 1 || e.Inputs[0] == nil || len(e.Outputs) != 1 {
			return where(e, "an Enter needs one input and one output")
		}
		isConst, err := e.AttrBool("is_constant", false)
		if err != nil {
			return err
		}
		var merge *ir.Node
		for _, u := range uses[e.Outputs[0]] {
			if u.Op == "Merge" {
				merge = u
			}
		}
		if isConst || merge == nil {
			invariants = append(invariants, e)
			continue
		}
		lv := loopVar{enter: e, merge: merge}
		if len(merge.Inputs) != 2 || len(merge.Outputs) < 1 {
			return where(merge, "a loop Merge needs two inputs")
		}
		for _, in := range merge.Inputs {
			if in != nil && in.Producer != nil && in.Producer.Op == "NextIteration" {
				lv.next = in.Producer
			}
		}
		if lv.next == nil || len(lv.next.Inputs) != 1 || lv.next.Inputs[0] == nil {
			return where(merge, "the Merge of loop variable %q has no NextIteration input", e.Name)
		}
		for _, u := range uses[merge.Outputs[0]] {
			if u.Op == "Switch" {
				if lv.sw != nil {
					return where(u, "loop variable %q has two Switch nodes", e.Name)
				}
				lv.sw = u
			}
		}
		if lv.sw == nil || len(lv.sw.Inputs) != 2 || len(lv.sw.Outputs) != 2 || lv.sw.Inputs[1] == nil || lv.sw.Inputs[1].Producer == nil {
			return where(merge, "loop variable %q has no Switch on the loop condition", e.Name)
		}
		lc := lv.sw.Inputs[1].Producer
		if lc.Op != "LoopCond" || len(lc.Inputs) != 1 || lc.Inputs[0] == nil {
			return where(lv.sw, "switches on %s, not on a LoopCond", lc)
		}
		if loopCond != nil && loopCond != lc {
			return where(lc, "the frame has two LoopCond nodes (%s and %s)", loopCond.Name, lc.Name)
		}
		loopCond = lc
		for _, u := range uses[lv.sw.Outputs[0]] {
			if u.Op == "Exit" {
				if lv.exit != nil {
					return where(u, "loop variable %q has two Exit nodes", e.Name)
				}
				lv.exit = u
			}
		}
		vars = append(vars, lv)
	}
	if loopCond == nil {
		return fmt.Errorf("%s: TF1 loop %q has no loop variable switched on a LoopCond", f.Where(), frame)
	}
	// Values inside the frame that stand for the functions' parameters.
	nv, ni := len(vars), len(invariants)
	param := map[*ir.Value]int{}
	for i, lv := range vars {
		param[lv.merge.Outputs[0]] = i
		param[lv.sw.Outputs[1]] = i
	}
	for j, e := range invariants {
		param[e.Outputs[0]] = nv + j
	}
	// Collect the nodes each function computes and the outside values
	// they read.
	var outside []*ir.Value
	outIdx := map[*ir.Value]int{}
	closure := func(roots []*ir.Value) (map[*ir.Node]bool, error) {
		need := map[*ir.Node]bool{}
		stack := append([]*ir.Value(nil), roots...)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if v == nil {
				continue
			}
			if _, ok := param[v]; ok {
				continue
			}
			p := v.Producer
			if p == nil || !members[p] {
				if _, ok := outIdx[v]; !ok {
					outIdx[v] = len(outside)
					outside = append(outside, v)
				}
				continue
			}
			if need[p] {
				continue
			}
			if v1Ops[p.Op] {
				return nil, where(p, "the loop body reads %q, an output of %s, which is not a loop variable's Switch", v.Name, p)
			}
			need[p] = true
			stack = append(stack, p.Inputs...)
		}
		return need, nil
	}
	condNodes, err := closure([]*ir.Value{loopCond.Inputs[0]})
	if err != nil {
		return err
	}
	roots := make([]*ir.Value, nv)
	for i, lv := range vars {
		roots[i] = lv.next.Inputs[0]
	}
	bodyNodes, err := closure(roots)
	if err != nil {
		return err
	}
	// Every node of the frame other than its control nodes must be
	// reachable only inside it (an Exit is the only way out).
	for n := range members {
		if n.Op == "Exit" {
			continue
		}
		for _, o := range n.Outputs {
			for _, u := range uses[o] {
				if !members[u] {
					return where(u, "reads %q from inside the loop without an Exit", o.Name)
				}
			}
		}
	}
	base := strings.TrimSuffix(frame, "/while_context")
	if base == "" {
		base = "while"
	}
	k := nv + ni + len(outside)
	types := make([]ir.DType, k)
	shapes := make([]ir.Shape, k)
	inits := make([]*ir.Value, k)
	for i, lv := range vars {
		inits[i] = lv.enter.Inputs[0]
	}
	for j, e := range invariants {
		inits[nv+j] = e.Inputs[0]
	}
	for t, v := range outside {
		inits[nv+ni+t] = v
	}
	for i, v := range inits {
		types[i], shapes[i] = v.DType, v.Shape
	}
	build := func(kind string, nodes map[*ir.Node]bool, results []*ir.Value) (*ir.Function, error) {
		name := uniqueFunctionName(m, "tf1_"+kind+"/"+base)
		g := ir.NewFunction(name, m)
		vm := map[*ir.Value]*ir.Value{}
		params := make([]*ir.Value, k)
		for i := 0; i < k; i++ {
			pn := fmt.Sprintf("arg%d", i)
			if i < nv {
				pn = vars[i].enter.Name
			} else if i < nv+ni {
				pn = invariants[i-nv].Name
			}
			params[i] = g.AddParam(pn, types[i], shapes[i].Clone())
			if i >= nv+ni {
				vm[outside[i-nv-ni]] = params[i]
			}
		}
		for v, idx := range param {
			vm[v] = params[idx]
		}
		var order []*ir.Node
		for _, n := range f.Nodes {
			if nodes[n] {
				order = append(order, n)
			}
		}
		copies := make([]*ir.Node, len(order))
		for i, n := range order {
			c := g.NewNode(n.Name, n.Op, nil, len(n.Outputs))
			for a, v := range n.Attrs {
				c.Attrs[a] = v
			}
			c.InlinedFrom = n.InlinedFrom
			for j, o := range n.Outputs {
				c.Outputs[j].DType, c.Outputs[j].Shape, c.Outputs[j].Const = o.DType, o.Shape.Clone(), o.Const
				vm[o] = c.Outputs[j]
			}
			copies[i] = c
		}
		sub := func(v *ir.Value) (*ir.Value, error) {
			if v == nil {
				return nil, nil
			}
			if w := vm[v]; w != nil {
				return w, nil
			}
			return nil, fmt.Errorf("TF1 loop %q: value %q has no counterpart in the %s function", frame, v.Name, kind)
		}
		for i, n := range order {
			for _, in := range n.Inputs {
				w, err := sub(in)
				if err != nil {
					return nil, n.Wrap(err)
				}
				copies[i].Inputs = append(copies[i].Inputs, w)
			}
		}
		for i, r := range results {
			w, err := sub(r)
			if err != nil {
				return nil, err
			}
			g.Results = append(g.Results, w)
			g.ResultNames = append(g.ResultNames, fmt.Sprintf("output_%d", i))
		}
		return g, m.AddFunction(g)
	}
	cond, err := build("cond", condNodes, []*ir.Value{loopCond.Inputs[0]})
	if err != nil {
		return err
	}
	bodyResults := append([]*ir.Value(nil), roots...)
	for j := range invariants {
		bodyResults = append(bodyResults, invariants[j].Outputs[0])
	}
	bodyResults = append(bodyResults, outside...)
	body, err := build("body", bodyNodes, bodyResults)
	if err != nil {
		return err
	}
	w := f.NewNode(base, "While", append([]*ir.Value(nil), inits...), k)
	w.Attrs["cond"] = attrFunc(cond.Name)
	w.Attrs["body"] = attrFunc(body.Name)
	tl := &tfpb.AttrValue_ListValue{}
	for _, t := range types {
		tl.Type = append(tl.Type, t.TF())
	}
	w.Attrs["T"] = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: tl}}
	for i := range w.Outputs {
		w.Outputs[i].DType, w.Outputs[i].Shape = types[i], shapes[i].Clone()
	}
	for i, lv := range vars {
		if lv.exit != nil {
			f.ReplaceAllUses(lv.exit.Outputs[0], w.Outputs[i])
		}
	}
	f.RemoveNodes(members)
	return nil
}

// uniqueFunctionName returns base, or base_N when m already has a
// function of that name.
func uniqueFunctionName(m *ir.Module, base string) string {
	name := base
	for i := 1; m.HasFunction(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
}

// HasV1Loops reports whether f holds a TF1 loop frame (an Enter node not
// yet legalised), that is, whether FunctionalizeV1 has anything to rewrite.
func HasV1Loops(f *ir.Function) bool {
	for _, n := range f.Nodes {
		if n.TFL == nil && n.Op == "Enter" {
			return true
		}
	}
	return false
}
