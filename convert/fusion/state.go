package fusion

import (
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/ir"
)

// A fused recurrent operator keeps its state in TFLite variable tensors:
// they start at zero and the operator writes the final state back after
// every invoke. Two Keras arrangements map onto that exactly:
//
//   - a layer started from zeros (the usual, non-stateful layer). Like
//     TensorFlow Lite's converted models, the fused model then carries its
//     state from one invoke to the next; an application that wants every
//     invoke to start afresh resets the variable tensors
//     (interpreter.ResetVariableTensors) between invokes;
//   - a stateful layer (stateful=True): the initial state is a read of a
//     resource variable the model updates (package stateful marks it,
//     ir.Variable.State) and the final state is assigned back to it. The
//     rule feeds the operator a variable tensor and makes the assignment
//     store that same tensor; package stateful then drops the assignment
//     and lets the variable's other reads use the tensor, so the state
//     lives inside the model as in TensorFlow Lite's fused DTLN. The
//     checkpoint value is the state at the first invoke in TensorFlow;
//     variable tensors start at zero, which is what Keras's
//     reset_states() gives (the report notes a checkpoint holding another
//     state).
//
// Any other initial state (a non-zero constant, a tensor computed at run
// time) has no place in the fused operator, and the rule refuses.

// stateUse is what one recurrent state of a composite call becomes.
type stateUse struct {
	what string
	// variable is the updated resource variable of a stateful layer (nil
	// for a layer started from zeros).
	variable *ir.Variable
	// assigns are the assignments of the final state to variable; they
	// are redirected to the state tensor.
	assigns []*ir.Node
	// tensor is the operator's variable tensor for this state (set when
	// emitting).
	tensor *ir.Value
	// note is a remark for the report ("" when none).
	note string
}

// stateVariable returns the variable a value is a read of: a
// ReadVariableOp of a handle bound to a resolved variable.
func stateVariable(v *ir.Value) *ir.Variable {
	if v == nil || v.Producer == nil || v.Producer.Op != "ReadVariableOp" || len(v.Producer.Inputs) == 0 || v.Producer.Inputs[0] == nil {
		return nil
	}
	return v.Producer.Inputs[0].Variable
}

// analyseState decides how one state of a composite call maps to a
// variable tensor: init is the loop's initial value in the callee, finals
// the call outputs that are this state's final value. With returnState,
// the final state may also be used by other nodes (the operator outputs
// it).
func analyseState(s *Site, what string, init *ir.Value, finals []int, returnState bool) (*stateUse, error) {
	src := init
	if stateVariable(init) == nil && init.IsParam() && init.Const == nil {
		j, ok := paramIndex(s.Callee, init)
		if !ok {
			return nil, refuse("the initial %s state is not an input of the layer", what)
		}
		src = s.Call.Inputs[j]
	} else if stateVariable(init) == nil && init.Const == nil {
		return nil, refuse("the initial %s state is computed inside the layer at run time", what)
	}
	outs := make([]stateOut, len(finals))
	for k, i := range finals {
		outs[k] = stateOut{s.Call.Outputs[i], fmt.Sprintf("call output %d", i)}
	}
	return initialState(s.Caller, what, src, outs, returnState)
}

// stateOut is a value holding a state's final value, and how the report
// names it.
type stateOut struct {
	v    *ir.Value
	desc string
}

// initialState decides how one recurrent state maps to a variable tensor
// given src, its initial value in f (a read of a stateful variable, or a
// constant), and finals, the values of f holding its final value. With
// returnState, the final values may be used by other nodes (the fused
// operators provide them).
func initialState(f *ir.Function, what string, src *ir.Value, finals []stateOut, returnState bool) (*stateUse, error) {
	u := &stateUse{what: what}
	var start *ir.Tensor
	switch {
	case stateVariable(src) != nil:
		u.variable = stateVariable(src)
	case src.Const != nil:
		start = src.Const
	default:
		return nil, refuse("the initial %s state is a tensor computed at run time (%s: an initial_state argument?); the fused operator's state is a variable tensor that starts from zeros (or a stateful layer's variable), which neither TensorFlow Lite nor tflrun lets a model input set", what, src.Name)
	}
	if u.variable != nil && !u.variable.State {
		// A variable the model never updates: a constant start.
		start, u.variable = u.variable.Value, nil
	}
	for _, fo := range finals {
		o := fo.v
		if f.IsResult(o) && !returnState {
			return nil, refuse("the final %s state (%s) is a model output (return_state); the fused operator keeps its state internal", what, fo.desc)
		}
		for _, n := range f.Nodes {
			for j, in := range n.Inputs {
				if in != o {
					continue
				}
				isAssign := n.Op == "AssignVariableOp" && j == 1 && n.Inputs[0] != nil && n.Inputs[0].Variable != nil
				switch {
				case isAssign && u.variable != nil && n.Inputs[0].Variable == u.variable:
					u.assigns = append(u.assigns, n)
				case isAssign:
					return nil, refuse("the final %s state is assigned to variable %q, which is not the variable the state starts from", what, n.Inputs[0].Variable.Name)
				case !returnState:
					return nil, refuse("the final %s state (%s) is used by %s (return_state); the fused operator keeps its state internal", what, fo.desc, n)
				}
			}
		}
	}
	if u.variable != nil {
		if len(u.assigns) == 0 {
			return nil, refuse("the initial %s state is read from variable %q, which the model updates elsewhere, not with this layer's final state", what, u.variable.Name)
		}
		if !allZero(u.variable.Value) {
			u.note = fmt.Sprintf("variable %q holds a non-zero state in the checkpoint; the variable tensor starts at zero (reset_states)", u.variable.Name)
		}
		return u, nil
	}
	if start == nil || !allZero(start) {
		return nil, refuse("the initial %s state is a non-zero constant; the fused operator's state tensor starts at zero", what)
	}
	return u, nil
}

// bindStates points the state assignments at the operator's variable
// tensors (package stateful then drops them, see above).
func bindStates(states []*stateUse) {
	for _, u := range states {
		for _, n := range u.assigns {
			n.Inputs[1] = u.tensor
		}
	}
}

// stateNotes summarises the states for the report.
func stateNotes(states []*stateUse) string {
	var vars, notes []string
	for _, u := range states {
		if u.variable != nil {
			vars = append(vars, fmt.Sprintf("%s in %q", u.what, u.variable.Name))
		}
		if u.note != "" {
			notes = append(notes, u.note)
		}
	}
	out := ""
	if len(vars) > 0 {
		out = "stateful layer: state " + strings.Join(vars, ", ") + " kept in the operator's variable tensors"
	}
	if len(notes) > 0 {
		if out != "" {
			out += "; "
		}
		out += strings.Join(notes, "; ")
	}
	return out
}
