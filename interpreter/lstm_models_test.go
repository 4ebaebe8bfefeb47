package interpreter

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/tflrun/tflrun/schema"
)

// This file builds small LSTM-family models (UNIDIRECTIONAL_SEQUENCE_LSTM,
// LSTM FULL and BASIC, BIDIRECTIONAL_SEQUENCE_LSTM) with the schema object
// API for the interpreter-level tests and the hostile-model cases.

// lstmBuilder is a one-operator-code model under construction; r makes the
// weights, so two builders with the same seed and the same calls make the
// same weights.
type lstmBuilder struct {
	m  *schema.ModelT
	sg *schema.SubGraphT
	r  *rand.Rand
}

func newLSTMBuilder(code schema.BuiltinOperator, version int32, seed uint64) *lstmBuilder {
	sg := &schema.SubGraphT{}
	return &lstmBuilder{
		m: &schema.ModelT{Version: 3,
			OperatorCodes: []*schema.OperatorCodeT{{BuiltinCode: code, DeprecatedBuiltinCode: int8(code), Version: version}},
			Buffers:       []*schema.BufferT{{}},
			Subgraphs:     []*schema.SubGraphT{sg}},
		sg: sg,
		r:  rand.New(rand.NewPCG(seed, seed^0x5bd1e995)),
	}
}

// tensor adds a tensor; nil data makes it non-constant; scale 0 means no
// quantisation.
func (b *lstmBuilder) tensor(name string, typ schema.TensorType, shape []int32, data []byte, variable bool, scale float32, zp int64) int32 {
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

func (b *lstmBuilder) input(name string, typ schema.TensorType, shape []int32, scale float32, zp int64) int32 {
	i := b.tensor(name, typ, shape, nil, false, scale, zp)
	b.sg.Inputs = append(b.sg.Inputs, i)
	return i
}

func (b *lstmBuilder) output(name string, typ schema.TensorType, shape []int32, scale float32, zp int64) int32 {
	i := b.tensor(name, typ, shape, nil, false, scale, zp)
	b.sg.Outputs = append(b.sg.Outputs, i)
	return i
}

func (b *lstmBuilder) op(in, out, inter []int32, opts *schema.BuiltinOptionsT) {
	b.sg.Operators = append(b.sg.Operators, &schema.OperatorT{Inputs: in, Outputs: out, Intermediates: inter, BuiltinOptions: opts})
}

// uniform returns n values uniform in [-a, a).
func (b *lstmBuilder) uniform(n int, a float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((b.r.Float64()*2 - 1) * a)
	}
	return v
}

func (b *lstmBuilder) f32const(name string, shape []int32, v []float32) int32 {
	return b.tensor(name, schema.TensorTypeFLOAT32, shape, f32bytes(v...), false, 0, 0)
}

// i8const quantises v symmetrically to int8 (scale max|v|/127).
func (b *lstmBuilder) i8const(name string, shape []int32, v []float32) (int32, float32) {
	m := float32(0)
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	scale := m / 127
	if scale == 0 {
		scale = 1
	}
	q := make([]byte, len(v))
	for i, x := range v {
		q[i] = byte(int8(math.Round(float64(x / scale))))
	}
	return b.tensor(name, schema.TensorTypeINT8, shape, q, false, scale, 0), scale
}

func i32bytes(v []int32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return out
}

// uslConfig describes an LSTM model for the tests.
type uslConfig struct {
	// op is "usl" (UNIDIRECTIONAL_SEQUENCE_LSTM, the whole sequence per
	// invoke) or "lstm" (LSTM FULL, one step per invoke).
	op                   string
	batch, time          int
	nIn, nCell, nOut     int
	timeMajor            bool
	path                 string // "float", "hybrid" or "int8"
	asym                 bool
	cifg, peephole, proj bool
	act                  schema.ActivationFunctionType
	cellClip             float32
	bias                 [4]float32 // added to the random gate biases (i, f, c, o)
	weightScale          float64    // multiplies the random weights (0 means 1)
	version              int32
}

// buildLSTM returns the packed model of c: graph input 0 the input
// ([time, batch, in] or [batch, time, in] for "usl", [batch, in] for
// "lstm"), graph output 0 the output; the state tensors are variables.
// The weights depend only on the seed and the sizes.
func buildLSTM(c uslConfig, seed uint64) []byte { return pack(buildLSTMModel(c, seed)) }

// buildLSTMModel is buildLSTM before packing, for tests that edit it.
func buildLSTMModel(c uslConfig, seed uint64) *schema.ModelT {
	code := schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM
	if c.op == "lstm" {
		code = schema.BuiltinOperatorLSTM
	}
	version := c.version
	if version == 0 {
		version = 1
		switch {
		case c.path == "hybrid" && c.asym:
			version = 3
		case c.path == "hybrid" || c.path == "int8":
			version = 2
		}
		if c.op == "lstm" && c.asym {
			version = 4
		}
	}
	b := newLSTMBuilder(code, version, seed)
	var inShape, outShape []int32
	switch {
	case c.op == "lstm":
		inShape, outShape = []int32{int32(c.batch), int32(c.nIn)}, []int32{int32(c.batch), int32(c.nOut)}
	case c.timeMajor:
		inShape, outShape = []int32{int32(c.time), int32(c.batch), int32(c.nIn)}, []int32{int32(c.time), int32(c.batch), int32(c.nOut)}
	default:
		inShape, outShape = []int32{int32(c.batch), int32(c.time), int32(c.nIn)}, []int32{int32(c.batch), int32(c.time), int32(c.nOut)}
	}
	const inScale, inZP = float32(1.0 / 128), 3
	const hScale, hZP = float32(1.0 / 128), -2
	integer := c.path == "int8"
	inType := schema.TensorTypeFLOAT32
	if integer {
		inType = schema.TensorTypeINT8
	}
	in := make([]int32, 24)
	for i := range in {
		in[i] = -1
	}
	if integer {
		in[0] = b.input("input", inType, inShape, inScale, inZP)
	} else {
		in[0] = b.input("input", inType, inShape, 0, 0)
	}
	ws := c.weightScale
	if ws == 0 {
		ws = 1
	}
	gates := []string{"input", "forget", "cell", "output"}
	for g := 0; g < 4; g++ {
		if g == 0 && c.cifg {
			continue
		}
		wx := b.uniform(c.nCell*c.nIn, ws/math.Sqrt(float64(c.nIn)))
		wh := b.uniform(c.nCell*c.nOut, ws/math.Sqrt(float64(c.nOut)))
		bias := b.uniform(c.nCell, 0.5)
		for i := range bias {
			bias[i] += c.bias[g]
		}
		xShape := []int32{int32(c.nCell), int32(c.nIn)}
		switch c.path {
		case "float":
			in[1+g] = b.f32const("input_to_"+gates[g], xShape, wx)
			in[5+g] = b.f32const("recurrent_to_"+gates[g], []int32{int32(c.nCell), int32(c.nOut)}, wh)
			in[12+g] = b.f32const(gates[g]+"_bias", []int32{int32(c.nCell)}, bias)
		case "hybrid":
			in[1+g], _ = b.i8const("input_to_"+gates[g], xShape, wx)
			in[5+g], _ = b.i8const("recurrent_to_"+gates[g], []int32{int32(c.nCell), int32(c.nOut)}, wh)
			in[12+g] = b.f32const(gates[g]+"_bias", []int32{int32(c.nCell)}, bias)
		case "int8":
			var sx float32
			in[1+g], sx = b.i8const("input_to_"+gates[g], xShape, wx)
			in[5+g], _ = b.i8const("recurrent_to_"+gates[g], []int32{int32(c.nCell), int32(c.nOut)}, wh)
			bs := inScale * sx
			bq := make([]int32, c.nCell)
			for i, v := range bias {
				bq[i] = int32(math.Round(float64(v / bs)))
			}
			in[12+g] = b.tensor(gates[g]+"_bias", schema.TensorTypeINT32, []int32{int32(c.nCell)}, i32bytes(bq), false, bs, 0)
		}
		if c.peephole && g != 2 {
			wc := b.uniform(c.nCell, 0.5)
			idx := [4]int{9, 10, -1, 11}[g]
			if c.path == "float" {
				in[idx] = b.f32const("cell_to_"+gates[g], []int32{int32(c.nCell)}, wc)
			} else {
				in[idx], _ = b.i8const("cell_to_"+gates[g], []int32{int32(c.nCell)}, wc)
			}
		}
	}
	if c.proj {
		wp := b.uniform(c.nOut*c.nCell, 1/math.Sqrt(float64(c.nCell)))
		if c.path == "float" {
			in[16] = b.f32const("projection_weights", []int32{int32(c.nOut), int32(c.nCell)}, wp)
		} else {
			in[16], _ = b.i8const("projection_weights", []int32{int32(c.nOut), int32(c.nCell)}, wp)
		}
	}
	stateShape := []int32{int32(c.batch), int32(c.nOut)}
	var inter []int32
	if integer {
		in[18] = b.tensor("output_state", schema.TensorTypeINT8, stateShape, nil, true, hScale, hZP)
		in[19] = b.tensor("cell_state", schema.TensorTypeINT16, []int32{int32(c.batch), int32(c.nCell)}, nil, true, 1.0/2048, 0)
		for i := 0; i < 4; i++ {
			inter = append(inter, b.tensor("intermediate", schema.TensorTypeFLOAT32, []int32{0}, nil, false, 0, 0))
		}
		inter = append(inter, b.tensor("hidden", schema.TensorTypeINT8, []int32{0}, nil, false, hScale, hZP))
	} else {
		in[18] = b.tensor("output_state", schema.TensorTypeFLOAT32, stateShape, nil, true, 0, 0)
		in[19] = b.tensor("cell_state", schema.TensorTypeFLOAT32, []int32{int32(c.batch), int32(c.nCell)}, nil, true, 0, 0)
	}
	var out int32
	if integer {
		out = b.output("output", schema.TensorTypeINT8, outShape, hScale, hZP)
	} else {
		out = b.output("output", schema.TensorTypeFLOAT32, outShape, 0, 0)
	}
	var opts *schema.BuiltinOptionsT
	if c.op == "lstm" {
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsLSTMOptions, Value: &schema.LSTMOptionsT{
			FusedActivationFunction: c.act, CellClip: c.cellClip, AsymmetricQuantizeInputs: c.asym}}
	} else {
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions, Value: &schema.UnidirectionalSequenceLSTMOptionsT{
			FusedActivationFunction: c.act, CellClip: c.cellClip, TimeMajor: c.timeMajor, AsymmetricQuantizeInputs: c.asym}}
	}
	b.op(in, []int32{out}, inter, opts)
	return b.m
}

// bilstmConfig describes a BIDIRECTIONAL_SEQUENCE_LSTM model for the tests.
type bilstmConfig struct {
	batch, time, nIn, nCell int
	timeMajor, merge        bool
	hybrid, asym            bool
	// aux is "" (none), "cross" (auxiliary weights, n_aux nAux) or "bw"
	// (the auxiliary input feeds the backward direction).
	aux  string
	nAux int
}

// buildBiLSTM returns the packed model of c: graph input 0 the input, 1 the
// auxiliary input when there is one; graph outputs the one or two outputs.
func buildBiLSTM(c bilstmConfig, seed uint64) []byte { return pack(buildBiLSTMModel(c, seed)) }

// buildBiLSTMModel is buildBiLSTM before packing.
func buildBiLSTMModel(c bilstmConfig, seed uint64) *schema.ModelT {
	version := int32(1)
	if c.hybrid {
		version = 2
		if c.asym {
			version = 3
		}
	}
	b := newLSTMBuilder(schema.BuiltinOperatorBIDIRECTIONAL_SEQUENCE_LSTM, version, seed)
	shape := func(w int) []int32 {
		if c.timeMajor {
			return []int32{int32(c.time), int32(c.batch), int32(w)}
		}
		return []int32{int32(c.batch), int32(c.time), int32(w)}
	}
	in := make([]int32, 48)
	for i := range in {
		in[i] = -1
	}
	in[0] = b.input("input", schema.TensorTypeFLOAT32, shape(c.nIn), 0, 0)
	weights := func(name string, rows, cols int) int32 {
		v := b.uniform(rows*cols, 1/math.Sqrt(float64(cols)))
		if c.hybrid {
			i, _ := b.i8const(name, []int32{int32(rows), int32(cols)}, v)
			return i
		}
		return b.f32const(name, []int32{int32(rows), int32(cols)}, v)
	}
	for d, prefix := range []string{"fw_", "bw_"} {
		off := 17 * d
		for g := 0; g < 4; g++ {
			in[off+1+g] = weights(prefix+"input_to_gate", c.nCell, c.nIn)
			in[off+5+g] = weights(prefix+"recurrent_to_gate", c.nCell, c.nCell)
			in[off+12+g] = b.f32const(prefix+"bias", []int32{int32(c.nCell)}, b.uniform(c.nCell, 0.5))
		}
	}
	for i := 35; i <= 38; i++ {
		in[i] = b.tensor("state", schema.TensorTypeFLOAT32, []int32{int32(c.batch), int32(c.nCell)}, nil, true, 0, 0)
	}
	switch c.aux {
	case "cross":
		in[39] = b.input("aux_input", schema.TensorTypeFLOAT32, shape(c.nAux), 0, 0)
		for i := 40; i < 48; i++ {
			in[i] = weights("aux_weights", c.nCell, c.nAux)
		}
	case "bw":
		in[39] = b.input("aux_input", schema.TensorTypeFLOAT32, shape(c.nIn), 0, 0)
	}
	var outs []int32
	if c.merge {
		outs = []int32{b.output("output", schema.TensorTypeFLOAT32, shape(2*c.nCell), 0, 0)}
	} else {
		outs = []int32{b.output("fw_output", schema.TensorTypeFLOAT32, shape(c.nCell), 0, 0),
			b.output("bw_output", schema.TensorTypeFLOAT32, shape(c.nCell), 0, 0)}
	}
	b.op(in, outs, nil, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsBidirectionalSequenceLSTMOptions,
		Value: &schema.BidirectionalSequenceLSTMOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeTANH,
			MergeOutputs: c.merge, TimeMajor: c.timeMajor, AsymmetricQuantizeInputs: c.asym}})
	return b.m
}

// buildBasicLSTM returns a float basic-cell LSTM model: input 0 [batch,
// in]; outputs the activation and the state.
func buildBasicLSTM(batch, nIn, depth int, seed uint64) []byte {
	return pack(buildBasicLSTMModel(batch, nIn, depth, seed))
}

// buildBasicLSTMModel is buildBasicLSTM before packing.
func buildBasicLSTMModel(batch, nIn, depth int, seed uint64) *schema.ModelT {
	b := newLSTMBuilder(schema.BuiltinOperatorLSTM, 2, seed)
	x := b.input("input", schema.TensorTypeFLOAT32, []int32{int32(batch), int32(nIn)}, 0, 0)
	h := b.tensor("prev_activation", schema.TensorTypeFLOAT32, []int32{int32(batch), int32(depth)}, nil, true, 0, 0)
	w := b.f32const("weights", []int32{int32(4 * depth), int32(nIn + depth)}, b.uniform(4*depth*(nIn+depth), 0.5))
	bias := b.f32const("bias", []int32{int32(4 * depth)}, b.uniform(4*depth, 0.5))
	c := b.tensor("prev_state", schema.TensorTypeFLOAT32, []int32{int32(batch), int32(depth)}, nil, true, 0, 0)
	act := b.output("activation", schema.TensorTypeFLOAT32, []int32{int32(batch), int32(depth)}, 0, 0)
	st := b.output("state", schema.TensorTypeFLOAT32, []int32{int32(batch), int32(depth)}, 0, 0)
	cat := b.tensor("concat_temp", schema.TensorTypeFLOAT32, []int32{int32(batch), int32(nIn + depth)}, nil, false, 0, 0)
	tmp := b.tensor("activation_temp", schema.TensorTypeFLOAT32, []int32{int32(batch), int32(4 * depth)}, nil, false, 0, 0)
	b.op([]int32{x, h, w, bias, c}, []int32{act, st, cat, tmp}, nil, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsLSTMOptions,
		Value: &schema.LSTMOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeTANH, KernelType: schema.LSTMKernelTypeBASIC}})
	return b.m
}
