package controlflow

import (
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/passes"
	"github.com/tflrun/tflrun/convert/ir"
)

// loopOps are the functional control-flow ops Step lowers.
var loopOps = map[string]bool{"While": true, "StatelessWhile": true, "If": true, "StatelessIf": true}

// Step lowers one piece of control flow in f, which must be free of
// function calls and topologically sorted (as the converter's
// simplification leaves it): the first While/StatelessWhile (unrolled)
// or If/StatelessIf (replaced by the branch its constant condition
// selects), or else every TensorList and TensorArray op whose indices are
// constant. It reports whether it changed f; false means nothing is left
// to lower. maxNodes bounds the size of f while unrolling (0: no bound).
//
// Errors name the loop node and function: a condition that does not fold
// to a constant (the trip count is not static), more than MaxLoopIterations
// iterations (the Limits of f's Budget), a body whose signature does not match the loop, a list
// index that is not constant or out of range, a graph grown past
// maxNodes.
func Step(f *ir.Function, m *ir.Module, maxNodes int) (bool, error) {
	// Lists produced by loops already unrolled are resolved first, so a
	// later loop consuming their stacked items sees static shapes.
	if changed, err := resolveLists(f, false); err != nil || changed {
		return changed, err
	}
	f.Budget.AddWork(len(f.Nodes))
	for _, n := range f.Nodes {
		if n.TFL != nil || !loopOps[n.Op] {
			continue
		}
		var err error
		if n.Op == "If" || n.Op == "StatelessIf" {
			err = lowerIf(f, m, n)
		} else {
			err = unrollWhile(f, m, n, maxNodes)
		}
		return err == nil, err
	}
	return resolveLists(f, true)
}

// unrollWhile replaces the loop node w by its body inlined once per
// iteration.
func unrollWhile(f *ir.Function, m *ir.Module, w *ir.Node, maxNodes int) error {
	condName, err := w.AttrFunc("cond")
	if err != nil {
		return err
	}
	bodyName, err := w.AttrFunc("body")
	if err != nil {
		return err
	}
	cond, err := m.Function(condName)
	if err != nil {
		return w.Wrap(err)
	}
	body, err := m.Function(bodyName)
	if err != nil {
		return w.Wrap(err)
	}
	for _, outer := range w.InlinedFrom {
		if outer == bodyName || outer == condName {
			return w.Errorf("loop body %s (or condition %s) contains this loop itself", bodyName, condName)
		}
	}
	k := len(w.Inputs)
	if len(body.Params) != k || len(body.Results) != k || len(cond.Params) != k || len(w.Outputs) != k {
		return w.Errorf("loop has %d values and %d outputs, but body %s takes %d and returns %d, and condition %s takes %d",
			k, len(w.Outputs), bodyName, len(body.Params), len(body.Results), condName, len(cond.Params))
	}
	if len(cond.Results) != 1 {
		return w.Errorf("condition %s returns %d values, want 1", condName, len(cond.Results))
	}
	for i, v := range w.Inputs {
		if v == nil {
			return w.Errorf("loop value %d is missing", i)
		}
	}
	vals := append([]*ir.Value(nil), w.Inputs...)
	// Values the body passes through unchanged are the same in every
	// iteration: what the body computes from them alone (a weight's
	// transpose, its gate slices, a variable's read) is folded once here
	// instead of once per iteration.
	body, err = foldInvariants(f, w, body)
	if err != nil {
		return err
	}
	// Each iteration inlines a copy of the body and replaces the call's
	// outputs: with uses tracked that costs the copy, not the graph.
	defer f.TrackUses()()
	for iter := 0; ; iter++ {
		more, err := evalCond(f, w, cond, vals, iter)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		if limit := f.Budget.Get().MaxLoopIterations; iter >= limit {
			return w.Errorf("loop runs more than %d iterations (%s); tflrun unrolls loops and stops there", limit, f.Budget.Name("MaxLoopIterations"))
		}
		call := f.NewNode(fmt.Sprintf("%s/iteration_%d", w.Name, iter), bodyName, vals, k)
		call.InlinedFrom = w.InlinedFrom
		next, err := inlineCall(f, call, body)
		if err != nil {
			return w.Wrap(err)
		}
		vals = next
		if maxNodes > 0 && len(f.Nodes) > maxNodes {
			return w.Errorf("unrolling the loop makes %d nodes at iteration %d, past the node budget of %d (%s)", len(f.Nodes), iter, maxNodes, f.Budget.Name("MaxNodes"))
		}
	}
	for i, o := range w.Outputs {
		if o.Shape == nil && vals[i].Shape != nil {
			o.Shape = vals[i].Shape
		}
		f.ReplaceAllUses(o, vals[i])
	}
	f.RemoveNodes(map[*ir.Node]bool{w: true})
	return nil
}

// foldInvariants returns body with the loop-invariant values that are
// known at conversion time (constants and resolved variables, passed
// through unchanged by the body, possibly via Identity) bound to the
// loop's inputs and simplified, so that per-iteration specialisation
// starts from the folded body. It returns body itself when no input
// qualifies.
func foldInvariants(f *ir.Function, w *ir.Node, body *ir.Function) (*ir.Function, error) {
	var inv []int
	for i, in := range w.Inputs {
		if (in.Const != nil || in.Variable != nil) && passesThrough(body, i) {
			inv = append(inv, i)
		}
	}
	if len(inv) == 0 {
		return body, nil
	}
	g := body.Clone()
	g.Budget = f.Budget
	for _, i := range inv {
		p, in := g.Params[i], w.Inputs[i]
		if p.DType != ir.Invalid && in.DType != ir.Invalid && p.DType != in.DType {
			return body, nil // Specialize names the mismatch at the first iteration
		}
		if p.DType == ir.Invalid {
			p.DType = in.DType
		}
		if s, ok := ir.Merge(in.Shape, p.Shape); ok {
			p.Shape = s
		} else {
			p.Shape = in.Shape.Clone()
		}
		p.Const, p.Variable = in.Const, in.Variable
	}
	if err := passes.Simplify(g); err != nil {
		return nil, w.Wrap(err)
	}
	return g, nil
}

// passesThrough reports whether body returns its parameter i as result i,
// directly or through Identity nodes.
func passesThrough(body *ir.Function, i int) bool {
	if i >= len(body.Results) || i >= len(body.Params) {
		return false
	}
	v := body.Results[i]
	for v != nil && v.Producer != nil && (v.Producer.Op == "Identity" || v.Producer.Op == "Snapshot") && len(v.Producer.Inputs) >= 1 {
		v = v.Producer.Inputs[0]
	}
	return v == body.Params[i]
}

// evalCond specialises the loop condition to the current loop values and
// returns its constant value.
func evalCond(f *ir.Function, w *ir.Node, cond *ir.Function, vals []*ir.Value, iter int) (bool, error) {
	probe := &ir.Node{Name: fmt.Sprintf("%s/cond_%d", w.Name, iter), Op: cond.Name, Inputs: vals, Func: f, InlinedFrom: w.InlinedFrom}
	probe.SetNumOutputs(1)
	spec, err := passes.Specialize(cond, probe)
	if err != nil {
		return false, w.Wrap(err)
	}
	r := spec.Results[0]
	c := r.Const
	if c == nil && r.IsParam() {
		if i := paramIndex(spec, r); i >= 0 {
			c = vals[i].Const
		}
	}
	if c == nil {
		why := "it depends on values that are not constants"
		if r.Producer != nil {
			why = fmt.Sprintf("it is computed by %s from values that are not constants", r.Producer)
		}
		if stop := f.Budget.FoldStopped(); stop != "" {
			return false, w.Errorf("condition %s does not fold to a constant at iteration %d because constant folding stopped at its budget of %d bytes (%s) while folding %s; raise the budget", cond.Name, iter, f.Budget.Get().MaxFoldedBytes, f.Budget.Name("MaxFoldedBytes"), stop)
		}
		return false, w.Errorf("the loop's trip count is not static: condition %s does not fold to a constant at iteration %d (%s); pin dynamic dimensions (time, batch) with --input_shapes", cond.Name, iter, why)
	}
	if c.NumElements() != 1 {
		return false, w.Errorf("condition %s yields %d values at iteration %d, want one", cond.Name, c.NumElements(), iter)
	}
	return truth(c), nil
}

// truth is TensorFlow's conversion of a one-element predicate to bool.
func truth(t *ir.Tensor) bool {
	if t.DType.IsFloat() {
		return t.Float64s()[0] != 0
	}
	return t.Int64s()[0] != 0
}

// paramIndex returns the position of v among g's parameters, or -1.
func paramIndex(g *ir.Function, v *ir.Value) int {
	for i, p := range g.Params {
		if p == v {
			return i
		}
	}
	return -1
}

// inlineCall specialises callee to call (a node already in f), inlines it
// and returns the values now standing for the call's outputs.
func inlineCall(f *ir.Function, call *ir.Node, callee *ir.Function) ([]*ir.Value, error) {
	spec, err := passes.Specialize(callee, call)
	if err != nil {
		return nil, err
	}
	out := make([]*ir.Value, len(spec.Results))
	for i, r := range spec.Results {
		if j := paramIndex(spec, r); j >= 0 {
			out[i] = call.Inputs[j]
		} else {
			out[i] = r
		}
	}
	if err := f.Inline(call, spec); err != nil {
		return nil, err
	}
	return out, nil
}

// lowerIf replaces a conditional whose predicate is a constant by the
// selected branch, and one whose predicate is known only at run time by
// both branches and a SelectV2 per output (selectIf).
func lowerIf(f *ir.Function, m *ir.Module, n *ir.Node) error {
	if len(n.Inputs) == 0 || n.Inputs[0] == nil {
		return n.Errorf("conditional has no predicate input")
	}
	pred := n.Inputs[0]
	if pred.Const == nil {
		return selectIf(f, m, n)
	}
	if pred.Const.NumElements() != 1 {
		return n.Errorf("the predicate %q has %d elements, want one", pred.Name, pred.Const.NumElements())
	}
	attr := "else_branch"
	if truth(pred.Const) {
		attr = "then_branch"
	}
	name, err := n.AttrFunc(attr)
	if err != nil {
		return err
	}
	branch, err := m.Function(name)
	if err != nil {
		return n.Wrap(err)
	}
	args := n.Inputs[1:]
	if len(branch.Params) != len(args) || len(branch.Results) != len(n.Outputs) {
		return n.Errorf("branch %s takes %d inputs and returns %d, the conditional passes %d and expects %d",
			name, len(branch.Params), len(branch.Results), len(args), len(n.Outputs))
	}
	for _, v := range args {
		if v == nil {
			return n.Errorf("an input of the conditional is missing")
		}
	}
	defer f.TrackUses()()
	outs, err := inlineBranch(f, n, attr, name, branch)
	if err != nil {
		return err
	}
	for i, o := range n.Outputs {
		f.ReplaceAllUses(o, outs[i])
	}
	f.RemoveNodes(map[*ir.Node]bool{n: true})
	return nil
}

// inlineBranch inlines one branch (function name, the conditional's attr)
// of the conditional n with n's arguments, returning its results.
func inlineBranch(f *ir.Function, n *ir.Node, attr, name string, branch *ir.Function) ([]*ir.Value, error) {
	call := f.NewNode(n.Name+"/"+attr, name, append([]*ir.Value(nil), n.Inputs[1:]...), len(n.Outputs))
	call.InlinedFrom = n.InlinedFrom
	outs, err := inlineCall(f, call, branch)
	if err != nil {
		return nil, n.Wrap(err)
	}
	return outs, nil
}

// selectIf lowers a conditional whose predicate is known only at run
// time, without TFLite's IF (the converter writes one subgraph): both
// branches are inlined and each output becomes SelectV2(pred, then,
// else), which computes the same as long as the branches have no side
// effect (they are checked: no variable writes, random numbers, asserts,
// prints or calls, which an untaken branch must not do) and the
// predicate is one element (broadcast by SELECT_V2). Both branches run,
// so the model does the work of both.
func selectIf(f *ir.Function, m *ir.Module, n *ir.Node) error {
	pred := n.Inputs[0]
	if k, ok := pred.Shape.NumElements(); !ok || k != 1 {
		return n.Errorf("the predicate %q (shape %s) is not a constant at conversion time, nor known to be one element; tflrun converts such a conditional only as a select of its branches, which needs a one-element predicate", pred.Name, pred.Shape)
	}
	var outs [2][]*ir.Value
	var names [2]string
	branches := [2]*ir.Function{}
	for b, attr := range []string{"then_branch", "else_branch"} {
		name, err := n.AttrFunc(attr)
		if err != nil {
			return err
		}
		branch, err := m.Function(name)
		if err != nil {
			return n.Wrap(err)
		}
		if len(branch.Params) != len(n.Inputs)-1 || len(branch.Results) != len(n.Outputs) {
			return n.Errorf("branch %s takes %d inputs and returns %d, the conditional passes %d and expects %d",
				name, len(branch.Params), len(branch.Results), len(n.Inputs)-1, len(n.Outputs))
		}
		if op := sideEffect(branch); op != "" {
			return n.Errorf("the predicate %q is not a constant at conversion time, and branch %s has a side effect (%s), so it cannot run unconditionally as a select of both branches", pred.Name, name, op)
		}
		names[b], branches[b] = name, branch
	}
	for _, v := range n.Inputs[1:] {
		if v == nil {
			return n.Errorf("an input of the conditional is missing")
		}
	}
	defer f.TrackUses()()
	for b, attr := range []string{"then_branch", "else_branch"} {
		o, err := inlineBranch(f, n, attr, names[b], branches[b])
		if err != nil {
			return err
		}
		outs[b] = o
	}
	// SelectV2 wants a boolean condition; TensorFlow's If takes any
	// one-element predicate, true when not zero.
	cond := pred
	if pred.DType != ir.Bool {
		ne := f.NewNode(n.Name+"/predicate", "NotEqual", []*ir.Value{pred, f.NewConst(n.Name+"/zero", zeroOf(pred.DType))}, 1)
		ne.InlinedFrom = n.InlinedFrom
		ne.SetAttrType("T", pred.DType)
		ne.Outputs[0].DType, ne.Outputs[0].Shape = ir.Bool, pred.Shape.Clone()
		cond = ne.Outputs[0]
	}
	for i, o := range n.Outputs {
		t, e := outs[0][i], outs[1][i]
		if t == e {
			f.ReplaceAllUses(o, t)
			continue
		}
		if t.DType != e.DType && t.DType != ir.Invalid && e.DType != ir.Invalid {
			return n.Errorf("output %d is %s in branch %s and %s in branch %s", i, t.DType, names[0], e.DType, names[1])
		}
		sel := f.NewNode(fmt.Sprintf("%s/select_%d", n.Name, i), "SelectV2", []*ir.Value{cond, t, e}, 1)
		sel.InlinedFrom = n.InlinedFrom
		dt := t.DType
		if dt == ir.Invalid {
			dt = e.DType
		}
		sel.SetAttrType("T", dt)
		sel.Outputs[0].DType = dt
		if s, ok := ir.Merge(t.Shape, e.Shape); ok {
			sel.Outputs[0].Shape = s
		}
		sel.Outputs[0].Name = o.Name
		f.ReplaceAllUses(o, sel.Outputs[0])
	}
	f.RemoveNodes(map[*ir.Node]bool{n: true})
	return nil
}

// zeroOf is a scalar zero of type dt.
func zeroOf(dt ir.DType) *ir.Tensor {
	t, _ := ir.FromFloat64s(dt, ir.Scalar(), []float64{0})
	return t
}

// sideEffect names the first op of g that a branch run unconditionally
// must not have ("" if none): a write of a variable, a random number, an
// assertion or print, or a call (whose body is not checked here).
func sideEffect(g *ir.Function) string {
	for _, n := range g.Nodes {
		if s := sideEffectNode(n); s != "" {
			return s
		}
	}
	return ""
}

// sideEffectNode is sideEffect for one node.
func sideEffectNode(n *ir.Node) string {
	if n.TFL != nil {
		return ""
	}
	op := n.Op
	switch {
	case strings.HasPrefix(op, "Assign"), strings.HasPrefix(op, "ResourceApply"), strings.HasPrefix(op, "Random"),
		strings.HasPrefix(op, "ResourceScatter"), op == "Assert", op == "Print", op == "PrintV2",
		op == "ParameterizedTruncatedNormal", op == "TruncatedNormal", op == "Multinomial":
		return fmt.Sprintf("%s, op %s", n.Name, op)
	}
	for _, a := range n.Attrs {
		if a.GetFunc() != nil {
			return fmt.Sprintf("%s calls %s", n.Name, a.GetFunc().GetName())
		}
	}
	return ""
}
