package fusion

import (
	"github.com/tflrun/tflrun/convert/ir"
)

// KerasGRU is the built-in rule for Keras GRU layers, which TensorFlow
// Lite's converter does not fuse: the functions Keras marks
// api_implements="gru_<uuid>" (standard_gru and its GPU twin, signature
// (inputs, init_h, kernel, recurrent_kernel, bias[, mask]) → (last_output,
// outputs, new_h, runtime)). It emits the custom operator
// UNIDIRECTIONAL_SEQUENCE_GRU, TensorFlow Lite's experimental GRU kernel,
// which tflrun runs:
//
//   - the Keras kernel [n_input, 3·units] and recurrent kernel [units,
//     3·units] have their gates in the order update (z), reset (r),
//     candidate (h); the operator's gate_weight [2·units, n_input+units]
//     holds the reset gate's rows first, then the update gate's, each row
//     the input weights followed by the recurrent weights; the candidate
//     weights are [units, n_input+units] likewise;
//   - Keras with reset_after=False (bias [3·units]) computes the candidate
//     from (r⊙h)·R, exactly TFLite's GRU cell: gate_bias is the bias of r
//     and z, candidate_bias the candidate's;
//   - Keras with reset_after=True (the default since TF 2, bias [2,
//     3·units]: input and recurrent biases) computes tanh(x·W + b_in +
//     r⊙(h·R + b_rec)), which TFLite's cell cannot express (it resets h
//     before the product). tflrun's GRU kernel takes a seventh input,
//     candidate_recurrent_bias, selecting that form; gate_bias then holds
//     b_in + b_rec of r and z, candidate_bias b_in of the candidate. TFLite's
//     experimental kernel refuses a seventh input rather than misreading
//     it;
//   - the operator is always time-major: a batch-major layer gets a
//     TRANSPOSE before and after; go_backwards reverses the input in time
//     (REVERSE_V2) and, as in Keras, the outputs stay in the order
//     processed; the last output and the final state are the operator's
//     second output (no slice needed).
//
// Preconditions, as for KerasLSTM: no mask, static batch and time,
// constant weights, a loop body computing the Keras GRU cell with sigmoid
// gates and tanh with these weights (checked on probe values), a state
// starting from zeros or kept in a stateful layer's variable. Unlike the
// LSTM, the final state may be used (return_state): it is the operator's
// second output.
type KerasGRU struct{}

// Name implements Rule.
func (KerasGRU) Name() string { return "keras-gru" }

// Fuse implements Rule.
func (r KerasGRU) Fuse(s *Site) (Result, error) { return refusalResult(r.fuse(s)) }

func (r KerasGRU) fuse(s *Site) (Result, error) {
	g := s.Callee
	switch {
	case len(g.Params) == 6:
		return Result{}, refuse("the layer has a mask input; the fused GRU has no mask")
	case len(g.Params) != 5 || len(g.Results) != 4:
		return Result{}, refuse("the function has %d inputs and %d outputs, not the Keras GRU signature (inputs, init_h, kernel, recurrent_kernel, bias) → (last_output, outputs, new_h, runtime)", len(g.Params), len(g.Results))
	}
	if err := checkSequenceInput(s, g, "GRU"); err != nil {
		return Result{}, err
	}
	L, err := findLoop(g, s.Module)
	if err != nil {
		return Result{}, err
	}
	if len(L.states) != 1 {
		return Result{}, refuse("the loop carries %d float states; a GRU carries one", len(L.states))
	}
	if L.seqSource != g.Params[0] {
		return Result{}, refuse("the loop's sequence is not the layer's input")
	}
	W, R, b := constValue(g.Params[2]), constValue(g.Params[3]), constValue(g.Params[4])
	for i, t := range []*ir.Tensor{W, R, b} {
		if t == nil {
			return Result{}, refuse("the %s is not a constant (weights computed at run time); the fused operator needs constant weights", [3]string{"kernel", "recurrent kernel", "bias"}[i])
		}
	}
	if W.Shape.Rank() != 2 || W.Shape[1]%3 != 0 || W.Shape[0] != L.nIn {
		return Result{}, refuse("the kernel has shape %s, want [%d, 3·units]", W.Shape, L.nIn)
	}
	u := W.Shape[1] / 3
	if !R.Shape.Equal(ir.Shape{u, 3 * u}) {
		return Result{}, refuse("the recurrent kernel has shape %s, want [%d, %d]", R.Shape, u, 3*u)
	}
	if !L.stateShapes[0].Equal(ir.Shape{L.batch, u}) {
		return Result{}, refuse("the loop state has shape %s, want [%d, %d]", L.stateShapes[0], L.batch, u)
	}
	cell := &gruCell{nIn: L.nIn, units: u, W: W.Float64s(), R: R.Float64s()}
	bv := b.Float64s()
	switch {
	case b.Shape.Equal(ir.Shape{2, 3 * u}):
		cell.resetAfter, cell.bIn, cell.bRec = true, bv[:3*u], bv[3*u:]
	case b.Shape.Equal(ir.Shape{3 * u}):
		cell.bIn = bv
	default:
		return Result{}, refuse("the bias has shape %s, want [%d] or [2, %d] (reset_after)", b.Shape, 3*u, 3*u)
	}
	if err := matchGRU(L, cell); err != nil {
		return Result{}, err
	}
	roles, stateOf, err := L.resultRoles()
	if err != nil {
		return Result{}, err
	}
	var finals []int
	for i, role := range roles {
		switch {
		case role == roleState && stateOf[i] == 0:
			finals = append(finals, i)
		case role == roleOther && s.OutputUsed(i):
			return Result{}, refuse("call output %d is used but is neither the last output, the output sequence nor the final state", i)
		}
	}
	use, err := analyseState(s, "h", L.while.Inputs[L.states[0]], finals, true)
	if err != nil {
		return Result{}, err
	}

	weights := gruWeights(cell)
	f, name := s.Caller, s.Call.Name
	var ops []string
	x := s.Call.Inputs[0]
	if !L.timeMajor {
		x = emitTranspose02(f, name+"/time_major", x)
		ops = append(ops, "TRANSPOSE")
	}
	if L.goBackwards {
		x = emitReverse(f, name+"/reverse", x, 0)
		ops = append(ops, "REVERSE_V2")
	}
	seqTM, final, st, err := emitSequenceGRU(f, name+"/gru", x, weights, nil)
	if err != nil {
		return Result{}, err
	}
	ops = append(ops, GRUCustomName)
	use.tensor = st
	bindStates([]*stateUse{use})
	seqs := map[bool]*ir.Value{}
	sequence := func(reversed bool) *ir.Value {
		if v, ok := seqs[reversed]; ok {
			return v
		}
		v := seqTM
		if reversed {
			v = emitReverse(f, name+"/reverse_outputs", v, 0)
			ops = append(ops, "REVERSE_V2")
		}
		if !L.timeMajor {
			v = emitTranspose02(f, name+"/outputs", v)
			ops = append(ops, "TRANSPOSE")
		}
		seqs[reversed] = v
		return v
	}
	for i, role := range roles {
		if !s.OutputUsed(i) {
			continue
		}
		switch role {
		case roleLast, roleState:
			s.ReplaceOutput(i, final)
		case roleLastAsSequence:
			s.ReplaceOutput(i, emitReshape(f, name+"/last_output_sequence", final, s.Call.Outputs[i].Shape))
			ops = append(ops, "RESHAPE")
		case roleSequence, roleSequenceReversed:
			s.ReplaceOutput(i, sequence(role == roleSequenceReversed))
		case roleConstant:
			if c := s.Callee.Results[i].Const; c != nil {
				s.ReplaceOutput(i, s.Caller.NewConst(name+"/runtime", c))
			}
		}
	}
	note := "reset_after=False (TFLite's GRU cell)"
	if cell.resetAfter {
		note = "reset_after=True (tflrun's 7-input GRU form; TFLite's experimental kernel takes 6)"
	}
	return Result{Fused: true, Ops: ops, Reason: note + "; " + layoutNote(L, 0, stateNotes([]*stateUse{use}))}, nil
}

// matchGRU evaluates the loop body on probe values and checks that it
// computes the Keras GRU cell (sigmoid gates, tanh candidate) with the
// layer's weights and reset_after form.
func matchGRU(L *loopInfo, cell *gruCell) error {
	p, err := L.gruProbe()
	if err != nil {
		return err
	}
	return p.fit(cell).check(cell)
}

// gruProbe is one evaluation of a GRU loop body on probe values.
type gruProbe struct {
	batch int
	x, h  []float64
	got   []float64
}

func (L *loopInfo) gruProbe() (*gruProbe, error) {
	rng := &probeRand{s: 0x6a0}
	B, u := L.batch, L.stateShapes[0][1]
	x := rng.uniform(ir.Shape{B, L.nIn}, -1, 1)
	h := rng.uniform(ir.Shape{B, u}, -1, 1)
	out, next, err := L.step(x, []*ir.Tensor{h})
	if err != nil {
		return nil, err
	}
	o := next[0].Float64s()
	if out != nil && maxDiff(out.Float64s(), o) != 0 {
		return nil, refuse("the loop's output is not its state (not a GRU)")
	}
	return &gruProbe{batch: B, x: x.Float64s(), h: h.Float64s(), got: o}, nil
}

// gruFit is how close a cell comes to a probed body.
type gruFit struct {
	diff       float64
	rec, act   activation
	resetAfter bool
}

// fit finds the gate and candidate activations, and the reset form, with
// which cell comes closest to the probed body (the other reset form is
// tried only when the bias layout does not fix it).
func (p *gruProbe) fit(cell *gruCell) gruFit {
	best := gruFit{diff: -1}
	for _, ra := range []bool{cell.resetAfter, !cell.resetAfter} {
		c := *cell
		if ra != cell.resetAfter {
			if cell.bRec != nil {
				continue // the bias layout fixes the form
			}
			c.resetAfter = ra
		}
		for _, rec := range gateActivations {
			for _, a := range activations {
				d := maxDiff(p.got, c.step(p.x, p.h, p.batch, rec, a))
				if best.diff < 0 || d < best.diff {
					best = gruFit{diff: d, rec: rec, act: a, resetAfter: ra}
				}
			}
		}
	}
	return best
}

// check refuses a fit that is not close enough or that the GRU operator
// cannot compute.
func (f gruFit) check(cell *gruCell) error {
	switch {
	case f.diff > cellTolerance || f.diff < 0:
		return refuse("the loop body does not compute a Keras GRU cell with the layer's weights (closest: %s gates, %s activation, off by %.3g)", f.rec.name, f.act.name, f.diff)
	case f.resetAfter != cell.resetAfter:
		return refuse("the loop body resets the state %s the recurrent product, which its bias layout does not match", map[bool]string{true: "after", false: "before"}[f.resetAfter])
	case f.rec.name != "sigmoid":
		return refuse("the recurrent activation is %s, not sigmoid; the GRU operator's gates are sigmoid", f.rec.name)
	case f.act.name != "tanh":
		return refuse("the activation is %s, not tanh; the GRU operator's candidate is tanh (UNIDIRECTIONAL_SEQUENCE_GRU has no activation option, in TensorFlow Lite or tflrun)", f.act.name)
	}
	return nil
}

// gruWeights lays a Keras GRU's weights out for UNIDIRECTIONAL_SEQUENCE_GRU
// (see KerasGRU).
func gruWeights(c *gruCell) *GRUWeights {
	u, nIn, g := c.units, c.nIn, 3*c.units
	w := nIn + u
	row := func(dst []float32, col int) {
		for k := 0; k < nIn; k++ {
			dst[k] = float32(c.W[k*g+col])
		}
		for k := 0; k < u; k++ {
			dst[nIn+k] = float32(c.R[k*g+col])
		}
	}
	gate := make([]float32, 2*u*w)
	cand := make([]float32, u*w)
	gb := make([]float32, 2*u)
	cb := make([]float32, u)
	bias := func(v []float64, i int) float64 {
		if v == nil {
			return 0
		}
		return v[i]
	}
	for j := 0; j < u; j++ {
		row(gate[j*w:(j+1)*w], u+j)     // reset gate: Keras columns [u, 2u)
		row(gate[(u+j)*w:(u+j+1)*w], j) // update gate: Keras columns [0, u)
		row(cand[j*w:(j+1)*w], 2*u+j)
		gb[j] = float32(bias(c.bIn, u+j) + bias(c.bRec, u+j))
		gb[u+j] = float32(bias(c.bIn, j) + bias(c.bRec, j))
		cb[j] = float32(bias(c.bIn, 2*u+j))
	}
	out := &GRUWeights{
		GateWeight: ir.FromFloat32s(ir.Shape{2 * u, w}, gate), GateBias: ir.FromFloat32s(ir.Shape{2 * u}, gb),
		CandidateWeight: ir.FromFloat32s(ir.Shape{u, w}, cand), CandidateBias: ir.FromFloat32s(ir.Shape{u}, cb),
	}
	if c.resetAfter {
		crb := make([]float32, u)
		for j := range crb {
			crb[j] = float32(bias(c.bRec, 2*u+j))
		}
		out.CandidateRecurrentBias = ir.FromFloat32s(ir.Shape{u}, crb)
	}
	return out
}
