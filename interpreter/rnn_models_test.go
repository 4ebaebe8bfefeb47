package interpreter

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/tflrun/tflrun/fused"
	"github.com/tflrun/tflrun/schema"
)

// This file builds small RNN, SVDF and GRU models with the schema object
// API for the interpreter-level tests of those kernels (streaming, batch
// independence, state resizing) and for the hostile-model cases.

// recModel is a one-operator-code model under construction.
type recModel struct {
	m  *schema.ModelT
	sg *schema.SubGraphT
	r  *rand.Rand
}

func newRecModel(code schema.BuiltinOperator, version int32, custom string, seed uint64) *recModel {
	dep := int8(127)
	if code < 127 {
		dep = int8(code)
	}
	sg := &schema.SubGraphT{}
	return &recModel{
		m: &schema.ModelT{Version: 3,
			OperatorCodes: []*schema.OperatorCodeT{{BuiltinCode: code, DeprecatedBuiltinCode: dep, Version: version, CustomCode: custom}},
			Buffers:       []*schema.BufferT{{}},
			Subgraphs:     []*schema.SubGraphT{sg}},
		sg: sg,
		r:  rand.New(rand.NewPCG(seed, seed+1)),
	}
}

// tensor adds a tensor; data nil makes it non-constant. scale 0 means no
// quantisation.
func (b *recModel) tensor(name string, typ schema.TensorType, shape []int32, data []byte, variable bool, scale float32, zp int64) int32 {
	t := &schema.TensorT{Name: name, Type: typ, Shape: shape, IsVariable: variable}
	if data != nil {
		b.m.Buffers = append(b.m.Buffers, &schema.BufferT{Data: data})
		t.Buffer = uint32(len(b.m.Buffers) - 1)
	}
	if scale != 0 {
		t.Quantization = &schema.QuantizationParametersT{Scale: []float32{scale}, ZeroPoint: []int64{zp}}
	}
	b.sg.Tensors = append(b.sg.Tensors, t)
	return int32(len(b.sg.Tensors) - 1)
}

func (b *recModel) input(name string, typ schema.TensorType, shape []int32, scale float32, zp int64) int32 {
	i := b.tensor(name, typ, shape, nil, false, scale, zp)
	b.sg.Inputs = append(b.sg.Inputs, i)
	return i
}

func (b *recModel) output(name string, typ schema.TensorType, shape []int32, scale float32, zp int64) int32 {
	i := b.tensor(name, typ, shape, nil, false, scale, zp)
	b.sg.Outputs = append(b.sg.Outputs, i)
	return i
}

func (b *recModel) op(in, out []int32, opts *schema.BuiltinOptionsT) {
	b.sg.Operators = append(b.sg.Operators, &schema.OperatorT{OpcodeIndex: 0, Inputs: in, Outputs: out, BuiltinOptions: opts})
}

// floatWeights adds a float32 constant of uniform values in [-a, a).
func (b *recModel) floatWeights(name string, shape []int32, a float64) int32 {
	v := make([]float32, prod32(shape))
	for i := range v {
		v[i] = float32((b.r.Float64()*2 - 1) * a)
	}
	return b.tensor(name, schema.TensorTypeFLOAT32, shape, f32bytes(v...), false, 0, 0)
}

// int8Weights adds a symmetric int8 constant of uniform weights in [-a, a)
// with scale a/127.
func (b *recModel) int8Weights(name string, shape []int32, a float64) int32 {
	v := make([]int8, prod32(shape))
	for i := range v {
		v[i] = int8(b.r.IntN(255) - 127)
	}
	return b.tensor(name, schema.TensorTypeINT8, shape, recI8Bytes(v), false, float32(a/127), 0)
}

// weights adds float or int8 (hybrid) weights.
func (b *recModel) weights(name string, shape []int32, a float64, hybrid bool) int32 {
	if hybrid {
		return b.int8Weights(name, shape, a)
	}
	return b.floatWeights(name, shape, a)
}

func prod32(s []int32) int {
	n := 1
	for _, d := range s {
		n *= int(d)
	}
	return n
}

func recI8Bytes(v []int8) []byte {
	out := make([]byte, len(v))
	for i, x := range v {
		out[i] = byte(x)
	}
	return out
}

func recI16Bytes(v []int16) []byte {
	out := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(out[2*i:], uint16(x))
	}
	return out
}

func recI32Bytes(v []int32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return out
}

// rnnSpec describes an RNN-family model. kind is "rnn" (steps single-step
// nodes sharing the weights and the hidden state, one graph input and
// output per node), "usrnn" or "birnn" (one node over steps).
type rnnSpec struct {
	kind                      string
	batch, steps, nIn, units  int
	bwUnits                   int
	timeMajor, merge          bool
	hybrid, asym              bool
	act                       schema.ActivationFunctionType
	seed                      uint64
	stateNotVariable, noState bool
}

func (s rnnSpec) version() int32 {
	switch {
	case s.asym:
		return 3
	case s.hybrid:
		return 2
	}
	return 1
}

func (s rnnSpec) seqShape(n int) []int32 {
	if s.timeMajor {
		return []int32{int32(s.steps), int32(s.batch), int32(n)}
	}
	return []int32{int32(s.batch), int32(s.steps), int32(n)}
}

// rnnModel builds the model of s. Tensor order: inputs first, then the
// weights (input, recurrent, bias) and state of each direction, then the
// outputs.
func rnnModel(s rnnSpec) *schema.ModelT {
	code := map[string]schema.BuiltinOperator{"rnn": schema.BuiltinOperatorRNN,
		"usrnn": schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_RNN,
		"birnn": schema.BuiltinOperatorBIDIRECTIONAL_SEQUENCE_RNN}[s.kind]
	b := newRecModel(code, s.version(), "", s.seed)
	f32t := schema.TensorTypeFLOAT32
	var inputs []int32
	switch s.kind {
	case "rnn":
		for t := 0; t < s.steps; t++ {
			inputs = append(inputs, b.input("input", f32t, []int32{int32(s.batch), int32(s.nIn)}, 0, 0))
		}
	default:
		inputs = append(inputs, b.input("input", f32t, s.seqShape(s.nIn), 0, 0))
	}
	cell := func(prefix string, units int) (w, rec, bias, state int32) {
		w = b.weights(prefix+"weights", []int32{int32(units), int32(s.nIn)}, 1/math.Sqrt(float64(s.nIn)), s.hybrid)
		rec = b.weights(prefix+"recurrent_weights", []int32{int32(units), int32(units)}, 0.9/math.Sqrt(float64(units)), s.hybrid)
		bias = b.floatWeights(prefix+"bias", []int32{int32(units)}, 0.3)
		state = b.tensor(prefix+"hidden_state", f32t, []int32{int32(s.batch), int32(units)}, nil, !s.stateNotVariable, 0, 0)
		if s.noState {
			state = -1
		}
		return
	}
	w, rec, bias, state := cell("", s.units)
	switch s.kind {
	case "rnn":
		opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsRNNOptions,
			Value: &schema.RNNOptionsT{FusedActivationFunction: s.act, AsymmetricQuantizeInputs: s.asym}}
		for t := 0; t < s.steps; t++ {
			out := b.output("output", f32t, []int32{int32(s.batch), int32(s.units)}, 0, 0)
			b.op([]int32{inputs[t], w, rec, bias, state}, []int32{out}, opts)
		}
	case "usrnn":
		out := b.output("output", f32t, s.seqShape(s.units), 0, 0)
		b.op([]int32{inputs[0], w, rec, bias, state}, []int32{out}, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSequenceRNNOptions,
			Value: &schema.SequenceRNNOptionsT{TimeMajor: s.timeMajor, FusedActivationFunction: s.act, AsymmetricQuantizeInputs: s.asym}})
	case "birnn":
		bw, bwRec, bwBias, bwState := cell("bw_", s.bwUnits)
		var outs []int32
		if s.merge {
			outs = append(outs, b.output("output", f32t, s.seqShape(s.units+s.bwUnits), 0, 0))
		} else {
			outs = append(outs, b.output("fw_output", f32t, s.seqShape(s.units), 0, 0),
				b.output("bw_output", f32t, s.seqShape(s.bwUnits), 0, 0))
		}
		b.op([]int32{inputs[0], w, rec, bias, state, bw, bwRec, bwBias, bwState, -1, -1, -1}, outs,
			&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsBidirectionalSequenceRNNOptions,
				Value: &schema.BidirectionalSequenceRNNOptionsT{TimeMajor: s.timeMajor, FusedActivationFunction: s.act,
					MergeOutputs: s.merge, AsymmetricQuantizeInputs: s.asym}})
	}
	return b.m
}

// svdfSpec describes an SVDF model of nodes single-step nodes sharing the
// weights and the state. mode: "float", "hybrid", "hybrid-asym", "int16"
// (TFLite's integer SVDF) or "int8" (TFLite Micro's int8 state).
type svdfSpec struct {
	batch, nIn, units, rank, memory, nodes int
	mode                                   string
	act                                    schema.ActivationFunctionType
	seed                                   uint64
}

func svdfModel(s svdfSpec) *schema.ModelT {
	version := map[string]int32{"float": 1, "hybrid": 2, "hybrid-asym": 4, "int16": 3, "int8": 3}[s.mode]
	b := newRecModel(schema.BuiltinOperatorSVDF, version, "", s.seed)
	F := int32(s.units * s.rank)
	B, N, M, U := int32(s.batch), int32(s.nIn), int32(s.memory), int32(s.units)
	var inputs []int32
	var wf, wt, bias, state int32
	actType, inScale, outScale := schema.TensorTypeFLOAT32, float32(0), float32(0)
	var inZP, outZP int64
	switch s.mode {
	case "float", "hybrid", "hybrid-asym":
		hybrid := s.mode != "float"
		for t := 0; t < s.nodes; t++ {
			inputs = append(inputs, b.input("input", schema.TensorTypeFLOAT32, []int32{B, N}, 0, 0))
		}
		wf = b.weights("weights_feature", []int32{F, N}, 0.5, hybrid)
		wt = b.weights("weights_time", []int32{F, M}, 0.5, hybrid)
		bias = b.floatWeights("bias", []int32{U}, 0.3)
		state = b.tensor("state", schema.TensorTypeFLOAT32, []int32{B, M * F}, nil, true, 0, 0)
	default:
		actType, inScale, inZP, outScale, outZP = schema.TensorTypeINT8, 1.0/128, 3, 0.02, -20
		for t := 0; t < s.nodes; t++ {
			inputs = append(inputs, b.input("input", schema.TensorTypeINT8, []int32{B, N}, inScale, inZP))
		}
		wf = b.int8Weights("weights_feature", []int32{F, N}, 0.5)
		stateScale, wtScale := float32(0.004), float32(0.5/4000)
		stateType, stateZP := schema.TensorTypeINT16, int64(0)
		if s.mode == "int16" {
			v := make([]int16, F*M)
			for i := range v {
				v[i] = int16(b.r.IntN(8001) - 4000)
			}
			wt = b.tensor("weights_time", schema.TensorTypeINT16, []int32{F, M}, recI16Bytes(v), false, wtScale, 0)
		} else {
			wtScale, stateScale, stateType, stateZP = 0.5/127, 0.03, schema.TensorTypeINT8, -4
			wt = b.int8Weights("weights_time", []int32{F, M}, 0.5)
		}
		bv := make([]int32, U)
		for i := range bv {
			bv[i] = int32(b.r.IntN(20001) - 10000)
		}
		bias = b.tensor("bias", schema.TensorTypeINT32, []int32{U}, recI32Bytes(bv), false, stateScale*wtScale, 0)
		state = b.tensor("state", stateType, []int32{B, M * F}, nil, true, stateScale, stateZP)
	}
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSVDFOptions,
		Value: &schema.SVDFOptionsT{Rank: int32(s.rank), FusedActivationFunction: s.act, AsymmetricQuantizeInputs: s.mode == "hybrid-asym"}}
	for t := 0; t < s.nodes; t++ {
		out := b.output("output", actType, []int32{B, U}, outScale, outZP)
		b.op([]int32{inputs[t], wf, wt, bias, state}, []int32{out}, opts)
	}
	return b.m
}

// gruModel builds a UNIDIRECTIONAL_SEQUENCE_GRU model: input [steps,
// batch, nIn], outputs output and output_state.
func gruModel(steps, batch, nIn, units int, seed uint64) *schema.ModelT {
	b := newRecModel(schema.BuiltinOperatorCUSTOM, 1, fused.GRUCustomName, seed)
	f := schema.TensorTypeFLOAT32
	T, B, N, U := int32(steps), int32(batch), int32(nIn), int32(units)
	in := b.input("input", f, []int32{T, B, N}, 0, 0)
	st := b.tensor("input_state", f, []int32{B, U}, nil, true, 0, 0)
	a := 1 / math.Sqrt(float64(nIn+units))
	gw := b.floatWeights("gate_weight", []int32{2 * U, N + U}, a)
	gb := b.floatWeights("gate_bias", []int32{2 * U}, 0.5)
	cw := b.floatWeights("candidate_weight", []int32{U, N + U}, a)
	cb := b.floatWeights("candidate_bias", []int32{U}, 0.5)
	out := b.output("output", f, []int32{T, B, U}, 0, 0)
	ost := b.output("output_state", f, []int32{B, U}, 0, 0)
	b.op([]int32{in, st, gw, gb, cw, cb}, []int32{out, ost}, nil)
	return b.m
}
