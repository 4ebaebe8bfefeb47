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
//   - an initial state fed from a model input (Keras initial_state=
//     bound to an Input, as in a seq2seq inference decoder): the input
//     itself becomes the operator's state tensor, written is_variable, as
//     TensorFlow's converter marks an LSTM's stateful operands. The caller
//     writes the initial state into the input before every invoke; the
//     operator reads it and leaves the final state there. TensorFlow
//     Lite's kernels take such a tensor (they require is_variable of the
//     state operand, GetVariableInput, and its interpreter lets a graph
//     input be a variable); tflrun's interpreter does too. The input must
//     feed nothing else: the in-place update would change what other
//     readers see.
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
	// input is the model input the state starts from (nil when it starts
	// from zeros or a variable); it is the operator's state tensor.
	input *ir.Value
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
	u, err := initialState(s.Caller, what, src, outs, returnState)
	if err == nil && u.input != nil {
		// The caller may not be the entry function, so its parameter
		// need not be a model input; once inlined, the layer's loop is
		// offered to the loop rules, which see the entry function.
		u.input.IsVariableTensor = false
		return nil, refuse("the initial %s state is an input of the caller (%s); left to the loop rule once inlined", what, src.Name)
	}
	return u, err
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
	case src.IsParam() && isParamOf(f, src):
		if err := soleUse(f, what, src); err != nil {
			return nil, err
		}
		u.input = src
	default:
		return nil, refuse("the initial %s state is a tensor computed at run time inside the model (%s); the fused operator's state is a variable tensor that starts from zeros, a stateful layer's variable, or a model input", what, src.Name)
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
	if u.input != nil {
		u.note = fmt.Sprintf("initial %s state from model input %q (is_variable: written by the caller before each invoke, holding the final state after it)", what, u.input.Name)
		return u, nil
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

// isParamOf reports whether v is one of f's parameters (a model input
// when f is the entry function).
func isParamOf(f *ir.Function, v *ir.Value) bool {
	for _, p := range f.Params {
		if p == v {
			return true
		}
	}
	return false
}

// soleUse checks that the model input in, an initial state, is read by one
// node only (the loop) and is no model output: the fused operator updates
// it in place.
func soleUse(f *ir.Function, what string, in *ir.Value) error {
	n := 0
	for _, nd := range f.Nodes {
		for _, x := range nd.Inputs {
			if x == in {
				n++
			}
		}
	}
	if n != 1 || f.IsResult(in) {
		return refuse("the initial %s state is model input %q, which is also read elsewhere (%d reads, or a model output); the fused operator would update it in place under the other readers", what, in.Name, n)
	}
	if in.IsVariableTensor {
		return refuse("the initial %s state is model input %q, already the state of another fused operator", what, in.Name)
	}
	if !in.Shape.Static() || in.DType != ir.Float32 {
		return refuse("the initial %s state is model input %q of type %s and shape %s; a fused state is a static float32 tensor", what, in.Name, in.DType, in.Shape)
	}
	return nil
}

// stateTensor returns the tensor the operator should take as u's state:
// the model input it starts from (now a variable tensor), or nil for a
// new zero-initialised variable.
func (u *stateUse) stateTensor() *ir.Value {
	if u == nil || u.input == nil {
		return nil
	}
	u.input.IsVariableTensor = true
	return u.input
}

// releaseInputs undoes stateTensor when the operator could not be
// emitted.
func releaseInputs(states ...*stateUse) {
	for _, u := range states {
		if u != nil && u.input != nil {
			u.input.IsVariableTensor = false
		}
	}
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
