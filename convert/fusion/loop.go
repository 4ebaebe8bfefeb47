package fusion

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/internal/passes"
	"github.com/tflrun/tflrun/convert/ir"
)

// A Keras recurrent layer runs its cell in a functional While loop over
// time (keras.backend.rnn, which standard_lstm, standard_gru and every
// generic RNN layer use):
//
//	seq   = [reverse(] transpose-to-time-major(inputs) [)]   (go_backwards)
//	in    = TensorListFromTensor(seq)
//	out   = TensorListReserve(T)
//	while time < T:                                (body, cond functions)
//	    x      = TensorListGetItem(in, time)
//	    states = cell(x, states)
//	    out    = TensorListSetItem(out, time, output)
//	    time  += 1
//	outputs = TensorListStack(out)                 [T, batch, units]
//	last    = outputs[-1]; outputs = transpose-back(outputs)
//
// loopInfo is that structure as found in one function, with the loop
// body specialised to the loop's invariant inputs (the weights), so the
// cell can be evaluated on probe values.

// loopInfo describes a recurrent While loop.
type loopInfo struct {
	fn    *ir.Function // the function holding the loop
	while *ir.Node
	// body is a private copy of the loop body with the invariant loop
	// variables bound and simplified; cond a private copy of the
	// condition.
	body, cond *ir.Function
	// Loop variable indices: the time index, the input list (or
	// TensorArray handle), the output list (or TensorArray flow; -1 when
	// the loop writes no outputs, only its final state being used), and
	// the float state variables in loop order.
	time, inList, outList int
	states                []int
	invariant             []bool
	// In body: the element read from the input list, and the element
	// written to the output list (nil when none is).
	read, write *ir.Value
	// writeAll is true when step t is written to item t of the output
	// list; false when every step overwrites item 0 of a one-item list
	// (Keras ≥ 2.11 when only the last output is returned), so that the
	// stacked list holds the last step alone.
	writeAll bool
	// seqSource is the value in fn the input sequence is taken from (the
	// layer input, before transposition and reversal), seq the
	// time-major sequence the list is built from, stack the stacked
	// output list [T, batch, units] (nil when the outputs are never
	// stacked).
	seqSource, seq, stack *ir.Value
	// Static sizes.
	steps, batch, nIn int
	stateShapes       []ir.Shape
	// Layout of seqSource: timeMajor ([T, batch, n_input] rather than
	// [batch, T, n_input]) and goBackwards (the loop walks it from the
	// last step to the first).
	timeMajor, goBackwards bool
}

// refusal is a reason a rule declines a composite: the function is then
// lowered op by op and the report carries the text.
type refusal struct{ reason string }

func (r *refusal) Error() string { return r.reason }

func refuse(format string, args ...any) error {
	return &refusal{fmt.Sprintf(format, args...)}
}

// whileOps are the functional loop ops.
var whileOps = map[string]bool{"While": true, "StatelessWhile": true}

// findLoop locates and analyses the single recurrent loop of fn. m gives
// the body and condition functions. A loop that does not have the Keras
// shape gives a refusal naming what differs; a malformed graph gives an
// error.
func findLoop(fn *ir.Function, m *ir.Module) (*loopInfo, error) {
	var loops []*ir.Node
	for _, n := range fn.Nodes {
		if whileOps[n.Op] {
			loops = append(loops, n)
		}
	}
	switch len(loops) {
	case 0:
		return nil, refuse("the function has no While loop over time (not a Keras recurrent layer body)")
	case 1:
	default:
		return nil, refuse("the function has %d While loops; a Keras recurrent layer has one", len(loops))
	}
	return analyseLoop(fn, loops[0], m)
}

// analyseLoop analyses one While node of fn.
func analyseLoop(fn *ir.Function, w *ir.Node, m *ir.Module) (*loopInfo, error) {
	if m == nil {
		return nil, refuse("no function library to read the loop body from")
	}
	bodyName, err := w.AttrFunc("body")
	if err != nil {
		return nil, err
	}
	condName, err := w.AttrFunc("cond")
	if err != nil {
		return nil, err
	}
	rawBody, err := m.Function(bodyName)
	if err != nil {
		return nil, w.Wrap(err)
	}
	rawCond, err := m.Function(condName)
	if err != nil {
		return nil, w.Wrap(err)
	}
	nv := len(w.Inputs)
	if len(rawBody.Params) != nv || len(rawBody.Results) != nv || len(w.Outputs) != nv || len(rawCond.Params) != nv || len(rawCond.Results) != 1 {
		return nil, w.Errorf("loop has %d variables, body %s takes %d and returns %d, condition %s takes %d",
			nv, bodyName, len(rawBody.Params), len(rawBody.Results), condName, len(rawCond.Params))
	}
	L := &loopInfo{fn: fn, while: w, invariant: make([]bool, nv)}

	// Loop invariants: body result i is parameter i, maybe through
	// identities. They are bound to the loop's inputs (constants,
	// resolved variables), which makes the weights constants in the body.
	L.body = rawBody.Clone()
	for i, r := range L.body.Results {
		L.invariant[i] = throughIdentities(r) == L.body.Params[i]
	}
	for i, p := range L.body.Params {
		in := w.Inputs[i]
		if in == nil {
			return nil, w.Errorf("loop variable %d is missing", i)
		}
		if s, ok := ir.Merge(in.Shape, p.Shape); ok {
			p.Shape = s
		} else {
			p.Shape = in.Shape.Clone()
		}
		if p.DType == ir.Invalid {
			p.DType = in.DType
		}
		if L.invariant[i] {
			p.Const, p.Variable = in.Const, in.Variable
		}
	}
	if err := passes.Simplify(L.body); err != nil {
		return nil, err
	}
	L.cond = rawCond.Clone()

	// The list read and the list write: TensorList ops (TF2), or
	// TensorArray ops (TF1 loops, which thread a flow value through every
	// write; the handles are loop invariants).
	var gets, sets []*ir.Node
	for _, n := range L.body.Nodes {
		switch n.Op {
		case "TensorListGetItem", "TensorArrayReadV3":
			gets = append(gets, n)
		case "TensorListSetItem", "TensorArrayWriteV3":
			sets = append(sets, n)
		}
	}
	if len(gets) == 0 {
		// TensorFlow Lite's lowering of a list of static element shape
		// (lower-static-tensor-list): the sequence is itself a loop
		// invariant, read with GatherV2 along axis 0 at the time index.
		for _, n := range L.body.Nodes {
			if n.Op != "GatherV2" || len(n.Inputs) != 3 || n.Inputs[0] == nil || n.Inputs[2] == nil || n.Inputs[2].Const == nil || n.Inputs[2].Const.NumElements() != 1 || n.Inputs[2].Const.Ints()[0] != 0 {
				continue
			}
			if i, ok := paramIndex(L.body, n.Inputs[0]); ok && L.invariant[i] {
				gets = append(gets, n)
			}
		}
	}
	if len(gets) == 2 {
		// keras.backend.rnn with a mask (Embedding(mask_zero=True), a
		// Masking layer, a mask argument) reads the bool mask step by
		// step beside the input and holds the states and the output
		// where it is false.
		for _, g := range gets {
			if len(g.Outputs) > 0 && g.Outputs[0] != nil && g.Outputs[0].DType == ir.Bool {
				return nil, refuse("the layer is masked (the loop reads a bool mask sequence beside its input: Embedding(mask_zero=True), Masking or a mask argument); the fused recurrent operators have no mask input and TensorFlow's converter does not fuse a masked layer either, so the loop is lowered op by op with the mask kept (states and outputs held at masked steps)")
			}
		}
	}
	if len(gets) != 1 {
		return nil, refuse("the loop body reads %d sequences (a Keras layer without a mask reads one)", len(gets))
	}
	if len(sets) > 1 {
		return nil, refuse("the loop body writes %d sequences (a Keras layer writes one)", len(sets))
	}
	get := gets[0]
	if len(get.Inputs) < 2 || get.Inputs[0] == nil || get.Inputs[1] == nil {
		return nil, get.Errorf("list access with too few inputs")
	}
	var ok bool
	if L.inList, ok = paramIndex(L.body, get.Inputs[0]); !ok {
		return nil, refuse("the loop reads a list that is not a loop variable")
	}
	if L.time, ok = paramIndex(L.body, get.Inputs[1]); !ok || L.invariant[L.time] {
		return nil, refuse("the loop reads its input at an index that is not the loop's time variable")
	}
	L.read, L.outList = get.Outputs[0], -1
	if len(sets) == 1 {
		set := sets[0]
		listIn := 0
		if set.Op == "TensorArrayWriteV3" {
			listIn = 3 // the flow; input 0 is the invariant handle
		}
		if len(set.Inputs) <= listIn || len(set.Inputs) < 3 || set.Inputs[listIn] == nil || set.Inputs[1] == nil || set.Inputs[2] == nil {
			return nil, set.Errorf("list access with too few inputs")
		}
		if L.outList, ok = paramIndex(L.body, set.Inputs[listIn]); !ok || L.invariant[L.outList] {
			return nil, refuse("the loop writes to a list that is not a loop variable")
		}
		if j, ok := paramIndex(L.body, set.Inputs[1]); ok && j == L.time {
			L.writeAll = true
		} else if c := set.Inputs[1].Const; c == nil || c.NumElements() != 1 || c.Ints()[0] != 0 {
			return nil, refuse("the loop writes its output at an index other than the time it reads (or item 0)")
		}
		if throughIdentities(L.body.Results[L.outList]) != set.Outputs[0] {
			return nil, refuse("the loop's output list is not the list it writes")
		}
		L.write = set.Inputs[2]
	}
	for i, p := range L.body.Params {
		if L.invariant[i] || i == L.time || i == L.inList || i == L.outList {
			continue
		}
		if p.DType.IsFloat() {
			L.states = append(L.states, i)
		}
	}

	// The sequence: TensorListFromTensor(seq) of the loop's input list,
	// or TensorArrayScatterV3 of seq over 0..T-1 into its TensorArray;
	// seq a transposition/reversal of the layer input.
	if get.Op == "GatherV2" {
		L.seq = w.Inputs[L.inList]
	} else if get.Op == "TensorArrayReadV3" {
		seq, err := scatteredSequence(fn, w.Inputs[L.inList])
		if err != nil {
			return nil, err
		}
		L.seq = seq
	} else {
		lf := w.Inputs[L.inList].Producer
		if lf == nil || lf.Op != "TensorListFromTensor" || len(lf.Inputs) < 1 || lf.Inputs[0] == nil {
			return nil, refuse("the loop's input list is not built from a tensor (TensorListFromTensor)")
		}
		L.seq = lf.Inputs[0]
	}
	if r := L.seq.Shape.Rank(); r >= 4 && L.seq.Shape.Static() {
		return nil, refuse("the loop walks a sequence of rank-%d frames %s (a convolutional recurrent layer such as Keras's ConvLSTM1D/2D/3D): TensorFlow Lite has no fused convolutional recurrent operator (its LSTM, GRU and RNN operators multiply feature vectors), so the loop is unrolled", r-1, L.seq.Shape)
	}
	if !L.seq.Shape.Static() || L.seq.Shape.Rank() != 3 {
		return nil, refuse("the input sequence has shape %s; a static [time, batch, features] shape is needed (dynamic batch or time?)", L.seq.Shape)
	}
	L.steps, L.batch, L.nIn = L.seq.Shape[0], L.seq.Shape[1], L.seq.Shape[2]
	if L.steps < 1 {
		return nil, refuse("the input sequence has no time steps")
	}
	L.seqSource = L.seq
	for k := 0; k < 64 && L.seqSource.Producer != nil && (L.seqSource.Producer.Op == "Transpose" || L.seqSource.Producer.Op == "ReverseV2"); k++ {
		p := L.seqSource.Producer
		if len(p.Inputs) == 0 || p.Inputs[0] == nil {
			return nil, p.Errorf("has no input")
		}
		L.seqSource = p.Inputs[0]
	}
	if err := L.findLayout(); err != nil {
		return nil, err
	}
	for _, i := range L.states {
		s := w.Inputs[i].Shape
		if !s.Static() || s.Rank() != 2 || s[0] != L.batch {
			return nil, refuse("loop state %d has shape %s; a static [batch=%d, units] shape is needed (dynamic batch?)", i, s, L.batch)
		}
		L.stateShapes = append(L.stateShapes, s)
	}

	// The stacked outputs: TensorListStack of the output list, or
	// TensorArrayGatherV3 of the TensorArray the final flow belongs to.
	if L.outList >= 0 && get.Op != "TensorArrayReadV3" && w.Outputs[L.outList].DType.IsFloat() && w.Inputs[L.outList].Shape.Rank() >= 2 {
		// A list lowered to a tensor [T, batch, units]: the loop's
		// output is the stacked list itself.
		L.stack = w.Outputs[L.outList]
	} else if L.outList >= 0 {
		for _, n := range fn.Nodes {
			for j, in := range n.Inputs {
				if in != w.Outputs[L.outList] {
					continue
				}
				switch {
				case n.Op == "TensorArraySizeV3" && j == 1:
					continue // the size of the stack, static
				case n.Op == "TensorArrayGatherV3" && j == 2 && L.stack == nil:
					if !gathersAll(n.Inputs[1], L.steps) {
						return nil, refuse("the loop's outputs are gathered at indices other than 0..T-1")
					}
					L.stack = n.Outputs[0]
				case n.Op == "TensorListStack" && L.stack == nil:
					L.stack = n.Outputs[0]
				default:
					return nil, refuse("the loop's output list is used by %s, not only stacked", n)
				}
			}
		}
	}
	if err := L.checkCounting(); err != nil {
		return nil, err
	}
	return L, nil
}

// throughIdentities follows v back through Identity/IdentityN nodes.
func throughIdentities(v *ir.Value) *ir.Value {
	for k := 0; v != nil && v.Producer != nil && k < 64; k++ {
		p := v.Producer
		switch p.Op {
		case "Identity", "Snapshot", "StopGradient":
			if len(p.Inputs) == 0 {
				return v
			}
			v = p.Inputs[0]
		case "IdentityN":
			if v.Index >= len(p.Inputs) {
				return v
			}
			v = p.Inputs[v.Index]
		default:
			return v
		}
	}
	return v
}

// paramIndex returns the parameter index of v in f.
func paramIndex(f *ir.Function, v *ir.Value) (int, bool) {
	for i, p := range f.Params {
		if p == v {
			return i, true
		}
	}
	return 0, false
}

// findLayout decides, by evaluating the code between the layer input and
// the list the loop reads on a ramp, whether the input is time-major and
// whether the loop walks it backwards.
func (L *loopInfo) findLayout() error {
	src := L.seqSource
	if src == L.seq {
		L.timeMajor = true
		return nil
	}
	if !src.Shape.Static() || src.Shape.Rank() != 3 {
		return refuse("the layer input has shape %s; a static rank-3 shape is needed (dynamic batch?)", src.Shape)
	}
	probe := ramp(src.Shape)
	got, err := evaluate(L.fn, map[*ir.Value]binding{src: {t: probe}}, []*ir.Value{L.seq})
	if err != nil {
		return err
	}
	T, B, F := L.steps, L.batch, L.nIn
	for _, tm := range []bool{false, true} {
		// With batch 1 (or one step) both layouts order the data alike;
		// the input's shape tells them apart.
		if tm && !src.Shape.Equal(ir.Shape{T, B, F}) || !tm && !src.Shape.Equal(ir.Shape{B, T, F}) {
			continue
		}
		for _, back := range []bool{false, true} {
			want := make([]float64, T*B*F)
			for t := 0; t < T; t++ {
				st := t
				if back {
					st = T - 1 - t
				}
				for b := 0; b < B; b++ {
					for k := 0; k < F; k++ {
						var idx int
						if tm {
							idx = (st*B+b)*F + k
						} else {
							idx = (b*T+st)*F + k
						}
						want[(t*B+b)*F+k] = float64(idx + 1)
					}
				}
			}
			if sameValues(got[0], L.seq.Shape, want) {
				L.timeMajor, L.goBackwards = tm, back
				return nil
			}
		}
	}
	return refuse("the input sequence is not the layer input in batch-major or time-major order (forwards or backwards)")
}

// checkCounting verifies that the loop starts at time 0, advances it by
// one per step and runs exactly T steps.
func (L *loopInfo) checkCounting() error {
	t0 := L.while.Inputs[L.time].Const
	if t0 == nil || t0.NumElements() != 1 || t0.Ints()[0] != 0 {
		return refuse("the loop's time variable does not start at 0")
	}
	tt := L.body.Params[L.time].DType
	five, err := ir.FromInts(tt, ir.Scalar(), []int{5})
	if err != nil {
		return refuse("the loop's time variable is %s", tt)
	}
	got, err := evaluate(L.body, map[*ir.Value]binding{L.body.Params[L.time]: {t: five}}, []*ir.Value{L.body.Results[L.time]})
	if err != nil {
		return err
	}
	if got[0] == nil || got[0].NumElements() != 1 || got[0].Ints()[0] != 6 {
		return refuse("the loop does not advance its time variable by one per step")
	}
	for _, k := range []int{L.steps - 1, L.steps} {
		bind := map[*ir.Value]binding{}
		for i, p := range L.cond.Params {
			in := L.while.Inputs[i]
			switch {
			case L.invariant[i] && in.Const != nil:
				bind[p] = binding{t: in.Const}
			case L.invariant[i] && in.Variable != nil:
				bind[p] = binding{v: in.Variable}
			case in.DType.IsInteger() && in.Shape.Rank() == 0 && !L.invariant[i]:
				// The time index and the loop counter move together.
				c, err := ir.FromInts(in.DType, ir.Scalar(), []int{k})
				if err != nil {
					return refuse("loop variable %d is %s", i, in.DType)
				}
				bind[p] = binding{t: c}
			}
		}
		got, err := evaluate(L.cond, bind, []*ir.Value{L.cond.Results[0]})
		if err != nil {
			return err
		}
		want := int64(0)
		if k < L.steps {
			want = 1
		}
		if got[0] == nil || got[0].NumElements() != 1 || got[0].Int64s()[0] != want {
			return refuse("the loop condition does not stop after the %d time steps of the input", L.steps)
		}
	}
	return nil
}

// step evaluates the loop body once: the element read is x [batch,
// n_input], the state variables are states (in L.states order); it
// returns the element written (nil when the loop writes none) and the new
// states.
func (L *loopInfo) step(x *ir.Tensor, states []*ir.Tensor) (out *ir.Tensor, next []*ir.Tensor, err error) {
	bind := map[*ir.Value]binding{L.read: {t: x}}
	write := L.write
	if write == nil {
		write = L.read // a loop that writes nothing (only its final state is used)
	}
	want := []*ir.Value{write}
	for k, i := range L.states {
		bind[L.body.Params[i]] = binding{t: states[k]}
		want = append(want, L.body.Results[i])
	}
	got, err := evaluate(L.body, bind, want)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range got {
		if t == nil {
			return nil, nil, refuse("the loop body could not be evaluated at conversion time (an op tflrun cannot fold, or a state that depends on something else)")
		}
	}
	if L.write == nil {
		return nil, got[1:], nil
	}
	return got[0], got[1:], nil
}

// outputRole says what a function result is in terms of the loop.
type outputRole int

const (
	roleOther    outputRole = iota // something else (refused if used)
	roleLast                       // the last output step [batch, units]
	roleSequence                   // every output step, in the input's layout
	roleSequenceReversed
	roleLastAsSequence // the last step as a one-step sequence
	roleState          // a final state (stateIndex says which)
	roleConstant       // a constant (Keras's "runtime" marker)
)

// resultRoles evaluates fn's results with the stacked outputs and the
// final states replaced by ramps, and classifies each.
func (L *loopInfo) resultRoles() (roles []outputRole, stateIndex []int, err error) {
	n := len(L.fn.Results)
	roles, stateIndex = make([]outputRole, n), make([]int, n)
	if L.stack == nil {
		return nil, nil, refuse("the loop's outputs are never stacked")
	}
	T, B := L.steps, L.batch
	if !L.writeAll {
		T = 1 // the list holds the last step only
	}
	U := -1
	if len(L.stateShapes) > 0 {
		U = L.stateShapes[0][1]
	}
	ss, ok := ir.Merge(L.stack.Shape, ir.Shape{T, B, U})
	if !ok || !ss.Static() {
		return nil, nil, refuse("the stacked outputs have shape %s, want [%d, %d, %d]", L.stack.Shape, T, B, U)
	}
	U = ss[2]
	bind := map[*ir.Value]binding{L.stack: {t: ramp(ss)}}
	base := float64(T*B*U + 1000)
	finals := make([][]float64, len(L.states))
	for k, i := range L.states {
		sh := L.stateShapes[k]
		t := ramp(sh)
		v := t.Float64s()
		for j := range v {
			v[j] += base * float64(k+1)
		}
		t, _ = ir.FromFloat64s(ir.Float32, sh, v)
		finals[k] = v
		bind[L.while.Outputs[i]] = binding{t: t}
	}
	got, err := evaluate(L.fn, bind, L.fn.Results)
	if err != nil {
		return nil, nil, err
	}
	last := make([]float64, B*U)
	for j := range last {
		last[j] = float64((T-1)*B*U + j + 1)
	}
	seq := func(timeMajor, reversed bool) []float64 {
		out := make([]float64, T*B*U)
		for t := 0; t < T; t++ {
			st := t
			if reversed {
				st = T - 1 - t
			}
			for b := 0; b < B; b++ {
				for k := 0; k < U; k++ {
					src := (st*B+b)*U + k + 1
					if timeMajor {
						out[(t*B+b)*U+k] = float64(src)
					} else {
						out[(b*T+t)*U+k] = float64(src)
					}
				}
			}
		}
		return out
	}
	seqShape := ir.Shape{B, T, U}
	if L.timeMajor {
		seqShape = ir.Shape{T, B, U}
	}
	for i, r := range L.fn.Results {
		g := got[i]
		stateIndex[i] = -1
		switch {
		case g == nil:
			roles[i] = roleOther
		case r.Producer != nil && r.Producer.Op == "Const" || r.IsParam() && r.Const != nil:
			roles[i] = roleConstant
		case sameValues(g, ir.Shape{B, U}, last):
			roles[i] = roleLast
		case L.writeAll && sameValues(g, seqShape, seq(L.timeMajor, false)):
			roles[i] = roleSequence
		case L.writeAll && sameValues(g, seqShape, seq(L.timeMajor, true)):
			roles[i] = roleSequenceReversed
		case !L.writeAll && (sameValues(g, ir.Shape{B, 1, U}, last) || sameValues(g, ir.Shape{1, B, U}, last)):
			roles[i] = roleLastAsSequence
		default:
			for k := range L.states {
				if sameValues(g, L.stateShapes[k], finals[k]) {
					roles[i], stateIndex[i] = roleState, k
				}
			}
		}
	}
	return roles, stateIndex, nil
}

// scatteredSequence returns the tensor a TF1 loop's input TensorArray
// (handle, a value of fn) is filled from: TensorArrayScatterV3(handle,
// 0..T-1, seq) in fn.
func scatteredSequence(fn *ir.Function, handle *ir.Value) (*ir.Value, error) {
	var sc *ir.Node
	for _, n := range fn.Nodes {
		if n.Op == "TensorArrayScatterV3" && len(n.Inputs) >= 3 && n.Inputs[0] == handle {
			if sc != nil {
				return nil, refuse("the loop's input TensorArray is scattered into twice")
			}
			sc = n
		}
	}
	if sc == nil || sc.Inputs[1] == nil || sc.Inputs[2] == nil {
		return nil, refuse("the loop's input TensorArray is not filled from a tensor (TensorArrayScatterV3)")
	}
	seq, idx := sc.Inputs[2], sc.Inputs[1].Const
	if idx == nil || !seq.Shape.Static() || seq.Shape.Rank() < 1 || idx.NumElements() != seq.Shape[0] {
		return nil, refuse("the loop's input TensorArray is scattered at indices not known at conversion time")
	}
	for i, k := range idx.Ints() {
		if k != i {
			return nil, refuse("the loop's input TensorArray is scattered in another order than 0..T-1")
		}
	}
	return seq, nil
}

// gathersAll reports whether indices are 0..T-1: a constant, or
// Range(0, TensorArraySizeV3(...), 1) as TensorArray.stack builds it.
func gathersAll(indices *ir.Value, T int) bool {
	if indices == nil {
		return false
	}
	if c := indices.Const; c != nil {
		if c.NumElements() != T {
			return false
		}
		for i, k := range c.Ints() {
			if k != i {
				return false
			}
		}
		return true
	}
	r := indices.Producer
	if r == nil || r.Op != "Range" || len(r.Inputs) != 3 || r.Inputs[0] == nil || r.Inputs[1] == nil || r.Inputs[2] == nil {
		return false
	}
	scalar := func(v *ir.Value, want int) bool {
		return v.Const != nil && v.Const.NumElements() == 1 && v.Const.Ints()[0] == want
	}
	size := r.Inputs[1].Producer
	return scalar(r.Inputs[0], 0) && scalar(r.Inputs[2], 1) && size != nil && size.Op == "TensorArraySizeV3"
}

// detachSizes replaces the TensorArraySizeV3 reads of the loop's final
// output flow (TF1's stack) by the constant step count, so that nothing
// depends on the fused loop.
func (L *loopInfo) detachSizes(f *ir.Function) {
	if L.outList < 0 {
		return
	}
	out := L.while.Outputs[L.outList]
	for _, n := range append([]*ir.Node(nil), f.Nodes...) {
		if n.Op == "TensorArraySizeV3" && len(n.Inputs) == 2 && n.Inputs[1] == out && len(n.Outputs) == 1 {
			c := f.NewConst(n.Name+"/steps", ir.FromInt32s(ir.Scalar(), []int32{int32(L.steps)}))
			f.ReplaceAllUses(n.Outputs[0], c)
		}
	}
}
