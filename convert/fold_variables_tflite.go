package convert

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tflite"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// A .tflite converted with resource variables kept (TensorFlow's
// experimental_enable_resource_variables) reads an LSTM's weights with
// READ_VARIABLE inside the loop body, from VAR_HANDLE handles the entry
// subgraph passes in as loop variables. TensorFlow's converter assigns
// such variables their checkpoint values in an initialisation subgraph
// that a CALL_ONCE at the top of the entry subgraph runs: ASSIGN_VARIABLE
// of a constant, once. A variable assigned that way and nowhere else
// holds that constant for every loop step, so the body's read is folded
// to it for the fusion rules, which need constant weights. Any other
// variable (assigned in the loop, by a non-constant, more than once, or
// never: its value is then not in the file and TensorFlow Lite refuses to
// read it) is left read, and the fusion report names it.

// varKey names a resource variable as TensorFlow Lite's VAR_HANDLE keys
// it: by container and shared name, across subgraphs.
type varKey struct{ container, shared string }

func (k varKey) String() string {
	if k.container == "" {
		return k.shared
	}
	return k.container + "/" + k.shared
}

// modelVars is what a model's subgraphs do with its resource variables.
type modelVars struct {
	// init is the constant of each variable whose only assignment is one
	// ASSIGN_VARIABLE of a constant in a subgraph only CALL_ONCE runs.
	init map[varKey]*ir.Tensor
	// initFn is the subgraph that assigns it.
	initFn map[varKey]*ir.Function
	// assigned counts the ASSIGN_VARIABLEs of each variable.
	assigned map[varKey]int
}

// handleKey is the variable a resource value is the VAR_HANDLE of.
func handleKey(v *ir.Value) (varKey, bool) {
	if v == nil || v.Producer == nil || v.Producer.TFL == nil || v.Producer.TFL.Builtin != schema.BuiltinOperatorVAR_HANDLE {
		return varKey{}, false
	}
	var o *schema.VarHandleOptionsT
	if t := v.Producer.TFL.Options; t != nil {
		o, _ = t.Value.(*schema.VarHandleOptionsT)
	}
	if o == nil {
		return varKey{}, true // TensorFlow Lite's default: the empty names
	}
	return varKey{o.Container, o.SharedName}, true
}

// readVars collects m's variable assignments.
func readVars(m *tflite.Model) *modelVars {
	mv := &modelVars{init: map[varKey]*ir.Tensor{}, initFn: map[varKey]*ir.Function{}, assigned: map[varKey]int{}}
	// Which subgraphs CALL_ONCE runs, and which any other operator does.
	once, other := map[*ir.Function]bool{}, map[*ir.Function]bool{}
	for _, f := range m.Subgraphs {
		for _, n := range f.Nodes {
			if n.TFL == nil {
				continue
			}
			for _, g := range n.TFL.Subgraphs {
				if n.TFL.Builtin == schema.BuiltinOperatorCALL_ONCE {
					once[g] = true
				} else {
					other[g] = true
				}
			}
		}
	}
	cand := map[varKey]*ir.Tensor{}
	for _, f := range m.Subgraphs {
		for _, n := range f.Nodes {
			if n.TFL == nil || n.TFL.Builtin != schema.BuiltinOperatorASSIGN_VARIABLE || len(n.Inputs) != 2 {
				continue
			}
			k, ok := handleKey(n.Inputs[0])
			if !ok {
				// A handle that is not a VAR_HANDLE of this subgraph
				// (a parameter): which variable it is depends on the
				// caller; count it against every variable.
				k = varKey{"\x00", "?"}
			}
			mv.assigned[k]++
			if ok && once[f] && !other[f] && n.Inputs[1] != nil && n.Inputs[1].Const != nil {
				cand[k] = n.Inputs[1].Const
				mv.initFn[k] = f
			}
		}
	}
	if mv.assigned[varKey{"\x00", "?"}] > 0 {
		return mv
	}
	for k, t := range cand {
		if mv.assigned[k] == 1 {
			mv.init[k] = t
		}
	}
	return mv
}

// initialised reports whether a CALL_ONCE running the subgraph that
// assigns k comes before node w in f (so that every read w makes sees
// the constant).
func (mv *modelVars) initialised(f *ir.Function, w *ir.Node, k varKey) bool {
	g := mv.initFn[k]
	for _, n := range f.Nodes {
		if n == w {
			return false
		}
		if n.TFL != nil && n.TFL.Builtin == schema.BuiltinOperatorCALL_ONCE && slices.Contains(n.TFL.Subgraphs, g) {
			return true
		}
	}
	return false
}

// loopVar is the variable a READ_VARIABLE of loop function g reads: a
// VAR_HANDLE in g, or one the loop passes in as loop variable.
func loopVar(n *ir.Node, loopInputs []*ir.Value) (varKey, bool) {
	if len(n.Inputs) != 1 || n.Inputs[0] == nil {
		return varKey{}, false
	}
	h := n.Inputs[0]
	if h.IsParam() {
		if h.Index < 0 || h.Index >= len(loopInputs) {
			return varKey{}, false
		}
		h = loopInputs[h.Index]
	}
	return handleKey(h)
}

// foldReads turns each READ_VARIABLE of loop function g (a private copy)
// whose variable holds its init constant into that constant; w is the
// WHILE in entry function f.
func (mv *modelVars) foldReads(g, f *ir.Function, w *ir.Node, loopInputs []*ir.Value) {
	for _, n := range g.Nodes {
		if n.TFL == nil || n.TFL.Builtin != schema.BuiltinOperatorREAD_VARIABLE || len(n.Outputs) != 1 {
			continue
		}
		k, ok := loopVar(n, loopInputs)
		t := mv.init[k]
		if !ok || t == nil || !mv.initialised(f, w, k) || t.DType != n.Outputs[0].DType {
			continue
		}
		if g.Budget != nil {
			g.Budget.Add(t, func() string { return fmt.Sprintf("%s: variable %s folded", g.Where(), k) })
		}
		n.Op, n.TFL, n.Inputs = "Const", nil, nil
		n.SetAttrType("dtype", t.DType)
		v := n.Outputs[0]
		v.Shape, v.Const = t.Shape.Clone(), t
	}
}

// why says, for the report, why the variables the READ_VARIABLEs left in
// raised loop function g read were not folded.
func (mv *modelVars) why(g *ir.Function, loopInputs []*ir.Value) string {
	var never, other []string
	for _, n := range g.Nodes {
		if n.TFL == nil || n.TFL.Builtin != schema.BuiltinOperatorREAD_VARIABLE {
			continue
		}
		k, ok := loopVar(n, loopInputs)
		switch {
		case !ok:
			other = append(other, "a handle not made by VAR_HANDLE")
		case mv.assigned[k] == 0:
			never = append(never, k.String())
		default:
			other = append(other, k.String())
		}
	}
	sort.Strings(never)
	sort.Strings(other)
	never, other = slices.Compact(never), slices.Compact(other)
	var s []string
	if len(never) > 0 {
		s = append(s, fmt.Sprintf("it reads resource variable(s) %s, which nothing in the model assigns: their values are not in the file, and TensorFlow Lite refuses the read", strings.Join(never, ", ")))
	}
	if len(other) > 0 {
		s = append(s, fmt.Sprintf("it reads resource variable(s) %s, not assigned once from a constant by a CALL_ONCE init subgraph before the loop", strings.Join(other, ", ")))
	}
	return strings.Join(s, "; ")
}

// dropDeadVariables removes, from every subgraph of m, the resource
// variables no output depends on: every use of each of their VAR_HANDLEs
// is an ASSIGN_VARIABLE of it or a READ_VARIABLE whose value reaches,
// through operators without effects, only assignments of such
// variables (Keras's dropout seed generators, which each call advances
// and a re-fused model no longer reads, are of this kind). Their
// assignments go, then what no longer feeds a result, then each
// CALL_ONCE whose initialisation subgraph was left empty (and with it
// that subgraph, which no operator runs any more). It returns the
// variables dropped, sorted. A variable passed to any other operator
// (a loop, a call) is kept.
func dropDeadVariables(m *tflite.Model) []string {
	handles := map[varKey][]*ir.Value{}
	owner := map[*ir.Value]*ir.Function{}
	for _, f := range m.Subgraphs {
		for _, n := range f.Nodes {
			if n.TFL != nil && n.TFL.Builtin == schema.BuiltinOperatorVAR_HANDLE && len(n.Outputs) == 1 {
				k, _ := handleKey(n.Outputs[0])
				handles[k] = append(handles[k], n.Outputs[0])
				owner[n.Outputs[0]] = f
			}
		}
	}
	dead := map[varKey]bool{}
	for k := range handles {
		dead[k] = true
	}
	// reaches reports whether v, in f, reaches a result, an operator with
	// effects or an assignment of a variable not (yet) dead.
	reaches := func(f *ir.Function, v *ir.Value) bool {
		seen := map[*ir.Value]bool{v: true}
		work := []*ir.Value{v}
		for len(work) > 0 {
			x := work[len(work)-1]
			work = work[:len(work)-1]
			if f.IsResult(x) {
				return true
			}
			for _, u := range f.Users(x) {
				if u.TFL == nil || len(u.TFL.Subgraphs) > 0 {
					return true
				}
				if u.TFL.Builtin == schema.BuiltinOperatorASSIGN_VARIABLE {
					k, ok := handleKey(u.Inputs[0])
					if !ok || !dead[k] || u.Inputs[0] == x {
						return true
					}
					continue
				}
				if len(u.Outputs) == 0 {
					return true
				}
				for _, o := range u.Outputs {
					if !seen[o] {
						seen[o] = true
						work = append(work, o)
					}
				}
			}
		}
		return false
	}
	live := func(k varKey) bool {
		for _, h := range handles[k] {
			f := owner[h]
			if f.IsResult(h) {
				return true
			}
			for _, u := range f.Users(h) {
				switch {
				case u.TFL != nil && u.TFL.Builtin == schema.BuiltinOperatorASSIGN_VARIABLE && len(u.Inputs) == 2 && u.Inputs[0] == h && u.Inputs[1] != h:
				case u.TFL != nil && u.TFL.Builtin == schema.BuiltinOperatorREAD_VARIABLE && len(u.Outputs) == 1:
					if reaches(f, u.Outputs[0]) {
						return true
					}
				default:
					return true
				}
			}
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		for k := range dead {
			if live(k) {
				delete(dead, k)
				changed = true
			}
		}
	}
	if len(dead) == 0 {
		return nil
	}
	for _, f := range m.Subgraphs {
		gone := map[*ir.Node]bool{}
		for _, n := range f.Nodes {
			if n.TFL != nil && n.TFL.Builtin == schema.BuiltinOperatorASSIGN_VARIABLE && len(n.Inputs) == 2 {
				if k, ok := handleKey(n.Inputs[0]); ok && dead[k] {
					gone[n] = true
				}
			}
		}
		f.RemoveNodes(gone)
		f.RemoveUnused()
	}
	for _, f := range m.Subgraphs {
		gone := map[*ir.Node]bool{}
		for _, n := range f.Nodes {
			if n.TFL != nil && n.TFL.Builtin == schema.BuiltinOperatorCALL_ONCE && len(n.TFL.Subgraphs) == 1 && len(n.TFL.Subgraphs[0].Nodes) == 0 {
				gone[n] = true
			}
		}
		f.RemoveNodes(gone)
	}
	var names []string
	for k := range dead {
		names = append(names, k.String())
	}
	sort.Strings(names)
	return names
}
