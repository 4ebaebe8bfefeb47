package fusion

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/ir"
)

// Some recurrent layers carry no annotation: Keras's SimpleRNN (and every
// layer whose options rule out the cuDNN-compatible path) runs its cell in
// a plain functional While loop inside the layer's call function. Loop
// rules recognise such loops by what their body computes. The converter
// offers each While loop of the entry function to the registry's loop
// rules once every function call is inlined, before lowering the loop
// itself (OfferLoops).
//
// A loop rule gets a Site whose Call is the While node and whose Caller
// is the entry function; Callee is nil and Attr "loop". It fuses by
// adding TFLite operators to the caller and rewiring the values that the
// loop's results flow into (the stacked output list, the final state),
// after which the loop is dead code; it refuses with a reason; or, for a
// loop that is not its kind at all, it returns a Result with neither
// Fused nor Reason set. A loop no rule takes appears in the report with
// no rule and the reason (what differs from a recurrent layer's loop).

// RegisterLoop adds a loop rule (tried in registration order).
func (r *Registry) RegisterLoop(rule Rule) error {
	if rule == nil {
		return fmt.Errorf("fusion: RegisterLoop needs a rule")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, old := range r.loops {
		if old.Name() == rule.Name() {
			return fmt.Errorf("fusion: loop rule %s is already registered", rule.Name())
		}
	}
	r.loops = append(r.loops, rule)
	return nil
}

// LoopRules returns the loop rules in registration order.
func (r *Registry) LoopRules() []Rule {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]Rule(nil), r.loops...)
}

// OfferLoops offers every While loop of f not offered before (seen
// records them) to reg's loop rules, and reports the loops a rule
// recognised. It returns true when a rule fused one (the caller should
// simplify f, which removes the dead loop, and call again). A rule error
// aborts; so does a rule that fused but left a loop output in use.
func OfferLoops(f *ir.Function, m *ir.Module, reg *Registry, report *Report, seen map[*ir.Node]bool) (bool, error) {
	rules := reg.LoopRules()
	if len(rules) == 0 {
		return false, nil
	}
	f.Budget.AddWork(len(f.Nodes))
	for _, n := range append([]*ir.Node(nil), f.Nodes...) {
		if !whileOps[n.Op] || seen[n] {
			continue
		}
		seen[n] = true
		body, _ := n.AttrFunc("body")
		body = stableBodyName(m, body)
		claimed := false
		site := &Site{Caller: f, Call: n, Attr: "loop", Name: body, Module: m}
		for _, rule := range rules {
			before := len(f.Nodes)
			res, err := Offer(rule, site)
			if err != nil {
				return false, fmt.Errorf("loop rule %s on %s: %w", rule.Name(), n, err)
			}
			if !res.Fused && len(f.Nodes) != before {
				return false, fmt.Errorf("loop rule %s refused %s but changed the graph", rule.Name(), n)
			}
			if !res.Fused && res.Reason == "" {
				continue // not this rule's kind of loop
			}
			claimed = true
			report.Add(Entry{Function: body, Call: n.Name, Attr: "loop", Implements: n.Op, Rule: rule.Name(),
				Fused: res.Fused, Reason: res.Reason, Ops: res.Ops})
			if !res.Fused {
				break
			}
			if loopLive(f, n) {
				return false, fmt.Errorf("loop rule %s fused %s but the model still depends on the loop", rule.Name(), n)
			}
			report.noteRolledLoops()
			return true, nil
		}
		if !claimed {
			report.Add(Entry{Function: body, Call: n.Name, Attr: "loop", Implements: n.Op,
				Reason: unclaimedLoopReason(site)})
		}
	}
	return false, nil
}

// unclaimedLoopReason says why no loop rule took a loop: what the
// analysis of the keras.backend.rnn shape found different, or that the
// body is no cell the rules know.
func unclaimedLoopReason(s *Site) string {
	L, err := s.analysedLoop()
	var ref *refusal
	switch {
	case errors.As(err, &ref):
		return "no loop rule recognises it: " + ref.reason
	case err != nil:
		return "no loop rule recognises it: " + err.Error()
	}
	return fmt.Sprintf("no loop rule recognises its body (%d float state(s)): not a SimpleRNN, LSTM or GRU cell with constant weights", len(L.states))
}

// loopLive reports whether a result or a state update of f still depends
// on the loop node.
func loopLive(f *ir.Function, loop *ir.Node) bool {
	live := map[*ir.Node]bool{}
	var stack []*ir.Node
	mark := func(v *ir.Value) {
		if v != nil && v.Producer != nil && !live[v.Producer] {
			live[v.Producer] = true
			stack = append(stack, v.Producer)
		}
	}
	for _, r := range f.Results {
		mark(r)
	}
	for _, n := range f.Nodes {
		if ir.IsStateUpdate(n) {
			for _, in := range n.Inputs {
				mark(in)
			}
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, in := range n.Inputs {
			mark(in)
		}
	}
	return live[loop]
}

// stableBodyName is the name the report gives a loop body: its own, or,
// for a body package controlflow made from a TF1 frame in an earlier
// conversion of the same model and so registered again under a numbered
// name (name_1, name_2, ...), the first conversion's name, so that
// converting a model twice reports the same. (Two frames of one graph
// with the same name are then reported under one function name; their
// Call names tell them apart.)
func stableBodyName(m *ir.Module, name string) string {
	if m == nil {
		return name
	}
	if _, ok := m.Library[name]; ok {
		return name
	}
	i := strings.LastIndexByte(name, '_')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	if base := name[:i]; m.HasFunction(base) {
		if _, lib := m.Library[base]; !lib {
			return base
		}
	}
	return name
}
