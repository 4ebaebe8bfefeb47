package fusion

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// The emitters below add TFLite operators to a site's caller. They are
// exported so that a user rule can emit the same fused operators as the
// built-in ones; every tensor they create is named after the call
// ("<call>/<what>"), so the written model says where it came from.

// NewStateTensor adds a TFLite variable tensor (is_variable, no buffer:
// TFLite and tflrun start it at zero and the operator that reads it writes
// its new value back after every invoke) of the given type and static
// shape, named "<call>/<name>".
func (s *Site) NewStateTensor(name string, dt ir.DType, shape ir.Shape) *ir.Value {
	return newStateTensor(s.Caller, s.Call.Name+"/"+name, dt, shape)
}

func newStateTensor(f *ir.Function, name string, dt ir.DType, shape ir.Shape) *ir.Value {
	return &ir.Value{Name: f.UniqueName(name), DType: dt, Shape: shape.Clone(), IsVariableTensor: true}
}

// NewFloatConst adds a float32 constant of the given shape from float64
// values (rounded to float32), named "<call>/<name>".
func (s *Site) NewFloatConst(name string, shape ir.Shape, v []float64) *ir.Value {
	return newFloatConst(s.Caller, s.Call.Name+"/"+name, shape, v)
}

func newFloatConst(f *ir.Function, name string, shape ir.Shape, v []float64) *ir.Value {
	t, _ := ir.FromFloat64s(ir.Float32, shape, v)
	return f.NewConst(name, t)
}

func newInt32Const(f *ir.Function, name string, shape ir.Shape, v ...int) *ir.Value {
	w := make([]int32, len(v))
	for i, x := range v {
		w[i] = int32(x)
	}
	return f.NewConst(name, ir.FromInt32s(shape, w))
}

// emitReverse adds REVERSE_V2 of x along axis.
func emitReverse(f *ir.Function, name string, x *ir.Value, axis int) *ir.Value {
	a := newInt32Const(f, name+"/axis", ir.Shape{1}, axis)
	n := f.NewTFL(name, &ir.TFLOp{Builtin: schema.BuiltinOperatorREVERSE_V2, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReverseV2Options, Value: &schema.ReverseV2OptionsT{}}},
		[]*ir.Value{x, a}, ir.TypeShape{DType: x.DType, Shape: x.Shape})
	return n.Outputs[0]
}

// emitTranspose02 adds TRANSPOSE of a rank-3 x with permutation [1, 0, 2]
// (batch-major ↔ time-major).
func emitTranspose02(f *ir.Function, name string, x *ir.Value) *ir.Value {
	p := newInt32Const(f, name+"/perm", ir.Shape{3}, 1, 0, 2)
	s := ir.Shape{x.Shape[1], x.Shape[0], x.Shape[2]}
	n := f.NewTFL(name, &ir.TFLOp{Builtin: schema.BuiltinOperatorTRANSPOSE, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsTransposeOptions, Value: &schema.TransposeOptionsT{}}},
		[]*ir.Value{x, p}, ir.TypeShape{DType: x.DType, Shape: s})
	return n.Outputs[0]
}

// emitLastStep adds the STRIDED_SLICE TensorFlow Lite's converter uses to
// take the last time step of a sequence output [batch, time, units] (or
// [time, batch, units] when timeMajor): begin -1 on the time axis with
// that axis shrunk, the other axes whole (begin/end masks).
func emitLastStep(f *ir.Function, name string, seq *ir.Value, timeMajor bool) *ir.Value {
	begin := []int{0, -1, 0}
	mask, shrink := int32(5), int32(2)
	out := ir.Shape{seq.Shape[0], seq.Shape[2]}
	if timeMajor {
		begin = []int{-1, 0, 0}
		mask, shrink = 6, 1
		out = ir.Shape{seq.Shape[1], seq.Shape[2]}
	}
	b := newInt32Const(f, name+"/begin", ir.Shape{3}, begin...)
	e := newInt32Const(f, name+"/end", ir.Shape{3}, 0, 0, 0)
	st := newInt32Const(f, name+"/strides", ir.Shape{3}, 1, 1, 1)
	n := f.NewTFL(name, &ir.TFLOp{Builtin: schema.BuiltinOperatorSTRIDED_SLICE, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsStridedSliceOptions,
			Value: &schema.StridedSliceOptionsT{BeginMask: mask, EndMask: mask, ShrinkAxisMask: shrink}}},
		[]*ir.Value{seq, b, e, st}, ir.TypeShape{DType: seq.DType, Shape: out})
	return n.Outputs[0]
}

// emitReshape adds RESHAPE of x to the static shape.
func emitReshape(f *ir.Function, name string, x *ir.Value, shape ir.Shape) *ir.Value {
	dims := make([]int32, len(shape))
	for i, d := range shape {
		dims[i] = int32(d)
	}
	sh := f.NewConst(name+"/shape", ir.FromInt32s(ir.Shape{len(shape)}, dims))
	n := f.NewTFL(name, &ir.TFLOp{Builtin: schema.BuiltinOperatorRESHAPE, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReshapeOptions, Value: &schema.ReshapeOptionsT{NewShape: dims}}},
		[]*ir.Value{x, sh}, ir.TypeShape{DType: x.DType, Shape: shape})
	return n.Outputs[0]
}

// LSTMGates holds the float32 weights of a TFLite LSTM in TFLite's layout,
// indexed by gate: 0 input, 1 forget, 2 cell, 3 output.
type LSTMGates struct {
	// Input[g] is the input-to-gate matrix [n_cell, n_input].
	Input [4]*ir.Tensor
	// Recurrent[g] is the recurrent matrix [n_cell, n_output], or the
	// diagonal [n_cell] (UNIDIRECTIONAL_SEQUENCE_LSTM only).
	Recurrent [4]*ir.Tensor
	// Bias[g] is the gate bias [n_cell].
	Bias [4]*ir.Tensor
	// LayerNorm[g] are layer-normalisation coefficients [n_cell] (all
	// used gates or none).
	LayerNorm [4]*ir.Tensor
	// Peephole[k] are the optional diagonal cell-to-gate weights [n_cell]
	// of the input (k = 0), forget (1) and output (2) gates (TFLite's
	// cell_to_*_weights, inputs 9–11; the input gate's is omitted with
	// CIFG). All used gates or none.
	Peephole [3]*ir.Tensor
	// Projection [n_output, n_cell] and ProjectionBias [n_output] are
	// optional.
	Projection, ProjectionBias *ir.Tensor
	// CIFG couples the input gate to the forget gate: gate 0's input,
	// recurrent, bias and layer-norm tensors are omitted.
	CIFG bool
}

// LSTMOptions are the options of an emitted LSTM operator.
type LSTMOptions struct {
	// Activation is the cell and output activation (TANH for Keras).
	Activation schema.ActivationFunctionType
	// CellClip and ProjClip bound the cell state and projection output
	// (0: no clipping).
	CellClip, ProjClip float32
	// TimeMajor selects a [time, batch, n_input] input for the sequence
	// operator.
	TimeMajor bool
}

// lstmInputs lays out the 24 LSTM operator inputs (TFLite's lstm::full
// numbering) with the states given.
func lstmInputs(f *ir.Function, name string, x *ir.Value, g *LSTMGates, outState, cellState *ir.Value) []*ir.Value {
	in := make([]*ir.Value, 24)
	in[0] = x
	c := func(t *ir.Tensor, what string) *ir.Value {
		if t == nil {
			return nil
		}
		return f.NewConst(name+"/"+what, t)
	}
	gateName := [4]string{"input", "forget", "cell", "output"}
	for k := 0; k < 4; k++ {
		if g.CIFG && k == 0 {
			continue
		}
		in[1+k] = c(g.Input[k], "input_to_"+gateName[k]+"_weights")
		in[5+k] = c(g.Recurrent[k], "recurrent_to_"+gateName[k]+"_weights")
		in[12+k] = c(g.Bias[k], gateName[k]+"_gate_bias")
		in[20+k] = c(g.LayerNorm[k], gateName[k]+"_layer_norm_coefficients")
	}
	peepName := [3]string{"cell_to_input", "cell_to_forget", "cell_to_output"}
	for k := 0; k < 3; k++ {
		if g.CIFG && k == 0 {
			continue
		}
		in[9+k] = c(g.Peephole[k], peepName[k]+"_weights")
	}
	in[16] = c(g.Projection, "projection_weights")
	in[17] = c(g.ProjectionBias, "projection_bias")
	in[18], in[19] = outState, cellState
	return in
}

// lstmShapes returns n_cell and n_output of the gates and checks that
// every tensor has the shape TFLite expects for nIn inputs.
func (g *LSTMGates) lstmShapes(nIn int) (nCell, nOut int, diagonal bool, err error) {
	k0 := 0
	if g.CIFG {
		k0 = 1
	}
	if g.Input[k0] == nil || g.Input[k0].Shape.Rank() != 2 {
		return 0, 0, false, fmt.Errorf("LSTM gate weights missing or not rank 2")
	}
	nCell = g.Input[k0].Shape[0]
	nOut = nCell
	if g.Projection != nil {
		if g.Projection.Shape.Rank() != 2 || g.Projection.Shape[1] != nCell {
			return 0, 0, false, fmt.Errorf("projection weights have shape %s, want [n_output, %d]", g.Projection.Shape, nCell)
		}
		nOut = g.Projection.Shape[0]
		if g.ProjectionBias != nil && !g.ProjectionBias.Shape.Equal(ir.Shape{nOut}) {
			return 0, 0, false, fmt.Errorf("projection bias has shape %s, want [%d]", g.ProjectionBias.Shape, nOut)
		}
	} else if g.ProjectionBias != nil {
		return 0, 0, false, fmt.Errorf("projection bias without projection weights")
	}
	diagonal = g.Recurrent[k0] != nil && g.Recurrent[k0].Shape.Rank() == 1
	ln := g.LayerNorm[k0] != nil
	for k := k0; k < 4; k++ {
		want := map[string]ir.Shape{"input": {nCell, nIn}, "bias": {nCell}, "recurrent": {nCell, nOut}}
		if diagonal {
			want["recurrent"] = ir.Shape{nCell}
		}
		for what, t := range map[string]*ir.Tensor{"input": g.Input[k], "recurrent": g.Recurrent[k], "bias": g.Bias[k]} {
			if t == nil || !t.Shape.Equal(want[what]) || t.DType != ir.Float32 {
				return 0, 0, false, fmt.Errorf("LSTM gate %d %s weights: %v, want float32%s", k, what, t, want[what])
			}
		}
		if (g.LayerNorm[k] != nil) != ln || ln && !g.LayerNorm[k].Shape.Equal(ir.Shape{nCell}) {
			return 0, 0, false, fmt.Errorf("LSTM layer-norm coefficients must be [%d] for every used gate", nCell)
		}
	}
	p0 := 0
	if g.CIFG {
		p0 = 1
	}
	peep := g.Peephole[p0] != nil
	for k := p0; k < 3; k++ {
		if (g.Peephole[k] != nil) != peep || peep && (!g.Peephole[k].Shape.Equal(ir.Shape{nCell}) || g.Peephole[k].DType != ir.Float32) {
			return 0, 0, false, fmt.Errorf("LSTM peephole weights must be float32[%d] for every used gate", nCell)
		}
	}
	if g.CIFG && g.Peephole[0] != nil {
		return 0, 0, false, fmt.Errorf("LSTM with CIFG takes no input-gate peephole weights")
	}
	return nCell, nOut, diagonal, nil
}

// EmitSequenceLSTM adds an UNIDIRECTIONAL_SEQUENCE_LSTM computing the
// whole sequence x ([batch, time, n_input], or [time, batch, n_input]
// with opts.TimeMajor; float32, static shape) with the gates g, its output
// state and cell state in two new variable tensors ([batch, n_output] and
// [batch, n_cell]). It returns the output sequence (x's layout, last
// dimension n_output). Version 1, or 4 with diagonal recurrent weights.
// Errors name a tensor of the wrong shape.
func (s *Site) EmitSequenceLSTM(x *ir.Value, g *LSTMGates, opts LSTMOptions) (*ir.Value, error) {
	out, _, _, err := emitSequenceLSTM(s.Caller, s.Call.Name+"/lstm", x, g, opts, nil, nil)
	return out, err
}

// emitSequenceLSTM is EmitSequenceLSTM with the state tensors chosen by
// the caller (nil: new zero-initialised variables); it returns them.
func emitSequenceLSTM(f *ir.Function, name string, x *ir.Value, g *LSTMGates, opts LSTMOptions, outState, cellState *ir.Value) (out, os, cs *ir.Value, err error) {
	if !x.Shape.Static() || x.Shape.Rank() != 3 || x.DType != ir.Float32 {
		return nil, nil, nil, fmt.Errorf("LSTM input %s: want a static float32 [batch, time, features]", x)
	}
	batch, T := x.Shape[0], x.Shape[1]
	if opts.TimeMajor {
		batch, T = T, batch
	}
	nCell, nOut, diagonal, err := g.lstmShapes(x.Shape[2])
	if err != nil {
		return nil, nil, nil, err
	}
	if outState == nil {
		outState = newStateTensor(f, name+"/output_state", ir.Float32, ir.Shape{batch, nOut})
	}
	if cellState == nil {
		cellState = newStateTensor(f, name+"/cell_state", ir.Float32, ir.Shape{batch, nCell})
	}
	version := int32(1)
	if diagonal {
		version = 4
	}
	shape := ir.Shape{batch, T, nOut}
	if opts.TimeMajor {
		shape = ir.Shape{T, batch, nOut}
	}
	n := f.NewTFL(name, &ir.TFLOp{Builtin: schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM, Version: version,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions,
			Value: &schema.UnidirectionalSequenceLSTMOptionsT{FusedActivationFunction: opts.Activation,
				CellClip: opts.CellClip, ProjClip: opts.ProjClip, TimeMajor: opts.TimeMajor, DiagonalRecurrentTensors: diagonal}}},
		lstmInputs(f, name, x, g, outState, cellState), ir.TypeShape{DType: ir.Float32, Shape: shape})
	return n.Outputs[0], outState, cellState, nil
}

// EmitLSTMCell adds a (non-sequence) LSTM operator, kernel type FULL,
// computing one step for x [batch, n_input] with the gates g and new
// variable state tensors; it returns the output [batch, n_output].
// Diagonal recurrent weights are not allowed (TFLite's LSTM has none).
func (s *Site) EmitLSTMCell(x *ir.Value, g *LSTMGates, opts LSTMOptions) (*ir.Value, error) {
	f, name := s.Caller, s.Call.Name+"/lstm"
	if !x.Shape.Static() || x.Shape.Rank() != 2 || x.DType != ir.Float32 {
		return nil, fmt.Errorf("LSTM input %s: want a static float32 [batch, features]", x)
	}
	nCell, nOut, diagonal, err := g.lstmShapes(x.Shape[1])
	if err != nil {
		return nil, err
	}
	if diagonal {
		return nil, fmt.Errorf("the LSTM operator takes no diagonal recurrent weights")
	}
	batch := x.Shape[0]
	os := newStateTensor(f, name+"/output_state", ir.Float32, ir.Shape{batch, nOut})
	cs := newStateTensor(f, name+"/cell_state", ir.Float32, ir.Shape{batch, nCell})
	n := f.NewTFL(name, &ir.TFLOp{Builtin: schema.BuiltinOperatorLSTM, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsLSTMOptions,
			Value: &schema.LSTMOptionsT{FusedActivationFunction: opts.Activation, CellClip: opts.CellClip,
				ProjClip: opts.ProjClip, KernelType: schema.LSTMKernelTypeFULL}}},
		lstmInputs(f, name, x, g, os, cs), ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{batch, nOut}})
	return n.Outputs[0], nil
}

// GRUWeights are the float32 weights of the UNIDIRECTIONAL_SEQUENCE_GRU
// custom operator (TFLite's experimental GRU): GateWeight [2·units,
// n_input + units] (the reset gate's rows, then the update gate's, each
// row the input weights followed by the recurrent weights), GateBias
// [2·units], CandidateWeight [units, n_input + units], CandidateBias
// [units]. CandidateRecurrentBias [units], when set, selects tflrun's
// reset-after form (Keras reset_after=True): the candidate is
// tanh(Wx·x + CandidateBias + r⊙(Wh·h + CandidateRecurrentBias)) instead
// of tanh(W·[x, r⊙h] + CandidateBias); it is written as a seventh input,
// which TFLite's experimental kernel (six inputs) refuses instead of
// misreading.
type GRUWeights struct {
	GateWeight, GateBias, CandidateWeight, CandidateBias *ir.Tensor
	CandidateRecurrentBias                               *ir.Tensor
}

// GRUCustomName is the custom operator name of the GRU.
const GRUCustomName = "UNIDIRECTIONAL_SEQUENCE_GRU"

// EmitSequenceGRU adds an UNIDIRECTIONAL_SEQUENCE_GRU for x ([time,
// batch, n_input]: the operator is always time-major) with its state in
// a new variable tensor [batch, units]; it returns the output sequence
// [time, batch, units] and the final state [batch, units].
func (s *Site) EmitSequenceGRU(x *ir.Value, w *GRUWeights) (out, final *ir.Value, err error) {
	out, final, _, err = emitSequenceGRU(s.Caller, s.Call.Name+"/gru", x, w, nil)
	return out, final, err
}

func emitSequenceGRU(f *ir.Function, name string, x *ir.Value, w *GRUWeights, state *ir.Value) (out, final, st *ir.Value, err error) {
	if !x.Shape.Static() || x.Shape.Rank() != 3 || x.DType != ir.Float32 {
		return nil, nil, nil, fmt.Errorf("GRU input %s: want a static float32 [time, batch, features]", x)
	}
	T, batch, nIn := x.Shape[0], x.Shape[1], x.Shape[2]
	if w.CandidateBias == nil || w.CandidateBias.Shape.Rank() != 1 {
		return nil, nil, nil, fmt.Errorf("GRU candidate bias missing or not rank 1")
	}
	u := w.CandidateBias.Shape[0]
	want := []struct {
		t *ir.Tensor
		s ir.Shape
		n string
	}{{w.GateWeight, ir.Shape{2 * u, nIn + u}, "gate_weight"}, {w.GateBias, ir.Shape{2 * u}, "gate_bias"},
		{w.CandidateWeight, ir.Shape{u, nIn + u}, "candidate_weight"}}
	if w.CandidateRecurrentBias != nil {
		want = append(want, struct {
			t *ir.Tensor
			s ir.Shape
			n string
		}{w.CandidateRecurrentBias, ir.Shape{u}, "candidate_recurrent_bias"})
	}
	for _, c := range want {
		if c.t == nil || c.t.DType != ir.Float32 || !c.t.Shape.Equal(c.s) {
			return nil, nil, nil, fmt.Errorf("GRU %s: %v, want float32%s", c.n, c.t, c.s)
		}
	}
	if state == nil {
		state = newStateTensor(f, name+"/state", ir.Float32, ir.Shape{batch, u})
	}
	in := []*ir.Value{x, state, f.NewConst(name+"/gate_weight", w.GateWeight), f.NewConst(name+"/gate_bias", w.GateBias),
		f.NewConst(name+"/candidate_weight", w.CandidateWeight), f.NewConst(name+"/candidate_bias", w.CandidateBias)}
	if w.CandidateRecurrentBias != nil {
		in = append(in, f.NewConst(name+"/candidate_recurrent_bias", w.CandidateRecurrentBias))
	}
	n := f.NewTFL(name, &ir.TFLOp{Builtin: schema.BuiltinOperatorCUSTOM, Custom: GRUCustomName, Version: 1}, in,
		ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{T, batch, u}}, ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{batch, u}})
	return n.Outputs[0], n.Outputs[1], state, nil
}

// RNNWeights are the float32 weights of UNIDIRECTIONAL_SEQUENCE_RNN:
// Input [units, n_input], Recurrent [units, units], Bias [units].
type RNNWeights struct {
	Input, Recurrent, Bias *ir.Tensor
}

// EmitSequenceRNN adds an UNIDIRECTIONAL_SEQUENCE_RNN over x ([batch,
// time, n_input], or time-major) with the fused activation act and its
// hidden state in a new variable tensor; it returns the output sequence.
func (s *Site) EmitSequenceRNN(x *ir.Value, w *RNNWeights, act schema.ActivationFunctionType, timeMajor bool) (*ir.Value, error) {
	out, _, err := emitSequenceRNN(s.Caller, s.Call.Name+"/rnn", x, w, act, timeMajor, nil)
	return out, err
}

func emitSequenceRNN(f *ir.Function, name string, x *ir.Value, w *RNNWeights, act schema.ActivationFunctionType, timeMajor bool, state *ir.Value) (out, st *ir.Value, err error) {
	if !x.Shape.Static() || x.Shape.Rank() != 3 || x.DType != ir.Float32 {
		return nil, nil, fmt.Errorf("RNN input %s: want a static float32 rank-3 sequence", x)
	}
	batch, T, nIn := x.Shape[0], x.Shape[1], x.Shape[2]
	if timeMajor {
		batch, T = T, batch
	}
	if w.Bias == nil || w.Bias.Shape.Rank() != 1 {
		return nil, nil, fmt.Errorf("RNN bias missing or not rank 1")
	}
	u := w.Bias.Shape[0]
	if w.Input == nil || !w.Input.Shape.Equal(ir.Shape{u, nIn}) || w.Recurrent == nil || !w.Recurrent.Shape.Equal(ir.Shape{u, u}) {
		return nil, nil, fmt.Errorf("RNN weights %v / %v, want [%d %d] / [%d %d]", w.Input, w.Recurrent, u, nIn, u, u)
	}
	if state == nil {
		state = newStateTensor(f, name+"/hidden_state", ir.Float32, ir.Shape{batch, u})
	}
	shape := ir.Shape{batch, T, u}
	if timeMajor {
		shape = ir.Shape{T, batch, u}
	}
	n := f.NewTFL(name, &ir.TFLOp{Builtin: schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_RNN, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSequenceRNNOptions,
			Value: &schema.SequenceRNNOptionsT{TimeMajor: timeMajor, FusedActivationFunction: act}}},
		[]*ir.Value{x, f.NewConst(name+"/input_weights", w.Input), f.NewConst(name+"/recurrent_weights", w.Recurrent),
			f.NewConst(name+"/bias", w.Bias), state},
		ir.TypeShape{DType: ir.Float32, Shape: shape})
	return n.Outputs[0], state, nil
}
