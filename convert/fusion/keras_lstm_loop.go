package fusion

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tflrun/tflrun/convert/ir"
)

// KerasLSTMLoop is the loop rule for Keras LSTM layers that carry no
// api_implements annotation: a layer whose options rule out the
// cuDNN-compatible function (an activation other than tanh, a
// recurrent_dropout, unroll), every Keras 3 export (model.export, TF ≥
// 2.16) and TF1 graphs whose loop package controlflow functionalised. Its
// loop has the keras.backend.rnn shape (see loop.go) with two float states
// and a body computing, with the kernel's column blocks in Keras's gate
// order i, f, c, o,
//
//	z  = x·kernel + h·recurrent_kernel + bias
//	c' = σ(z_f)⊙c + σ(z_i)⊙act(z_c),  h' = σ(z_o)⊙act(c')
//
// found by structure (see loop_cell.go: one product per operand, or one
// per gate with implementation=1) and confirmed by evaluating the body on
// probe values, which also gives the activation (tanh, relu or relu6; the
// fused operator has no linear or sigmoid form) and the gate order of a
// per-gate body. Dropout masks are all ones at inference and drop out.
//
// It emits UNIDIRECTIONAL_SEQUENCE_LSTM, time-major, over the very
// sequence the loop walks (so go_backwards needs nothing more; a
// batch-major layer keeps the TRANSPOSE before and after), with the fused
// activation found, cell_clip as KerasLSTM and variable state tensors,
// and rewires what the loop's results flowed into: the stacked outputs
// become the operator's output, and the final h (return_state, or the
// last output) its last step (STRIDED_SLICE). A Bidirectional layer is
// two loops, a stacked one a loop over the previous operator's output.
//
// Refused, with the reason in the report: a cell that the weights found
// do not reproduce; gates other than sigmoid; a linear activation; an
// initial state computed at run time (initial_state from an input: the
// operator's state is a variable tensor starting at zero); a final cell
// state c in use (return_state: the operator does not output it); any
// other loop output in use. A stateful layer keeps its state in the
// variable tensors, as with KerasLSTM. A loop that is not an LSTM's at
// all (one state, no matrix product of the input) is not this rule's.
type KerasLSTMLoop struct {
	// CellClip is the cell_clip option written (0: none).
	CellClip float32
}

// Name implements Rule.
func (KerasLSTMLoop) Name() string { return "keras-lstm-loop" }

// Fuse implements Rule.
func (r KerasLSTMLoop) Fuse(s *Site) (Result, error) { return refusalResult(r.fuse(s)) }

func (r KerasLSTMLoop) fuse(s *Site) (Result, error) {
	L, err := analyseLoop(s.Caller, s.Call, s.Module)
	if err != nil {
		var ref *refusal
		if errors.As(err, &ref) {
			return Result{}, nil // not a Keras recurrent loop
		}
		return Result{}, err
	}
	if len(L.states) != 2 {
		return Result{}, nil
	}
	cells := lstmCandidates(L)
	if len(cells) == 0 {
		return Result{}, nil
	}
	u := cells[0].units
	for k := range L.states {
		if !L.stateShapes[k].Equal(ir.Shape{L.batch, u}) {
			return Result{}, refuse("loop state %d has shape %s, want [%d, %d]", k, L.stateShapes[k], L.batch, u)
		}
	}
	probe, err := L.lstmProbe()
	if err != nil {
		return Result{}, err
	}
	var cell *lstmCell
	best := lstmFit{diff: -1}
	for _, c := range cells {
		f := probe.fit(c)
		if best.diff < 0 || f.diff < best.diff {
			best, cell = f, c
		}
		if f.diff <= cellTolerance {
			break
		}
	}
	hIdx, act, err := best.check()
	if err != nil {
		return Result{}, err
	}
	cIdx := 1 - hIdx
	f, name := s.Caller, s.Call.Name
	uses := f.Uses()
	used := func(v *ir.Value) bool { return len(uses[v]) > 0 || f.IsResult(v) }
	for i, o := range L.while.Outputs {
		if i == L.states[0] || i == L.states[1] || i == L.outList || !used(o) {
			continue
		}
		return Result{}, refuse("loop output %d (%s) is used; only the outputs and the final states can be", i, o.Name)
	}
	hOut, cOut := L.while.Outputs[L.states[hIdx]], L.while.Outputs[L.states[cIdx]]
	hUse, err := initialState(f, "h", L.while.Inputs[L.states[hIdx]], []stateOut{{hOut, fmt.Sprintf("loop output %d", L.states[hIdx])}}, true)
	if err != nil {
		return Result{}, err
	}
	cUse, err := initialState(f, "c", L.while.Inputs[L.states[cIdx]], []stateOut{{cOut, fmt.Sprintf("loop output %d", L.states[cIdx])}}, false)
	if err != nil {
		return Result{}, refuseCellState(err)
	}
	if (hUse.variable == nil) != (cUse.variable == nil) {
		return Result{}, refuse("one LSTM state is kept in a variable and the other is not")
	}

	gates := &LSTMGates{}
	for k := 0; k < 4; k++ {
		gates.Input[k] = gateBlockT(cell.W, L.nIn, 4*u, k*u, u)
		gates.Recurrent[k] = gateBlockT(cell.R, u, 4*u, k*u, u)
		gates.Bias[k] = vecBlock(cell.b, k*u, u)
	}
	seq, hT, cT, err := emitSequenceLSTM(f, name+"/lstm", L.seq, gates, LSTMOptions{Activation: act, CellClip: r.CellClip, TimeMajor: true}, nil, nil)
	if err != nil {
		return Result{}, err
	}
	returnState := used(hOut) && hUse.variable == nil
	hUse.tensor, cUse.tensor = hT, cT
	bindStates([]*stateUse{hUse, cUse})
	ops := []string{"UNIDIRECTIONAL_SEQUENCE_LSTM"}
	ops = append(ops, replaceLoopOutputs(f, name, L, seq, hOut, u)...)
	L.detachSizes(f)
	note := layoutNote(L, r.CellClip, stateNotes([]*stateUse{hUse, cUse})) + "; TensorFlow Lite runs it (builtin UNIDIRECTIONAL_SEQUENCE_LSTM)"
	if act != lstmActivations["tanh"] {
		note = fmt.Sprintf("%s activation; %s", best.act.name, note)
	}
	if returnState {
		note += "; the final h (return_state, or a TF1 loop's final state) is the last output step"
	}
	return Result{Fused: true, Ops: ops, Reason: note}, nil
}

// refuseCellState rewords a refusal about the final cell state's use for
// the LSTM, whose fused operator has no cell-state output.
func refuseCellState(err error) error {
	var ref *refusal
	if errors.As(err, &ref) && len(ref.reason) > 0 {
		return refuse("%s (UNIDIRECTIONAL_SEQUENCE_LSTM outputs the hidden state sequence only, not its cell state)", ref.reason)
	}
	return err
}

// replaceLoopOutputs rewires the loop's stacked outputs and final output
// state to a fused time-major sequence seq [T, batch, units]: the stack is
// seq itself (or, when the loop kept only the last step, that step as a
// one-step sequence), the final state its last step. It returns the
// operators added.
func replaceLoopOutputs(f *ir.Function, name string, L *loopInfo, seq, stateOut *ir.Value, u int) []string {
	var ops []string
	var last *ir.Value
	lastStep := func() *ir.Value {
		if last == nil {
			last = emitLastStep(f, name+"/last_output", seq, true)
			ops = append(ops, "STRIDED_SLICE")
		}
		return last
	}
	if L.stack != nil {
		if L.writeAll {
			f.ReplaceAllUses(L.stack, seq)
		} else {
			f.ReplaceAllUses(L.stack, emitReshape(f, name+"/last_output_sequence", lastStep(), ir.Shape{1, L.batch, u}))
			ops = append(ops, "RESHAPE")
		}
	}
	if stateOut != nil && (len(f.Uses()[stateOut]) > 0 || f.IsResult(stateOut)) {
		f.ReplaceAllUses(stateOut, lastStep())
	}
	return ops
}

// lstmCandidates returns the LSTM cells L's body may compute, read from
// its products (see loop_cell.go): the kernel's four column blocks (one
// product per operand, as Keras's implementation=2 and TF1's cells
// write it, or one per gate, implementation=1) in every order, the
// body's order first (Keras's i, f, c, o; TF1 writes i, c, f, o), each
// also with the forget gate's bias raised by any scalar the body adds
// (TF1's forget_bias). It returns nil when the body does not have an
// LSTM's products.
func lstmCandidates(L *loopInfo) []*lstmCell {
	cs := L.cellProducts()
	if cs == nil {
		return nil
	}
	u := L.stateShapes[0][1]
	type gate struct{ w, r, b *ir.Tensor }
	var gates [4]gate
	switch {
	case len(cs.in) == 1 && len(cs.rec) == 1:
		in, rec := cs.in[0], cs.rec[0]
		if !in.kernel.Shape.Equal(ir.Shape{L.nIn, 4 * u}) || !rec.kernel.Shape.Equal(ir.Shape{u, 4 * u}) || rec.src < 0 {
			return nil
		}
		b := cs.sumBias
		for _, p := range []*cellProduct{in, rec} {
			if b == nil {
				b = p.bias
			}
		}
		if b != nil && !b.Shape.Equal(ir.Shape{4 * u}) {
			return nil
		}
		for k := range gates {
			gates[k] = gate{colBlock(in.kernel, k*u, u), colBlock(rec.kernel, k*u, u), vecPart(b, k*u, u)}
		}
	case len(cs.in) == 4 && len(cs.rec) == 4:
		for k, p := range cs.in {
			q := p.partner
			if !p.kernel.Shape.Equal(ir.Shape{L.nIn, u}) || q == nil || q.src < 0 || !q.kernel.Shape.Equal(ir.Shape{u, u}) {
				return nil
			}
			b := p.bias
			if b == nil {
				b = q.bias
			}
			gates[k] = gate{p.kernel, q.kernel, b}
		}
	default:
		return nil
	}
	forget := []float64{0}
	for _, x := range cs.scalars {
		if x != 0 && !slices.Contains(forget, x) {
			forget = append(forget, x)
		}
	}
	var out []*lstmCell
	for _, perm := range permutations(4) {
		var ws, rs, bs [4]*ir.Tensor
		for k, j := range perm {
			ws[k], rs[k], bs[k] = gates[j].w, gates[j].r, gates[j].b
		}
		b := concatVecs(u, bs[:]...)
		if b == nil {
			b = make([]float64, 4*u)
		}
		for _, fb := range forget {
			bf := append([]float64(nil), b...)
			for k := u; k < 2*u; k++ {
				bf[k] += fb
			}
			out = append(out, &lstmCell{nIn: L.nIn, units: u, W: concatCols(ws[:]...), R: concatCols(rs[:]...), b: bf})
		}
	}
	return out
}
