package convert

import (
	"fmt"
	"slices"

	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// Pairing bidirectional LSTMs. A Keras Bidirectional(LSTM) layer fuses to
// two UNIDIRECTIONAL_SEQUENCE_LSTM operators: a forward one over x and a
// go_backwards one over REVERSE_V2(x) along the time axis, whose output
// (in reversed time) is reversed back when the layer returns sequences,
// or whose last step is taken when it does not; the two are concatenated
// on the last axis. pairBidirectionalLSTM replaces such a pair by one
// BIDIRECTIONAL_SEQUENCE_LSTM, TensorFlow Lite's kernel
// (bidirectional_sequence_lstm.cc): 48 inputs, the input, the forward
// direction's 17 weight, peephole, bias and projection tensors in
// UNIDIRECTIONAL_SEQUENCE_LSTM's order of inputs 1–17, the backward
// direction's 17, the forward output and cell state, the backward ones,
// then the auxiliary input and its 8 weights (all omitted here). Its
// backward direction reads the input from the last time step to the first
// itself and writes each output at its own time position, so the
// backward output of the pair is REVERSE_V2 of the operator's backward
// output: a REVERSE_V2 of it along the time axis cancels, and a
// STRIDED_SLICE of one time step t reads step T−1−t of the operator's
// output instead. When the two outputs are then exactly the inputs of a
// CONCATENATION on the last axis (forward first), the operator merges
// them itself (merge_outputs) and the CONCATENATION goes; otherwise
// (merge_outputs false) it has two outputs, forward and backward.
//
// A pair is kept as two operators, with the reason in the report's notes,
// when the two differ in options (activation, clips, time_major,
// asymmetric_quantize_inputs), in sizes (BIDIRECTIONAL_SEQUENCE_LSTM
// needs one n_cell and one n_output), in weight types, or when one has
// layer norm, diagonal recurrent weights, per-channel weights or state
// that is not a variable tensor of its own: the bidirectional operator
// has none of these. A batch-major pair is not merged: TensorFlow Lite's
// kernel offsets each batch row's state by the merged width there
// (lstm_eval.cc), wrong for a batch above 1, which a dynamic batch
// restored in the model written could reach.
//
// Every rewrite replaces two UNIDIRECTIONAL_SEQUENCE_LSTM nodes by one
// BIDIRECTIONAL_SEQUENCE_LSTM and removes what no longer feeds a result,
// so the pass ends after at most half as many rewrites as there were
// unidirectional operators. It returns the number of pairs made.
func pairBidirectionalLSTM(f *ir.Function, report *fusion.Report) (int, error) {
	isUni := func(n *ir.Node) bool {
		return n.TFL != nil && n.TFL.Builtin == schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM
	}
	budget := 0
	for _, n := range f.Nodes {
		if isUni(n) {
			budget++
		}
	}
	if budget < 2 {
		return 0, nil
	}
	noted := map[[2]*ir.Node]bool{}
	paired := 0
	for round := 0; ; round++ {
		if round > budget/2 {
			return paired, fmt.Errorf("%s: pairing bidirectional LSTMs did not end after %d rewrites (internal error)", f.Where(), round)
		}
		var fw, bw *ir.Node
		for _, n := range f.Nodes {
			if !isUni(n) {
				continue
			}
			x, ok := reversedInput(n)
			if !ok {
				continue
			}
			for _, m := range f.Nodes {
				if m == n || !isUni(m) || len(m.Inputs) == 0 || m.Inputs[0] != x {
					continue
				}
				if why := pairRefusal(f, m, n); why != "" {
					if key := [2]*ir.Node{m, n}; !noted[key] {
						noted[key] = true
						report.Notes = append(report.Notes, fmt.Sprintf("bidirectional pair %q (forward) and %q (backward) kept as two UNIDIRECTIONAL_SEQUENCE_LSTM: %s", m.Name, n.Name, why))
					}
					continue
				}
				fw, bw = m, n
				break
			}
			if fw != nil {
				break
			}
		}
		if fw == nil {
			return paired, nil
		}
		note, err := pairLSTMs(f, fw, bw)
		if err != nil {
			return paired, err
		}
		report.Notes = append(report.Notes, note)
		paired++
		f.RemoveUnused()
		if err := f.TopoSort(); err != nil {
			return paired, err
		}
	}
}

// uniOptions returns the options of an UNIDIRECTIONAL_SEQUENCE_LSTM node
// (the schema's defaults when it has none).
func uniOptions(n *ir.Node) *schema.UnidirectionalSequenceLSTMOptionsT {
	if n.TFL.Options != nil {
		if o, ok := n.TFL.Options.Value.(*schema.UnidirectionalSequenceLSTMOptionsT); ok && o != nil {
			return o
		}
	}
	return &schema.UnidirectionalSequenceLSTMOptionsT{}
}

// timeAxis is the time axis of an UNIDIRECTIONAL_SEQUENCE_LSTM's input.
func timeAxis(n *ir.Node) int {
	if uniOptions(n).TimeMajor {
		return 0
	}
	return 1
}

// reversedInput returns x when n's input is REVERSE_V2(x) along n's time
// axis.
func reversedInput(n *ir.Node) (*ir.Value, bool) {
	if len(n.Inputs) == 0 || n.Inputs[0] == nil || n.Inputs[0].Producer == nil {
		return nil, false
	}
	r := n.Inputs[0].Producer
	if r.TFL == nil || r.TFL.Builtin != schema.BuiltinOperatorREVERSE_V2 || len(r.Inputs) != 2 || r.Inputs[0] == nil {
		return nil, false
	}
	if !isAxis(r.Inputs[1], timeAxis(n), 3) {
		return nil, false
	}
	return r.Inputs[0], true
}

// isAxis reports whether v is a constant holding the one axis a of a
// rank-rank tensor (negative axes counted from the end).
func isAxis(v *ir.Value, a, rank int) bool {
	if v == nil || v.Const == nil || v.Const.NumElements() != 1 || v.DType.IsFloat() {
		return false
	}
	k := v.Const.Ints()[0]
	if k < 0 {
		k += rank
	}
	return k == a
}

// pairRefusal says why fw and bw cannot become one
// BIDIRECTIONAL_SEQUENCE_LSTM ("" when they can).
func pairRefusal(f *ir.Function, fw, bw *ir.Node) string {
	of, ob := uniOptions(fw), uniOptions(bw)
	switch {
	case of.FusedActivationFunction != ob.FusedActivationFunction:
		return "the two directions have different activations"
	case of.CellClip != ob.CellClip || of.ProjClip != ob.ProjClip:
		return "the two directions clip differently"
	case of.TimeMajor != ob.TimeMajor:
		return "one direction is time-major, the other batch-major"
	case of.AsymmetricQuantizeInputs != ob.AsymmetricQuantizeInputs:
		return "the two directions quantise their inputs differently"
	case of.DiagonalRecurrentTensors || ob.DiagonalRecurrentTensors:
		return "diagonal recurrent weights (IndyLSTM), which BIDIRECTIONAL_SEQUENCE_LSTM does not have"
	}
	for _, n := range []*ir.Node{fw, bw} {
		if len(n.Inputs) != 20 && len(n.Inputs) != 24 {
			return fmt.Sprintf("%q has %d inputs", n.Name, len(n.Inputs))
		}
		for i := 20; i < len(n.Inputs); i++ {
			if n.Inputs[i] != nil {
				return "layer normalisation, which BIDIRECTIONAL_SEQUENCE_LSTM does not have"
			}
		}
		if len(n.Outputs) != 1 || !n.Outputs[0].Shape.Static() || n.Outputs[0].Shape.Rank() != 3 {
			return fmt.Sprintf("%q's output is not one static rank-3 tensor", n.Name)
		}
		for _, s := range n.Inputs[18:20] {
			if s == nil || !s.IsVariableTensor || s.Producer != nil || len(f.Users(s)) != 1 {
				return fmt.Sprintf("%q's state is not a variable tensor of its own", n.Name)
			}
		}
		if len(n.TFL.Intermediates) > 0 {
			return fmt.Sprintf("%q has intermediate tensors (integer LSTM)", n.Name)
		}
	}
	if !fw.Inputs[0].Shape.Static() || fw.Inputs[0].Shape.Rank() != 3 || fw.Inputs[0].DType != ir.Float32 {
		return "the input is not a static float32 rank-3 tensor"
	}
	// Weights: one type for both directions, per tensor.
	var dt ir.DType
	for _, n := range []*ir.Node{fw, bw} {
		for i := 1; i <= 17; i++ {
			w := n.Inputs[i]
			if w == nil {
				continue
			}
			if w.Const == nil {
				return fmt.Sprintf("%q's input %d is not a constant", n.Name, i)
			}
			if w.Quant != nil && len(w.Quant.Scale) > 1 {
				return fmt.Sprintf("%q's input %d is quantised per channel; BIDIRECTIONAL_SEQUENCE_LSTM's hybrid kernel takes one scale per tensor", n.Name, i)
			}
			if i >= 12 && i <= 15 || i == 17 {
				continue // biases stay float32
			}
			if dt == ir.Invalid {
				dt = w.DType
			} else if w.DType != dt {
				return fmt.Sprintf("the weights are of different types (%s and %s)", dt, w.DType)
			}
		}
	}
	shapes := func(n *ir.Node) (nCell, nOut int) {
		// recurrent_to_output_weights [n_cell, n_output].
		s := n.Inputs[8].Shape
		return s[0], s[1]
	}
	if fw.Inputs[8] == nil || bw.Inputs[8] == nil || fw.Inputs[8].Shape.Rank() != 2 || bw.Inputs[8].Shape.Rank() != 2 {
		return "recurrent_to_output_weights missing or not [n_cell, n_output]"
	}
	fc, fo := shapes(fw)
	bc, bo := shapes(bw)
	if fc != bc || fo != bo {
		return fmt.Sprintf("the directions have different sizes (n_cell %d and %d, n_output %d and %d); BIDIRECTIONAL_SEQUENCE_LSTM needs one", fc, bc, fo, bo)
	}
	if (fw.Inputs[1] == nil) != (bw.Inputs[1] == nil) {
		return "one direction is CIFG, the other not"
	}
	return ""
}

// pairLSTMs replaces fw and bw (see pairBidirectionalLSTM) and returns
// the report's note.
func pairLSTMs(f *ir.Function, fw, bw *ir.Node) (string, error) {
	o := uniOptions(fw)
	axis := timeAxis(fw)
	T := fw.Inputs[0].Shape[axis]
	in := make([]*ir.Value, 48)
	in[0] = fw.Inputs[0]
	copy(in[1:18], fw.Inputs[1:18])
	copy(in[18:35], bw.Inputs[1:18])
	in[35], in[36] = fw.Inputs[18], fw.Inputs[19]
	in[37], in[38] = bw.Inputs[18], bw.Inputs[19]
	version := int32(1)
	if w := firstWeight(fw); w != nil && w.DType == ir.Int8 {
		version = 2
		if o.AsymmetricQuantizeInputs {
			version = 3
		}
	}
	newBidi := func(merge bool, outs ...ir.TypeShape) *ir.Node {
		name := f.UniqueName(fw.Name + "/bidirectional")
		return f.NewTFL(name, &ir.TFLOp{Builtin: schema.BuiltinOperatorBIDIRECTIONAL_SEQUENCE_LSTM, Version: version,
			Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsBidirectionalSequenceLSTMOptions,
				Value: &schema.BidirectionalSequenceLSTMOptionsT{FusedActivationFunction: o.FusedActivationFunction,
					CellClip: o.CellClip, ProjClip: o.ProjClip, MergeOutputs: merge, TimeMajor: o.TimeMajor,
					AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs}}},
			slices.Clone(in), outs...)
	}
	fwOld, bwOld := fw.Outputs[0], bw.Outputs[0]
	b := newBidi(false, ir.TypeShape{DType: ir.Float32, Shape: fwOld.Shape}, ir.TypeShape{DType: ir.Float32, Shape: bwOld.Shape})
	fwOut, bwOut := b.Outputs[0], b.Outputs[1]
	// The pair's backward output is the operator's reversed in time.
	rev := emitReverseTFL(f, b.Name+"/reverse_bw", bwOut, axis)
	f.ReplaceAllUses(fwOld, fwOut)
	f.ReplaceAllUses(bwOld, rev)
	simplified := 0
	for _, u := range f.Users(rev) {
		switch {
		case u.TFL == nil:
		case u.TFL.Builtin == schema.BuiltinOperatorREVERSE_V2 && len(u.Inputs) == 2 && u.Inputs[0] == rev && isAxis(u.Inputs[1], axis, 3):
			f.ReplaceAllUses(u.Outputs[0], bwOut)
			simplified++
		case u.TFL.Builtin == schema.BuiltinOperatorSTRIDED_SLICE && u.Inputs[0] == rev:
			if s := flipStep(f, u, bwOut, axis, T); s != nil {
				f.ReplaceAllUses(u.Outputs[0], s)
				simplified++
			}
		}
	}
	// What the re-indexing left unused (the pair, REVERSE_V2 of the
	// input, the reversals) goes before the merge looks at the uses.
	f.RemoveUnused()
	merged := false
	why := ""
	if c := mergingConcat(f, fwOut, bwOut); c != nil {
		if !o.TimeMajor {
			why = "; outputs not merged: batch-major, and TensorFlow Lite's kernel merges a batch-major batch above 1 wrongly (lstm_eval.cc offsets each row's state by the merged width), so the CONCATENATION stays"
		} else {
			m := newBidi(true, ir.TypeShape{DType: ir.Float32, Shape: c.Outputs[0].Shape})
			f.ReplaceAllUses(c.Outputs[0], m.Outputs[0])
			merged = true
		}
	}
	layout := "batch-major"
	if o.TimeMajor {
		layout = "time-major"
	}
	return fmt.Sprintf("bidirectional pair %q (forward) and %q (backward) became one BIDIRECTIONAL_SEQUENCE_LSTM (%s, %d steps, merge_outputs=%v; %d consumer(s) of the backward output re-indexed)%s",
		fw.Name, bw.Name, layout, T, merged, simplified, why), nil
}

// firstWeight is the first weight input of an LSTM node present.
func firstWeight(n *ir.Node) *ir.Value {
	for i := 1; i <= 8 && i < len(n.Inputs); i++ {
		if n.Inputs[i] != nil {
			return n.Inputs[i]
		}
	}
	return nil
}

// emitReverseTFL adds REVERSE_V2 of x along axis to f.
func emitReverseTFL(f *ir.Function, name string, x *ir.Value, axis int) *ir.Value {
	a := f.NewConst(f.UniqueName(name+"/axis"), ir.FromInt32s(ir.Shape{1}, []int32{int32(axis)}))
	n := f.NewTFL(f.UniqueName(name), &ir.TFLOp{Builtin: schema.BuiltinOperatorREVERSE_V2, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReverseV2Options, Value: &schema.ReverseV2OptionsT{}}},
		[]*ir.Value{x, a}, ir.TypeShape{DType: x.DType, Shape: x.Shape})
	return n.Outputs[0]
}

// flipStep returns, for a STRIDED_SLICE s of a sequence reversed along
// axis (T steps) that takes the one step t on that axis (shrunk), the
// same slice of the unreversed sequence x taking step T−1−t; nil when s
// is not such a slice.
func flipStep(f *ir.Function, s *ir.Node, x *ir.Value, axis, T int) *ir.Value {
	if len(s.Inputs) != 4 || len(s.Outputs) != 1 || s.TFL.Options == nil {
		return nil
	}
	o, ok := s.TFL.Options.Value.(*schema.StridedSliceOptionsT)
	if !ok || o == nil || o.EllipsisMask != 0 || o.NewAxisMask != 0 || o.Offset || o.ShrinkAxisMask&(1<<axis) == 0 || o.BeginMask&(1<<axis) != 0 {
		return nil
	}
	var bounds [3][]int
	for k := 0; k < 3; k++ {
		v := s.Inputs[1+k]
		if v == nil || v.Const == nil || v.DType != ir.Int32 || v.Const.NumElements() != 3 {
			return nil
		}
		bounds[k] = v.Const.Ints()
	}
	t := bounds[0][axis]
	if t < 0 {
		t += T
	}
	if t < 0 || t >= T || bounds[2][axis] == 0 {
		return nil
	}
	begin, end := slices.Clone(bounds[0]), slices.Clone(bounds[1])
	begin[axis], end[axis] = T-1-t, T-t
	toConst := func(what string, v []int) *ir.Value {
		w := make([]int32, len(v))
		for i, k := range v {
			w[i] = int32(k)
		}
		return f.NewConst(f.UniqueName(s.Name+"/"+what), ir.FromInt32s(ir.Shape{3}, w))
	}
	op := *s.TFL
	n := f.NewTFL(f.UniqueName(s.Name+"/flipped"), &op,
		[]*ir.Value{x, toConst("begin", begin), toConst("end", end), s.Inputs[3]},
		ir.TypeShape{DType: s.Outputs[0].DType, Shape: s.Outputs[0].Shape})
	return n.Outputs[0]
}

// mergingConcat returns the CONCATENATION of exactly (fwOut, bwOut) on
// the last axis, with no activation, when it is their only use; nil
// otherwise.
func mergingConcat(f *ir.Function, fwOut, bwOut *ir.Value) *ir.Node {
	uf, ub := f.Users(fwOut), f.Users(bwOut)
	if len(uf) != 1 || len(ub) != 1 || uf[0] != ub[0] || f.IsResult(fwOut) || f.IsResult(bwOut) {
		return nil
	}
	c := uf[0]
	if c.TFL == nil || c.TFL.Builtin != schema.BuiltinOperatorCONCATENATION || len(c.Inputs) != 2 || c.Inputs[0] != fwOut || c.Inputs[1] != bwOut || c.TFL.Options == nil {
		return nil
	}
	o, ok := c.TFL.Options.Value.(*schema.ConcatenationOptionsT)
	if !ok || o == nil || o.FusedActivationFunction != schema.ActivationFunctionTypeNONE || (o.Axis != 2 && o.Axis != -1) {
		return nil
	}
	return c
}
