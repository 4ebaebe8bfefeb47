package fusion

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
)

// ConstInput returns the value call input i has at conversion time: a
// constant, or the checkpoint value of the resolved variable a resource
// handle refers to. It is nil when the input is computed at run time (or
// i is out of range).
func (s *Site) ConstInput(i int) *ir.Tensor {
	if i < 0 || i >= len(s.Call.Inputs) {
		return nil
	}
	return constValue(s.Call.Inputs[i])
}

// Evaluate runs the composite's body (the specialised Callee) at
// conversion time with its parameters bound to inputs (a nil entry keeps
// what the call passes: its constant, or nothing) and returns its results,
// nil where a result cannot be computed at conversion time (it depends on
// an unbound input, or on an op tflrun cannot fold). It lets a rule check
// what a body computes on probe values before fusing it. The site is not
// modified. Errors: more inputs than parameters, a malformed body.
func (s *Site) Evaluate(inputs []*ir.Tensor) ([]*ir.Tensor, error) {
	g := s.Callee
	if g == nil {
		return nil, fmt.Errorf("site %s has no function body to evaluate", s.Call.Name)
	}
	if len(inputs) > len(g.Params) {
		return nil, fmt.Errorf("%d inputs for %s, which takes %d", len(inputs), g.Name, len(g.Params))
	}
	bind := map[*ir.Value]binding{}
	for i, t := range inputs {
		if t != nil {
			bind[g.Params[i]] = binding{t: t}
		}
	}
	return evaluate(g, bind, g.Results)
}
