package fusion

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// KerasSimpleRNN is the built-in loop rule for Keras SimpleRNN layers,
// which carry no annotation (TensorFlow's converter does not fuse them):
// a While loop of the keras.backend.rnn shape (see loop.go) with one
// float state whose body computes
//
//	h' = activation(x·kernel + bias + h·recurrent_kernel)
//
// (SimpleRNNCell: a MatMul of the step input by a constant kernel [n_input,
// units], an optional bias [units], a MatMul of the state by a constant
// recurrent kernel [units, units]; or TF1's BasicRNNCell, one MatMul of
// [x, h] by a kernel [n_input + units, units] whose rows split into the
// two). The weights are taken from those
// MatMul and bias constants and the body is then evaluated on probe values
// to confirm it computes exactly that cell, and which activation (tanh,
// relu, relu6 or linear).
//
// It emits UNIDIRECTIONAL_SEQUENCE_RNN (time-major, over the very sequence
// the loop walks, so go_backwards needs nothing more; input weights
// [units, n_input] = kernelᵀ, recurrent weights [units, units] =
// recurrent_kernelᵀ, bias, fused activation, a zero-initialised variable
// hidden state) and rewires what the loop's results flowed into: the
// stacked outputs [time, batch, units] become the operator's output, the
// final state its last step (STRIDED_SLICE). The code that turned the
// stack into the layer's outputs (transpose back, last step) is then
// lowered as usual.
//
// Preconditions: static batch and time, constant weights, a state
// starting from zeros (a stateful SimpleRNN is refused), and no other
// loop output in use. A loop that does not have this shape at all (an
// LSTM or GRU loop, a loop without a matrix product of its input) is not
// this rule's and is not reported.
type KerasSimpleRNN struct{}

// Name implements Rule.
func (KerasSimpleRNN) Name() string { return "keras-simple-rnn" }

// Fuse implements Rule.
func (r KerasSimpleRNN) Fuse(s *Site) (Result, error) {
	return refusalResult(r.fuse(s))
}

func (r KerasSimpleRNN) fuse(s *Site) (Result, error) {
	L, err := s.analysedLoop()
	if err != nil {
		var ref *refusal
		if errors.As(err, &ref) {
			return Result{}, nil // not a Keras recurrent loop
		}
		return Result{}, err
	}
	if len(L.states) != 1 {
		return Result{}, nil
	}
	W, R, b := rnnWeights(L)
	if W == nil || R == nil {
		return Result{}, nil
	}
	u := R.Shape[0]
	if !R.Shape.Equal(ir.Shape{u, u}) || !W.Shape.Equal(ir.Shape{L.nIn, u}) || b != nil && !b.Shape.Equal(ir.Shape{u}) {
		return Result{}, nil
	}
	if !L.stateShapes[0].Equal(ir.Shape{L.batch, u}) {
		return Result{}, refuse("the loop state has shape %s, want [%d, %d]", L.stateShapes[0], L.batch, u)
	}
	cell := &rnnCell{nIn: L.nIn, units: u, W: W.Float64s(), R: R.Float64s()}
	if b != nil {
		cell.b = b.Float64s()
	}
	act, err := matchRNN(L, cell)
	if err != nil {
		return Result{}, err
	}
	stateOut := L.while.Outputs[L.states[0]]
	uses := s.Caller.Uses()
	for i, o := range L.while.Outputs {
		if i == L.states[0] || i == L.outList || len(uses[o]) == 0 && !s.Caller.IsResult(o) {
			continue
		}
		return Result{}, refuse("loop output %d (%s) is used; only the outputs and the final state can be", i, o.Name)
	}
	init := L.while.Inputs[L.states[0]]
	if stateVariable(init) != nil {
		return Result{}, refuse("the initial state is read from variable %q (a stateful SimpleRNN); only a state starting from zeros is fused", stateVariable(init).Name)
	}
	f, name := s.Caller, s.Call.Name
	var state *ir.Value
	stateNote := ""
	switch c := init.Const; {
	case c == nil && init.IsParam() && isParamOf(f, init):
		// A model input (initial_state=Input): the operator's state
		// tensor itself (state.go).
		if err := soleUse(f, "h", init); err != nil {
			return Result{}, err
		}
		state = init
		stateNote = fmt.Sprintf("; initial state from model input %q (is_variable: written by the caller before each invoke, holding the final state after it)", init.Name)
	case c == nil || !allZero(c):
		return Result{}, refuse("the initial state is not zeros nor a model input (an initial_state computed in the model?); the fused operator's state starts at zero")
	}

	weights := &RNNWeights{Input: gateBlockT(cell.W, L.nIn, u, 0, u), Recurrent: gateBlockT(cell.R, u, u, 0, u)}
	bias := make([]float64, u)
	copy(bias, cell.b)
	weights.Bias = vecBlock(bias, 0, u)
	if state != nil {
		state.IsVariableTensor = true
	}
	out, _, err := emitSequenceRNN(f, name+"/rnn", L.seq, weights, act, true, state)
	if err != nil {
		if state != nil {
			state.IsVariableTensor = false
		}
		return Result{}, err
	}
	ops := []string{"UNIDIRECTIONAL_SEQUENCE_RNN"}
	var last *ir.Value
	lastStep := func() *ir.Value {
		if last == nil {
			last = emitLastStep(f, name+"/last_output", out, true)
			ops = append(ops, "STRIDED_SLICE")
		}
		return last
	}
	if L.stack != nil {
		if L.writeAll {
			f.ReplaceAllUses(L.stack, out)
		} else {
			f.ReplaceAllUses(L.stack, emitReshape(f, name+"/last_output_sequence", lastStep(), ir.Shape{1, L.batch, u}))
			ops = append(ops, "RESHAPE")
		}
	}
	if len(uses[stateOut]) > 0 || f.IsResult(stateOut) {
		f.ReplaceAllUses(stateOut, lastStep())
	}
	L.detachSizes(f)
	return Result{Fused: true, Ops: ops, Reason: layoutNote(L, 0, "") + stateNote}, nil
}

// rnnWeights finds the SimpleRNN cell's constants in the specialised loop
// body: the kernel multiplying the step input, the recurrent kernel
// multiplying the state, and a bias vector added (nil when there is
// none).
func rnnWeights(L *loopInfo) (W, R, b *ir.Tensor) {
	h := L.body.Params[L.states[0]]
	for _, n := range L.body.Nodes {
		switch n.Op {
		case "MatMul":
			if len(n.Inputs) != 2 || n.Inputs[0] == nil || n.Inputs[1] == nil || n.Inputs[1].Const == nil {
				continue
			}
			if ta, _ := n.AttrBool("transpose_a", false); ta {
				continue
			}
			if tb, _ := n.AttrBool("transpose_b", false); tb {
				continue
			}
			switch n.Inputs[0] {
			case L.read:
				W = n.Inputs[1].Const
			case h:
				R = n.Inputs[1].Const
			default:
				// TF1's BasicRNNCell: [x, h]·kernel, one product of both.
				if in, rec := L.splitConcatProduct(n, n.Inputs[1].Const); in != nil && rec.src == 0 {
					W, R = in.kernel, rec.kernel
				}
			}
		case "BiasAdd", "AddV2", "Add":
			if len(n.Inputs) == 2 && n.Inputs[1] != nil && b == nil {
				if c := n.Inputs[1].Const; c != nil && c.Shape.Rank() == 1 {
					b = c
				}
			}
		}
	}
	return W, R, b
}

// rnnActivations are the activations UNIDIRECTIONAL_SEQUENCE_RNN applies.
var rnnActivations = map[string]schema.ActivationFunctionType{
	"tanh": schema.ActivationFunctionTypeTANH, "relu": schema.ActivationFunctionTypeRELU,
	"relu6": schema.ActivationFunctionTypeRELU6, "linear": schema.ActivationFunctionTypeNONE,
}

// matchRNN evaluates the loop body on probe values and finds the
// activation that reproduces it with the cell's weights.
func matchRNN(L *loopInfo, cell *rnnCell) (schema.ActivationFunctionType, error) {
	rng := &probeRand{s: 0x5171}
	B, u := L.batch, cell.units
	x := rng.uniform(ir.Shape{B, L.nIn}, -1, 1)
	h := rng.uniform(ir.Shape{B, u}, -1, 1)
	out, next, err := L.step(x, []*ir.Tensor{h})
	if err != nil {
		return 0, err
	}
	o := next[0].Float64s()
	if out != nil && maxDiff(out.Float64s(), o) != 0 {
		return 0, refuse("the loop's output is not its state (not a simple RNN)")
	}
	best, bestAct := -1.0, activation{}
	for _, a := range activations {
		d := maxDiff(o, cell.step(x.Float64s(), h.Float64s(), B, a))
		if best < 0 || d < best {
			best, bestAct = d, a
		}
	}
	if best > cellTolerance {
		return 0, refuse("the loop body multiplies its input and state by constant kernels but does not compute a SimpleRNN cell with them (closest: %s, off by %.3g)", bestAct.name, best)
	}
	act, ok := rnnActivations[bestAct.name]
	if !ok {
		return 0, refuse("the activation is %s; UNIDIRECTIONAL_SEQUENCE_RNN applies tanh, relu, relu6 or none", bestAct.name)
	}
	return act, nil
}
