package opfuzz

import (
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// The recurrent family: LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM,
// BIDIRECTIONAL_SEQUENCE_LSTM, the three RNNs, SVDF and the custom
// UNIDIRECTIONAL_SEQUENCE_GRU. Each model is built from drawn sizes
// (batch, time, input, cell, output), mostly consistent, with optional
// inputs present or omitted, a float, hybrid or integer type path, and
// now and then one tensor of a wrong shape.

// RecurrentOps is the number of operators Recurrent draws from.
const RecurrentOps = 8

// Variable adds a variable tensor (recurrent state).
func (m *Model) Variable(name string, typ schema.TensorType, shape []int32, q *optest.Quant) int32 {
	i := m.B.Tensor(name, typ, shape, q)
	m.B.Model().Subgraphs[0].Tensors[i].IsVariable = true
	return i
}

// rec holds the drawn sizes and type path of one recurrent model.
type rec struct {
	m                  *Model
	d                  *Draw
	b, t, in, c, o     int32
	weights, act, bias tt // weight, activation and bias types
	state, cell        tt // output-state and cell-state types
	integer, hybrid    bool
}

func (r *rec) perturb(s []int32) []int32 {
	if r.d.Rare(12) && len(s) > 0 {
		s = append([]int32(nil), s...)
		s[r.d.N(len(s))] = r.d.Dim()
	}
	return s
}

// weight adds a constant weight matrix (omitted with probability 1/n
// when optional).
func (r *rec) weight(name string, shape []int32, optional bool) int32 {
	if optional && r.d.Rare(3) {
		return -1
	}
	return r.m.Data(name, r.weights, r.perturb(shape), r.m.Quant(r.weights, 1, 0), !r.d.Rare(10))
}

func (r *rec) vector(name string, typ tt, n int32, optional bool) int32 {
	if optional && r.d.Rare(3) {
		return -1
	}
	return r.m.Data(name, typ, r.perturb([]int32{n}), r.m.Quant(typ, 1, 0), !r.d.Rare(10))
}

func (r *rec) state2(name string, typ tt, cols int32) int32 {
	return r.m.Variable(name, typ, r.perturb([]int32{r.b, cols}), r.m.Quant(typ, 1, 0))
}

// lstmDirection appends one direction's 17 inputs (weights, peepholes,
// biases, projection) in TFLite's order.
func (r *rec) lstmDirection(ins []int32, p string) []int32 {
	for _, g := range []string{"i", "f", "c", "o"} {
		ins = append(ins, r.weight(p+"input_to_"+g, []int32{r.c, r.in}, g == "i"))
	}
	for _, g := range []string{"i", "f", "c", "o"} {
		ins = append(ins, r.weight(p+"recurrent_to_"+g, []int32{r.c, r.o}, g == "i"))
	}
	peepType := r.weights
	if r.integer {
		peepType = tI16
	} else if !r.hybrid {
		peepType = tF32
	}
	for _, g := range []string{"i", "f", "o"} {
		ins = append(ins, r.vector(p+"cell_to_"+g, peepType, r.c, true))
	}
	for _, g := range []string{"i", "f", "c", "o"} {
		ins = append(ins, r.vector(p+"bias_"+g, r.bias, r.c, g == "i"))
	}
	ins = append(ins, r.weight(p+"projection", []int32{r.o, r.c}, true))
	return append(ins, r.vector(p+"projection_bias", r.bias, r.o, true))
}

// Recurrent draws a model of one recurrent operator.
func Recurrent(cfg []byte, seed uint64) []byte {
	m := NewModel(cfg, seed)
	d := m.D
	k := d.N(RecurrentOps)
	r := &rec{m: m, d: d, b: d.Dim(), t: d.Dim(), in: d.Dim(), c: d.Dim(), o: d.Dim()}
	if d.Flag() {
		r.o = r.c
	}
	r.weights, r.act, r.bias, r.state, r.cell = tF32, tF32, tF32, tF32, tF32
	switch d.N(3) {
	case 1:
		r.hybrid, r.weights = true, Pick(d, tI8, tU8)
	case 2:
		r.integer = true
		r.weights, r.act, r.bias, r.state, r.cell = tI8, tI8, tI32, tI8, tI16
	}
	timeMajor := d.Flag()
	seqShape := []int32{r.b, r.t, r.in}
	if timeMajor {
		seqShape = []int32{r.t, r.b, r.in}
	}
	act := d.Activation()
	if k <= 2 && act == schema.ActivationFunctionTypeNONE && !d.Rare(8) {
		act = schema.ActivationFunctionTypeTANH // what converters write
	}
	input := func(shape []int32) int32 {
		return m.Input("input", r.act, r.perturb(shape), m.Quant(r.act, 1, 0))
	}
	out := func() int32 { return m.Output("output", r.act, m.Quant(r.act, 1, 0)) }
	clip := Pick(d, float32(0), 0, 1, -1, 100)
	var ins, outs []int32
	var code schema.BuiltinOperator
	var o *schema.BuiltinOptionsT
	switch k {
	case 0, 1: // LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM
		code = schema.BuiltinOperatorLSTM
		shape := []int32{r.b, r.in}
		if k == 1 {
			code, shape = schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM, seqShape
		}
		ins = r.lstmDirection([]int32{input(shape)}, "")
		ins = append(ins, r.state2("output_state", r.state, r.o), r.state2("cell_state", r.cell, r.c))
		if !d.Rare(3) {
			lnType := tF32
			if r.integer {
				lnType = tI16
			}
			for _, g := range []string{"i", "f", "c", "o"} {
				ins = append(ins, r.vector("layer_norm_"+g, lnType, r.c, true))
			}
		}
		if k == 0 {
			o = opts(schema.BuiltinOptionsLSTMOptions, &schema.LSTMOptionsT{FusedActivationFunction: act, CellClip: clip, ProjClip: clip,
				AsymmetricQuantizeInputs: d.Flag()})
		} else {
			o = opts(schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions, &schema.UnidirectionalSequenceLSTMOptionsT{FusedActivationFunction: act,
				CellClip: clip, ProjClip: clip, TimeMajor: timeMajor, AsymmetricQuantizeInputs: d.Flag(), DiagonalRecurrentTensors: d.Rare(6)})
		}
		outs = []int32{out()}
	case 2: // BIDIRECTIONAL_SEQUENCE_LSTM
		code = schema.BuiltinOperatorBIDIRECTIONAL_SEQUENCE_LSTM
		ins = r.lstmDirection([]int32{input(seqShape)}, "fw_")
		ins = r.lstmDirection(ins, "bw_")
		ins = append(ins, r.state2("fw_output_state", r.state, r.o), r.state2("fw_cell_state", r.cell, r.c),
			r.state2("bw_output_state", r.state, r.o), r.state2("bw_cell_state", r.cell, r.c))
		if d.Rare(3) {
			aux := d.Dim()
			ins = append(ins, input([]int32{r.t, r.b, aux}))
			for _, p := range []string{"fw_", "bw_"} {
				for _, g := range []string{"i", "f", "c", "o"} {
					ins = append(ins, r.weight(p+"aux_to_"+g, []int32{r.c, aux}, g == "i"))
				}
			}
		} else {
			for range 9 {
				ins = append(ins, -1)
			}
		}
		merge := d.Flag()
		o = opts(schema.BuiltinOptionsBidirectionalSequenceLSTMOptions, &schema.BidirectionalSequenceLSTMOptionsT{FusedActivationFunction: act,
			CellClip: clip, ProjClip: clip, MergeOutputs: merge, TimeMajor: timeMajor, AsymmetricQuantizeInputs: d.Flag()})
		outs = []int32{out()}
		if !merge {
			outs = append(outs, out())
		}
	case 3, 4: // RNN, UNIDIRECTIONAL_SEQUENCE_RNN
		u := r.c
		shape := []int32{r.b, r.in}
		code = schema.BuiltinOperatorRNN
		if k == 4 {
			code, shape = schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_RNN, seqShape
		}
		ins = []int32{input(shape), r.weight("weights", []int32{u, r.in}, false), r.weight("recurrent", []int32{u, u}, false),
			r.vector("bias", tF32, u, false), r.state2("hidden", tF32, u)}
		if k == 3 {
			o = opts(schema.BuiltinOptionsRNNOptions, &schema.RNNOptionsT{FusedActivationFunction: act, AsymmetricQuantizeInputs: d.Flag()})
		} else {
			o = opts(schema.BuiltinOptionsSequenceRNNOptions, &schema.SequenceRNNOptionsT{TimeMajor: timeMajor, FusedActivationFunction: act,
				AsymmetricQuantizeInputs: d.Flag()})
		}
		outs = []int32{out()}
		if k == 3 && d.Rare(4) {
			outs = append(outs, out())
		}
	case 5: // BIDIRECTIONAL_SEQUENCE_RNN
		code = schema.BuiltinOperatorBIDIRECTIONAL_SEQUENCE_RNN
		u := r.c
		ins = []int32{input(seqShape)}
		for _, p := range []string{"fw_", "bw_"} {
			ins = append(ins, r.weight(p+"weights", []int32{u, r.in}, false), r.weight(p+"recurrent", []int32{u, u}, false),
				r.vector(p+"bias", tF32, u, false), r.state2(p+"hidden", tF32, u))
		}
		if d.Rare(3) {
			aux := d.Dim()
			ins = append(ins, input([]int32{r.t, r.b, aux}), r.weight("fw_aux", []int32{u, aux}, false), r.weight("bw_aux", []int32{u, aux}, false))
		} else {
			ins = append(ins, -1, -1, -1)
		}
		merge := d.Flag()
		o = opts(schema.BuiltinOptionsBidirectionalSequenceRNNOptions, &schema.BidirectionalSequenceRNNOptionsT{TimeMajor: timeMajor,
			FusedActivationFunction: act, MergeOutputs: merge, AsymmetricQuantizeInputs: d.Flag()})
		outs = []int32{out()}
		if !merge {
			outs = append(outs, out())
		}
	case 6: // SVDF
		code = schema.BuiltinOperatorSVDF
		rank := Pick(d, int32(1), 2, 0, -1)
		units := r.c
		filters := units * max(rank, 1)
		mem := d.Dim()
		stateType := tF32
		if r.integer {
			stateType = Pick(d, tI16, tI8)
		}
		biasType := tF32
		if r.integer {
			biasType = tI32
		}
		timeType := r.weights
		if r.integer {
			timeType = Pick(d, tI16, tI8)
		}
		ins = []int32{input([]int32{r.b, r.in}), r.weight("weights_feature", []int32{filters, r.in}, false),
			m.Data("weights_time", timeType, r.perturb([]int32{filters, mem}), m.Quant(timeType, 1, 0), !d.Rare(10)),
			r.vector("bias", biasType, units, true), m.Variable("state", stateType, r.perturb([]int32{r.b, filters * mem}), m.Quant(stateType, 1, 0))}
		o = opts(schema.BuiltinOptionsSVDFOptions, &schema.SVDFOptionsT{Rank: rank, FusedActivationFunction: act, AsymmetricQuantizeInputs: d.Flag()})
		outs = []int32{out()}
	default: // UNIDIRECTIONAL_SEQUENCE_GRU (custom)
		u := r.c
		w := r.in + u
		ins = []int32{m.Input("input", tF32, r.perturb([]int32{r.t, r.b, r.in}), nil), m.Variable("state", tF32, r.perturb([]int32{r.b, u}), nil),
			m.Data("gate_weight", tF32, r.perturb([]int32{2 * u, w}), nil, !d.Rare(6)), r.vector("gate_bias", tF32, 2*u, false),
			m.Data("candidate_weight", tF32, r.perturb([]int32{u, w}), nil, !d.Rare(6)), r.vector("candidate_bias", tF32, u, false)}
		if d.Flag() {
			ins = append(ins, r.vector("candidate_recurrent_bias", tF32, u, false))
		}
		outs = []int32{m.Output("output", tF32, nil), m.Output("output_state", tF32, nil)}
		m.B.Custom("UNIDIRECTIONAL_SEQUENCE_GRU", ins, outs, nil)
		m.B.Inputs(m.ins...)
		m.B.Outputs(outs...)
		return m.B.Bytes()
	}
	return m.Op(code, int32(1+d.N(4)), ins, outs, o)
}
