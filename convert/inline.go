package convert

import (
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/internal/passes"
	"github.com/tflrun/tflrun/convert/ir"
)

// maxCallDepth bounds nested inlining.
const maxCallDepth = 256

// inlineCall is the inline-call step of the inline loop: the first call
// of f in topological order is offered to the fusion registry when its
// callee is annotated, and inlined when no rule fused it. It does not
// apply when f has no call left. Errors: a cycle of calls (naming the
// chain), a function missing from the library, a call not matching its
// function, the MaxNodes budget exceeded, a rule's error, or a rule that
// fused but left an output of the call in use.
func inlineCall(s *state) (bool, error) {
	f, m, opts := s.f, s.m, s.opts
	var call *ir.Node
	var name string
	var err error
	if s.inc != nil {
		call, name, err = s.inc.FirstCall(m)
	} else {
		call, name, err = firstCall(f, m)
	}
	if err != nil || call == nil {
		return false, err
	}
	for i, outer := range call.InlinedFrom {
		if outer == name {
			chain := append(append([]string(nil), call.InlinedFrom[i:]...), name)
			return false, call.Errorf("function calls form a cycle: %s", strings.Join(chain, " → "))
		}
	}
	if len(call.InlinedFrom) >= maxCallDepth {
		return false, call.Errorf("function calls nest more than %d deep", maxCallDepth)
	}
	callee, err := m.Function(name)
	if err != nil {
		return false, call.Wrap(err)
	}
	var seen []passes.ValueState
	if s.inc != nil {
		seen = s.inc.Seen(call)
	}
	spec, err := passes.Specialize(callee, call)
	if err != nil {
		return false, err
	}
	if attr, impl, ok := spec.Implements(); ok {
		if _, has := s.reg.Lookup(impl); has && !opts.NoFuse {
			s.release() // a rule reads the caller's nodes, in order
		}
		fused, err := offer(f, m, call, spec, name, attr, impl, s.reg, opts, s.report)
		if err != nil {
			return false, err
		}
		if fused {
			return true, nil
		}
	}
	if err := s.budget.CheckNodes(f, len(spec.Nodes), "inlining "+name); err != nil {
		return false, err
	}
	if s.inc != nil {
		err = s.inc.Inline(call, spec, seen)
	} else {
		err = f.Inline(call, spec)
	}
	if err != nil {
		return false, err
	}
	if _, err := opts.cut.try(f); err != nil {
		return false, err
	}
	return true, nil
}

// firstCall returns the first call node in topological order.
func firstCall(f *ir.Function, m *ir.Module) (*ir.Node, string, error) {
	for _, n := range f.Nodes {
		f.Budget.AddWork(1)
		name, ok, err := passes.CallTarget(m, n)
		if err != nil {
			return nil, "", err
		}
		if ok {
			return n, name, nil
		}
	}
	return nil, "", nil
}

// NoFuseReason is the fusion report's reason for a composite call left
// unfused because Options.NoFuse (--no-fuse) is set.
const NoFuseReason = "--no-fuse (Options.NoFuse) lowers composites op by op"

// offer gives a composite call to its rule and records the outcome.
func offer(f *ir.Function, m *ir.Module, call *ir.Node, spec *ir.Function, name, attr, impl string,
	reg *fusion.Registry, opts Options, report *fusion.Report) (bool, error) {
	e := fusion.Entry{Function: name, Call: call.Name, Attr: attr, Implements: impl}
	defer func() { report.Add(e) }()
	if opts.NoFuse {
		e.Reason = NoFuseReason
		return false, nil
	}
	rule, ok := reg.Lookup(impl)
	if !ok {
		e.Reason = "no fusion rule registered for this annotation; lowered op by op"
		return false, nil
	}
	e.Rule = rule.Name()
	before := len(f.Nodes)
	res, err := fusion.Offer(rule, &fusion.Site{Caller: f, Call: call, Callee: spec, Attr: attr, Name: impl, Module: m})
	if err != nil {
		return false, fmt.Errorf("fusion rule %s on call %q of %s: %w", rule.Name(), call.Name, name, err)
	}
	e.Fused, e.Reason, e.Ops = res.Fused, res.Reason, res.Ops
	if !res.Fused {
		if len(f.Nodes) != before {
			return false, fmt.Errorf("fusion rule %s refused call %q of %s but changed the graph", rule.Name(), call.Name, name)
		}
		return false, nil
	}
	for i, o := range call.Outputs {
		for _, n := range f.Nodes {
			if n == call {
				continue
			}
			for _, in := range n.Inputs {
				if in == o {
					return false, fmt.Errorf("fusion rule %s fused call %q of %s but output %d is still used by %s", rule.Name(), call.Name, name, i, n)
				}
			}
		}
		if f.IsResult(o) {
			return false, fmt.Errorf("fusion rule %s fused call %q of %s but output %d is still a result", rule.Name(), call.Name, name, i)
		}
	}
	f.RemoveNodes(map[*ir.Node]bool{call: true})
	return true, nil
}
