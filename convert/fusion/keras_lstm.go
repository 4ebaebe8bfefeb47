package fusion

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// KerasLSTM is the built-in rule for Keras LSTM layers: the functions
// Keras marks api_implements="lstm_<uuid>" (standard_lstm and its GPU
// twin, whose signature is (inputs, init_h, init_c, kernel,
// recurrent_kernel, bias[, mask]) → (last_output, outputs, new_h, new_c,
// runtime)), and "indy_lstm_<uuid>" for IndyLSTM layers, whose recurrent
// kernel is diagonal ([1, 4·units]: one recurrent weight per unit and
// gate).
//
// It emits what TensorFlow Lite's converter emits (ConvertKerasLSTMLayer
// in tensorflow/compiler/mlir/lite/utils/lstm_utils.cc):
//
//   - REVERSE_V2 of the input along the time axis when the layer runs
//     backwards (go_backwards; Keras then returns the outputs in the order
//     processed, which the fused operator reproduces);
//   - UNIDIRECTIONAL_SEQUENCE_LSTM with the Keras kernel [n_input,
//     4·units] split by gate in Keras's order (input, forget, cell,
//     output) and transposed to [units, n_input], the recurrent kernel
//     likewise ([units, units], or [units] vectors for IndyLSTM with
//     diagonal_recurrent_tensors, version 4), the bias split by gate, no
//     peephole, projection or layer norm, time_major as the layer's,
//     fused activation TANH, cell_clip CellClip (10 by default, the value
//     TensorFlow's converter writes; Keras itself never clips, so the two
//     differ only if a cell state leaves [-10, 10]) and proj_clip 0;
//   - STRIDED_SLICE of the last time step when the layer's last output is
//     used (begin −1 on the time axis, shrunk).
//
// Its preconditions are TensorFlow's plus what tflrun checks of the body:
// no mask argument; the call's users take only the last output and the
// output sequence (the final states are refused — return_state — except
// the assignments of a stateful layer, see below); static batch and time;
// constant weights (constants, or variables resolved from the
// checkpoint); and a loop body that computes the Keras LSTM cell with
// sigmoid gates and a tanh (or relu/relu6) activation with those weights,
// checked by evaluating it on probe values. The layout (batch- or
// time-major, forwards or backwards) is read from what the function does
// to its input, so Keras versions that do not record time_major and
// go_backwards as function attributes (TF 2.2) work too.
//
// States: a layer started from zeros gets zero-initialised variable
// tensors (TensorFlow Lite's mapping); a stateful layer, whose state is
// read from resource variables and assigned back after the call, gets the
// same variable tensors, and its assignments store them, which package
// stateful recognises (the fused operator updates its state itself; see
// state.go). Any other initial state is refused.
type KerasLSTM struct {
	// CellClip is the cell_clip option written (0: none).
	CellClip float32
	// Indy selects the IndyLSTM form (diagonal recurrent kernel).
	Indy bool
}

// Name implements Rule.
func (r KerasLSTM) Name() string {
	if r.Indy {
		return "keras-indy-lstm"
	}
	return "keras-lstm"
}

// Fuse implements Rule.
func (r KerasLSTM) Fuse(s *Site) (Result, error) {
	return refusalResult(r.fuse(s))
}

// refusalResult turns a refusal error into a declined Result.
func refusalResult(res Result, err error) (Result, error) {
	var ref *refusal
	if errors.As(err, &ref) {
		return Result{Reason: ref.reason}, nil
	}
	return res, err
}

func (r KerasLSTM) fuse(s *Site) (Result, error) {
	g := s.Callee
	switch {
	case len(g.Params) == 7:
		return Result{}, refuse("the layer has a mask input; UNIDIRECTIONAL_SEQUENCE_LSTM has no mask (TensorFlow Lite's converter refuses it too)")
	case len(g.Params) != 6 || len(g.Results) != 5:
		return Result{}, refuse("the function has %d inputs and %d outputs, not the Keras LSTM signature (inputs, init_h, init_c, kernel, recurrent_kernel, bias) → (last_output, outputs, new_h, new_c, runtime)", len(g.Params), len(g.Results))
	}
	if err := checkSequenceInput(s, g, "LSTM"); err != nil {
		return Result{}, err
	}
	L, err := findLoop(g, s.Module)
	if err != nil {
		return Result{}, err
	}
	if len(L.states) != 2 {
		return Result{}, refuse("the loop carries %d float states; an LSTM carries two (h, c)", len(L.states))
	}
	if L.seqSource != g.Params[0] {
		return Result{}, refuse("the loop's sequence is not the layer's input")
	}
	W, R, b := constValue(g.Params[3]), constValue(g.Params[4]), constValue(g.Params[5])
	for i, t := range []*ir.Tensor{W, R, b} {
		if t == nil {
			return Result{}, refuse("the %s is not a constant (weights computed at run time); the fused operator needs constant weights", [3]string{"kernel", "recurrent kernel", "bias"}[i])
		}
	}
	if W.Shape.Rank() != 2 || W.Shape[1]%4 != 0 || W.Shape[0] != L.nIn {
		return Result{}, refuse("the kernel has shape %s, want [%d, 4·units]", W.Shape, L.nIn)
	}
	u := W.Shape[1] / 4
	diag := r.Indy
	switch {
	case !diag && !R.Shape.Equal(ir.Shape{u, 4 * u}):
		return Result{}, refuse("the recurrent kernel has shape %s, want [%d, %d]", R.Shape, u, 4*u)
	case diag && !R.Shape.Equal(ir.Shape{1, 4 * u}) && !R.Shape.Equal(ir.Shape{4 * u}):
		return Result{}, refuse("the IndyLSTM recurrent kernel has shape %s, want [1, %d] (diagonal)", R.Shape, 4*u)
	case !b.Shape.Equal(ir.Shape{4 * u}):
		return Result{}, refuse("the bias has shape %s, want [%d]", b.Shape, 4*u)
	}
	for k := range L.states {
		if !L.stateShapes[k].Equal(ir.Shape{L.batch, u}) {
			return Result{}, refuse("loop state %d has shape %s, want [%d, %d]", k, L.stateShapes[k], L.batch, u)
		}
	}
	cell := &lstmCell{nIn: L.nIn, units: u, W: W.Float64s(), R: R.Float64s(), b: b.Float64s(), diagonal: diag}
	hIdx, act, err := matchLSTM(L, cell)
	if err != nil {
		return Result{}, err
	}
	cIdx := 1 - hIdx

	roles, stateOf, err := L.resultRoles()
	if err != nil {
		return Result{}, err
	}
	finals := [2][]int{}
	for i, role := range roles {
		used := s.OutputUsed(i)
		switch role {
		case roleState:
			finals[stateOf[i]] = append(finals[stateOf[i]], i)
		case roleOther:
			if used {
				return Result{}, refuse("call output %d is used but is neither the last output, the output sequence nor a final state", i)
			}
		}
	}
	hUse, err := analyseState(s, "h", L.while.Inputs[L.states[hIdx]], finals[hIdx], false)
	if err != nil {
		return Result{}, err
	}
	cUse, err := analyseState(s, "c", L.while.Inputs[L.states[cIdx]], finals[cIdx], false)
	if err != nil {
		return Result{}, err
	}
	if (hUse.variable == nil) != (cUse.variable == nil) {
		return Result{}, refuse("one LSTM state is kept in a variable and the other is not")
	}

	// Everything checked: emit.
	gates := &LSTMGates{}
	for k := 0; k < 4; k++ {
		gates.Input[k] = gateBlockT(cell.W, L.nIn, 4*u, k*u, u)
		if diag {
			gates.Recurrent[k] = vecBlock(cell.R, k*u, u)
		} else {
			gates.Recurrent[k] = gateBlockT(cell.R, u, 4*u, k*u, u)
		}
		gates.Bias[k] = vecBlock(cell.b, k*u, u)
	}
	f, name := s.Caller, s.Call.Name
	var ops []string
	var seq *ir.Value
	x := s.Call.Inputs[0]
	timeAxis := 1
	if L.timeMajor {
		timeAxis = 0
	}
	if L.goBackwards {
		x = emitReverse(f, name+"/reverse", x, timeAxis)
		ops = append(ops, "REVERSE_V2")
	}
	seq, hUse.tensor, cUse.tensor, err = emitSequenceLSTM(f, name+"/lstm", x, gates, LSTMOptions{Activation: act, CellClip: r.CellClip, TimeMajor: L.timeMajor}, nil, nil)
	if err != nil {
		return Result{}, err
	}
	ops = append(ops, "UNIDIRECTIONAL_SEQUENCE_LSTM")
	ops = append(ops, replaceSequenceOutputs(s, roles, seq, L.timeMajor, timeAxis)...)
	bindStates([]*stateUse{hUse, cUse})
	return Result{Fused: true, Ops: ops, Reason: layoutNote(L, r.CellClip, stateNotes([]*stateUse{hUse, cUse}))}, nil
}

// checkSequenceInput refuses a layer input that is not a static rank-3
// float32 tensor, naming a dynamic batch or time dimension.
func checkSequenceInput(s *Site, g *ir.Function, what string) error {
	x := s.Call.Inputs[0]
	if x.DType != ir.Float32 {
		return refuse("the input is %s; the fused %s is converted for float32", x.DType, what)
	}
	if x.Shape.Rank() != 3 {
		return refuse("the input has shape %s, want rank 3", x.Shape)
	}
	if x.Shape.Static() {
		return nil
	}
	batchAxis, timeAxis := 0, 1
	if a, ok := g.Attrs["time_major"]; ok && a.GetB() {
		batchAxis, timeAxis = 1, 0
	}
	if x.Shape[batchAxis] < 0 {
		return refuse("the batch size is not static (input shape %s); the fused %s needs it (pin it with --input_shapes)", x.Shape, what)
	}
	if x.Shape[timeAxis] < 0 {
		return refuse("the time dimension is not static (input shape %s); pin it with --input_shapes", x.Shape)
	}
	return refuse("the input shape %s is not static", x.Shape)
}

// matchLSTM evaluates the loop body on probe values and finds which state
// is h and which gate and cell activations reproduce it. The gates must
// be sigmoid; the activation must be one the fused operator has.
func matchLSTM(L *loopInfo, cell *lstmCell) (hIdx int, act schema.ActivationFunctionType, err error) {
	p, err := L.lstmProbe()
	if err != nil {
		return 0, 0, err
	}
	return p.fit(cell).check()
}

// lstmProbe is one evaluation of an LSTM loop body on probe values.
type lstmProbe struct {
	batch  int
	x      []float64
	states [2][]float64 // the states bound, in loop order
	next   [2][]float64 // the states the body returned
	// hIdxs are the states that may be h: the one the body writes to its
	// output list, or either when it writes none.
	hIdxs []int
}

// lstmProbe evaluates the body once and finds which state is h (the one
// the body writes to its output list).
func (L *loopInfo) lstmProbe() (*lstmProbe, error) {
	rng := &probeRand{s: 0x5eed}
	B := L.batch
	x := rng.uniform(ir.Shape{B, L.nIn}, -1, 1)
	s0 := rng.uniform(ir.Shape{B, L.stateShapes[0][1]}, -1, 1)
	s1 := rng.uniform(ir.Shape{B, L.stateShapes[1][1]}, -2, 2)
	out, next, err := L.step(x, []*ir.Tensor{s0, s1})
	if err != nil {
		return nil, err
	}
	p := &lstmProbe{batch: B, x: x.Float64s(), states: [2][]float64{s0.Float64s(), s1.Float64s()},
		next: [2][]float64{next[0].Float64s(), next[1].Float64s()}}
	switch {
	case out == nil:
		p.hIdxs = []int{0, 1}
	case maxDiff(out.Float64s(), p.next[0]) == 0:
		p.hIdxs = []int{0}
	case maxDiff(out.Float64s(), p.next[1]) == 0:
		p.hIdxs = []int{1}
	default:
		return nil, refuse("the loop's output is neither of its states (not an LSTM without projection)")
	}
	return p, nil
}

// lstmFit is how close a cell comes to a probed body.
type lstmFit struct {
	hIdx     int
	diff     float64
	rec, act activation
}

// fit finds which state is h and the gate and cell activations with which
// cell comes closest to the probed body.
func (p *lstmProbe) fit(cell *lstmCell) lstmFit {
	best := lstmFit{diff: -1}
	for _, hIdx := range p.hIdxs {
		h, c := p.states[hIdx], p.states[1-hIdx]
		gotH, gotC := p.next[hIdx], p.next[1-hIdx]
		if len(h) != cell.outUnits()*p.batch || len(c) != cell.units*p.batch {
			continue
		}
		z := cell.preact(p.x, h, p.batch)
		for _, rec := range gateActivations {
			for _, a := range activations {
				wh, wc := cell.apply(z, c, p.batch, rec, a)
				d := max(maxDiff(gotH, wh), maxDiff(gotC, wc))
				if best.diff < 0 || d < best.diff {
					best = lstmFit{hIdx: hIdx, diff: d, rec: rec, act: a}
				}
			}
		}
	}
	return best
}

// check refuses a fit that is not close enough, non-sigmoid gates or an
// activation UNIDIRECTIONAL_SEQUENCE_LSTM does not have.
func (f lstmFit) check() (hIdx int, act schema.ActivationFunctionType, err error) {
	if f.diff > cellTolerance || f.diff < 0 {
		return 0, 0, refuse("the loop body does not compute a Keras LSTM cell with the layer's weights (closest: %s gates, %s activation, off by %.3g)", f.rec.name, f.act.name, f.diff)
	}
	if f.rec.name != "sigmoid" {
		return 0, 0, refuse("the recurrent activation is %s, not sigmoid; UNIDIRECTIONAL_SEQUENCE_LSTM's gates are sigmoid", f.rec.name)
	}
	a, ok := lstmActivations[f.act.name]
	if !ok {
		return 0, 0, refuse("the activation is %s; the fused LSTM applies tanh, relu or relu6 (TensorFlow Lite's kernel has no linear form: with NONE it leaves its gate buffer unwritten)", f.act.name)
	}
	return f.hIdx, a, nil
}

// lstmActivations are the cell activations UNIDIRECTIONAL_SEQUENCE_LSTM
// can apply (TFLite refuses NONE and has no sigmoid there).
var lstmActivations = map[string]schema.ActivationFunctionType{
	"tanh": schema.ActivationFunctionTypeTANH, "relu": schema.ActivationFunctionTypeRELU, "relu6": schema.ActivationFunctionTypeRELU6,
}

// gateBlockT returns columns [c0, c0+n) of the row-major matrix m [rows,
// cols], transposed: a float32 tensor [n, rows].
func gateBlockT(m []float64, rows, cols, c0, n int) *ir.Tensor {
	v := make([]float32, n*rows)
	for i := 0; i < n; i++ {
		for j := 0; j < rows; j++ {
			v[i*rows+j] = float32(m[j*cols+c0+i])
		}
	}
	return ir.FromFloat32s(ir.Shape{n, rows}, v)
}

// vecBlock returns elements [c0, c0+n) of v as a float32 tensor [n].
func vecBlock(v []float64, c0, n int) *ir.Tensor {
	w := make([]float32, n)
	for i := range w {
		w[i] = float32(v[c0+i])
	}
	return ir.FromFloat32s(ir.Shape{n}, w)
}

// replaceSequenceOutputs rewires the used call outputs that are the last
// output, the output sequence (maybe reversed) or a constant to the fused
// sequence seq. It returns the operators it added.
func replaceSequenceOutputs(s *Site, roles []outputRole, seq *ir.Value, timeMajor bool, timeAxis int) []string {
	var ops []string
	var last, rev *ir.Value
	lastStep := func() *ir.Value {
		if last == nil {
			last = emitLastStep(s.Caller, s.Call.Name+"/last_output", seq, timeMajor)
			ops = append(ops, "STRIDED_SLICE")
		}
		return last
	}
	for i, role := range roles {
		if !s.OutputUsed(i) {
			continue
		}
		switch role {
		case roleLastAsSequence:
			s.ReplaceOutput(i, emitReshape(s.Caller, s.Call.Name+"/last_output_sequence", lastStep(), s.Call.Outputs[i].Shape))
			ops = append(ops, "RESHAPE")
		case roleSequence:
			s.ReplaceOutput(i, seq)
		case roleSequenceReversed:
			if rev == nil {
				rev = emitReverse(s.Caller, s.Call.Name+"/reverse_outputs", seq, timeAxis)
				ops = append(ops, "REVERSE_V2")
			}
			s.ReplaceOutput(i, rev)
		case roleLast:
			s.ReplaceOutput(i, lastStep())
		case roleConstant:
			c := s.Callee.Results[i].Const
			if c == nil && s.Callee.Results[i].Producer != nil && len(s.Callee.Results[i].Producer.Outputs) > 0 {
				c = s.Callee.Results[i].Producer.Outputs[0].Const
			}
			if c != nil {
				s.ReplaceOutput(i, s.Caller.NewConst(s.Call.Name+fmt.Sprintf("/output_%d", i), c))
			}
		}
	}
	return ops
}

// layoutNote describes the mapping for the report.
func layoutNote(L *loopInfo, cellClip float32, states string) string {
	parts := []string{}
	if L.timeMajor {
		parts = append(parts, "time-major")
	} else {
		parts = append(parts, "batch-major")
	}
	if L.goBackwards {
		parts = append(parts, "go_backwards (input reversed in time)")
	}
	parts = append(parts, fmt.Sprintf("batch %d, %d steps", L.batch, L.steps))
	if cellClip != 0 {
		parts = append(parts, fmt.Sprintf("cell_clip %g as TensorFlow Lite's converter writes", cellClip))
	}
	if states != "" {
		parts = append(parts, states)
	}
	return strings.Join(parts, "; ")
}
