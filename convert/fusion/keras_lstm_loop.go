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
// TF1's BasicLSTMCell and LSTMCell ([x, h]·kernel, gates i, j, f, o, a
// forget_bias, optional peepholes — constant vectors times the cell
// state — and projection — a product of the output by a constant
// [units, n_output]) are recognised the same way and map onto the
// operator's peephole and projection weights.
//
// It emits UNIDIRECTIONAL_SEQUENCE_LSTM, time-major, over the very
// sequence the loop walks (so go_backwards needs nothing more; a
// batch-major layer keeps the TRANSPOSE before and after), with the fused
// activation found, cell_clip as KerasLSTM and variable state tensors,
// and rewires what the loop's results flowed into: the stacked outputs
// become the operator's output, and the final h (return_state, or the
// last output) its last step (STRIDED_SLICE). A final cell state c that
// is a model output (return_state) becomes the operator's cell-state
// variable tensor itself, named as the output: the operator leaves the
// final state there after each invoke. A Bidirectional layer is two
// loops, a stacked one a loop over the previous operator's output.
//
// Refused, with the reason in the report: a cell that the weights found
// do not reproduce; gates other than sigmoid; a linear activation; an
// initial state computed at run time inside the model (an initial state
// that is a model input becomes the operator's state tensor, see
// state.go); a final cell
// state c used by another node (the operator does not output it, and a
// read of its variable tensor would not be ordered after it); any other
// loop output in use. A stateful layer keeps its state in the
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
	L, err := s.analysedLoop()
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
	u, nOut := cells[0].units, cells[0].outUnits()
	for k := range L.states {
		if w := L.stateShapes[k]; !w.Equal(ir.Shape{L.batch, u}) && !w.Equal(ir.Shape{L.batch, nOut}) {
			return Result{}, refuse("loop state %d has shape %s, want [%d, %d]", k, w, L.batch, u)
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
	// The final cell state can be a model output only (return_state):
	// it is then the operator's cell-state variable tensor, which holds
	// it after the invoke. Any other use would need a value the operator
	// does not output.
	cResult := f.IsResult(cOut) && len(uses[cOut]) == 0
	cUse, err := initialState(f, "c", L.while.Inputs[L.states[cIdx]], []stateOut{{cOut, fmt.Sprintf("loop output %d", L.states[cIdx])}}, cResult)
	if err != nil {
		return Result{}, refuseCellState(err)
	}
	if (hUse.variable == nil) != (cUse.variable == nil) {
		return Result{}, refuse("one LSTM state is kept in a variable and the other is not")
	}

	gates := &LSTMGates{}
	for k := 0; k < 4; k++ {
		gates.Input[k] = gateBlockT(cell.W, L.nIn, 4*u, k*u, u)
		gates.Recurrent[k] = gateBlockT(cell.R, nOut, 4*u, k*u, u)
		gates.Bias[k] = vecBlock(cell.b, k*u, u)
	}
	for k, p := range cell.peep {
		if p != nil {
			gates.Peephole[k] = vecBlock(p, 0, u)
		}
	}
	if cell.proj != nil {
		gates.Projection = gateBlockT(cell.proj, u, nOut, 0, nOut)
	}
	// A cell clip changes the cell state a model output shows (a Keras
	// layer clips nothing): with the final c returned, write none.
	clip := r.CellClip
	if cResult {
		clip = 0
	}
	seq, hT, cT, err := emitSequenceLSTM(f, name+"/lstm", L.seq, gates, LSTMOptions{Activation: act, CellClip: clip, TimeMajor: true}, hUse.stateTensor(), cUse.stateTensor())
	if err != nil {
		releaseInputs(hUse, cUse)
		return Result{}, err
	}
	returnState := used(hOut) && hUse.variable == nil
	hUse.tensor, cUse.tensor = hT, cT
	bindStates([]*stateUse{hUse, cUse})
	ops := []string{"UNIDIRECTIONAL_SEQUENCE_LSTM"}
	ops = append(ops, replaceLoopOutputs(f, name, L, seq, hOut, nOut)...)
	cNote := ""
	if cResult {
		cNote = "; the final c (return_state) is the model output " + cOut.Name + ": the operator's cell-state variable tensor, which holds it after each invoke (TensorFlow Lite's kernel updates it in place too)"
		if cUse.input == nil {
			cT.Name = cOut.Name // the model output keeps its name
		} else {
			cNote = "; the final c (return_state) is the model output " + cOut.Name + ": the cell-state tensor, which is the model input " + cT.Name + " the initial c came from (one tensor, input and output)"
		}
		if r.CellClip != 0 {
			cNote += fmt.Sprintf("; no cell_clip written (%g would change that output)", r.CellClip)
		}
		f.ReplaceAllUses(cOut, cT)
	}
	L.detachSizes(f)
	note := layoutNote(L, clip, stateNotes([]*stateUse{hUse, cUse})) + "; TensorFlow Lite runs it (builtin UNIDIRECTIONAL_SEQUENCE_LSTM)"
	if cell.peep[0] != nil {
		note = "peephole; " + note
	}
	if cell.proj != nil {
		note = fmt.Sprintf("projection to %d; %s", nOut, note)
	}
	if act != lstmActivations["tanh"] {
		note = fmt.Sprintf("%s activation; %s", best.act.name, note)
	}
	note += cNote
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
	// TF1's LSTMCell(num_proj): the output multiplied by a projection
	// [units, n_output], a product of a computed value.
	var proj *cellProduct
	var rec []*cellProduct
	for _, p := range cs.rec {
		if p.src == srcComputed && proj == nil && len(cs.rec) == len(cs.in)+1 {
			proj = p
			continue
		}
		rec = append(rec, p)
	}
	u := 0
	switch {
	case len(cs.in) == 1:
		u = cs.in[0].kernel.Shape[1] / 4
	case len(cs.in) == 4:
		u = cs.in[0].kernel.Shape[1]
	}
	nOut := u
	if proj != nil {
		if proj.kernel.Shape[0] != u {
			return nil
		}
		nOut = proj.kernel.Shape[1]
	}
	if u < 1 {
		return nil
	}
	type gate struct{ w, r, b *ir.Tensor }
	var gates [4]gate
	switch {
	case len(cs.in) == 1 && len(rec) == 1:
		in, rec := cs.in[0], rec[0]
		if !in.kernel.Shape.Equal(ir.Shape{L.nIn, 4 * u}) || !rec.kernel.Shape.Equal(ir.Shape{nOut, 4 * u}) || rec.src < 0 {
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
	case len(cs.in) == 4 && len(rec) == 4:
		for k, p := range cs.in {
			q := p.partner
			if !p.kernel.Shape.Equal(ir.Shape{L.nIn, u}) || q == nil || q.src < 0 || !q.kernel.Shape.Equal(ir.Shape{nOut, u}) {
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
	peeps := L.peepholes(u)
	if peeps == nil {
		return nil
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
			for _, pp := range peeps {
				c := &lstmCell{nIn: L.nIn, units: u, W: concatCols(ws[:]...), R: concatCols(rs[:]...), b: bf, peep: pp}
				if proj != nil {
					c.proj, c.nOut = proj.kernel.Float64s(), nOut
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// peepholes finds TF1's peephole weights: constant vectors [u]
// multiplying the previous cell state (input and forget gates, in either
// order) and the new one (output gate). It returns the assignments to
// (input, forget, output) to try: one without peepholes when the body
// has none, nil when its vector products are no peepholes.
func (L *loopInfo) peepholes(u int) [][3][]float64 {
	var prev [][]float64
	var next []float64
	for _, n := range L.body.Nodes {
		if n.Op != "Mul" || len(n.Inputs) != 2 || n.Inputs[0] == nil || n.Inputs[1] == nil {
			continue
		}
		for j := 0; j < 2; j++ {
			c, other := n.Inputs[j].Const, n.Inputs[1-j]
			if c == nil || c.Shape.Rank() != 1 || c.Shape[0] != u || !c.DType.IsFloat() || other.Const != nil {
				continue
			}
			if L.productSource(other) >= 0 {
				prev = append(prev, c.Float64s())
			} else {
				next = append(next, c.Float64s()...)
			}
		}
	}
	switch {
	case len(prev) == 0 && next == nil:
		return [][3][]float64{{}}
	case len(prev) == 2 && len(next) == u:
		return [][3][]float64{{prev[0], prev[1], next}, {prev[1], prev[0], next}}
	}
	return nil
}
