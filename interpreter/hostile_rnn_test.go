package interpreter

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Hostile variants of the RNN, SVDF and GRU models: every one must be
// refused by the set-up path (LoadBytes, New, AllocateTensors, Invoke)
// with an error naming the operator and the offending tensor, and none may
// panic.

func TestHostileRecurrentRNNFamily(t *testing.T) {
	rnn := rnnSpec{kind: "rnn", batch: 2, steps: 1, nIn: 3, units: 4, act: schema.ActivationFunctionTypeTANH, seed: 1}
	hyb := rnn
	hyb.hybrid = true
	seq := rnnSpec{kind: "usrnn", batch: 2, steps: 3, nIn: 3, units: 4, act: schema.ActivationFunctionTypeTANH, seed: 2}
	bi := rnnSpec{kind: "birnn", batch: 1, steps: 3, nIn: 3, units: 4, bwUnits: 2, act: schema.ActivationFunctionTypeTANH, seed: 3}
	// Tensor indices of rnnModel for one node: 0 input, 1 weights, 2
	// recurrent weights, 3 bias, 4 state, 5 output; the bidirectional model
	// adds 5-8 for the backward cell and outputs 9, 10.
	edit := func(s rnnSpec, f func(m *schema.ModelT)) []byte {
		m := rnnModel(s)
		f(m)
		return pack(m)
	}
	sg := func(m *schema.ModelT) *schema.SubGraphT { return m.Subgraphs[0] }
	cases := []struct {
		name string
		b    []byte
		want []string
	}{
		{"RNN weights of the wrong shape", edit(rnn, func(m *schema.ModelT) {
			sg(m).Tensors[1].Shape = []int32{4, 2}
			m.Buffers[1].Data = m.Buffers[1].Data[:32]
		}),
			[]string{"RNN v1 (operator 0, subgraph 0)", "input 1 (weights, tensor 1 \"weights\")"}},
		{"RNN recurrent weights not square", edit(rnn, func(m *schema.ModelT) { sg(m).Tensors[2].Shape = []int32{2, 8} }),
			[]string{"RNN v1", "input 2 (recurrent_weights"}},
		{"RNN bias omitted", edit(rnn, func(m *schema.ModelT) { sg(m).Operators[0].Inputs[3] = -1 }),
			[]string{"RNN v1", "input 3 (bias) is required"}},
		{"RNN bias of another size", edit(rnn, func(m *schema.ModelT) { sg(m).Tensors[3].Shape = []int32{2, 2} }),
			[]string{"RNN v1", "input 3 (bias"}},
		{"RNN state not a variable", edit(rnn, func(m *schema.ModelT) {
			sg(m).Tensors[4].IsVariable = false
			sg(m).Inputs = append(sg(m).Inputs, 4)
		}), []string{"RNN v1", "input 4 (hidden_state", "not a variable"}},
		{"RNN state a constant", edit(rnn, func(m *schema.ModelT) {
			m.Buffers = append(m.Buffers, &schema.BufferT{Data: f32bytes(make([]float32, 8)...)})
			sg(m).Tensors[4].IsVariable = false
			sg(m).Tensors[4].Buffer = uint32(len(m.Buffers) - 1)
		}), []string{"RNN v1", "input 4 (hidden_state", "not a variable"}},
		{"RNN state of another size", edit(rnn, func(m *schema.ModelT) { sg(m).Tensors[4].Shape = []int32{2, 5} }),
			[]string{"RNN v1", "input 4 (hidden_state"}},
		{"RNN state omitted", edit(rnn, func(m *schema.ModelT) { sg(m).Operators[0].Inputs[4] = -1 }),
			[]string{"RNN v1", "input 4 (hidden_state) is required"}},
		{"RNN int8 input", edit(rnn, func(m *schema.ModelT) {
			sg(m).Tensors[0].Type = schema.TensorTypeINT8
			sg(m).Tensors[0].Quantization = &schema.QuantizationParametersT{Scale: []float32{0.1}, ZeroPoint: []int64{0}}
		}), []string{"RNN v1", "input 0 (input"}},
		{"RNN int32 weights", edit(rnn, func(m *schema.ModelT) { sg(m).Tensors[1].Type = schema.TensorTypeINT32 }),
			[]string{"RNN v1", "input 1 (weights", "int32"}},
		{"RNN version 4", edit(rnn, func(m *schema.ModelT) { m.OperatorCodes[0].Version = 4 }),
			[]string{"RNN v4", "version 4 is not supported (supported: 1-3)"}},
		{"RNN unknown activation", edit(rnn, func(m *schema.ModelT) {
			sg(m).Operators[0].BuiltinOptions.Value.(*schema.RNNOptionsT).FusedActivationFunction = 9
		}), []string{"RNN v1", "activation"}},
		{"RNN hybrid weights without quantization", edit(hyb, func(m *schema.ModelT) { sg(m).Tensors[1].Quantization = nil }),
			[]string{"RNN v2", "input 1 (weights", "no quantization"}},
		{"RNN hybrid weights per channel", edit(hyb, func(m *schema.ModelT) {
			sg(m).Tensors[2].Quantization = &schema.QuantizationParametersT{Scale: []float32{0.1, 0.1, 0.1, 0.1}, ZeroPoint: []int64{0, 0, 0, 0}}
		}), []string{"RNN v2", "input 2 (recurrent_weights", "per-channel"}},
		{"RNN hybrid weights with a zero point", edit(hyb, func(m *schema.ModelT) { sg(m).Tensors[1].Quantization.ZeroPoint = []int64{5} }),
			[]string{"RNN v2", "input 1 (weights", "zero point 5"}},
		{"RNN hybrid with float recurrent weights", edit(hyb, func(m *schema.ModelT) {
			m.Buffers[2].Data = f32bytes(make([]float32, 16)...)
			sg(m).Tensors[2].Type = schema.TensorTypeFLOAT32
			sg(m).Tensors[2].Quantization = nil
		}), []string{"RNN v2", "input 2 (recurrent_weights", "int8"}},
		{"sequence RNN input of rank 2", edit(seq, func(m *schema.ModelT) { sg(m).Tensors[0].Shape = []int32{2, 9} }),
			[]string{"UNIDIRECTIONAL_SEQUENCE_RNN v1", "input 0 (input", "rank 3"}},
		{"sequence RNN state of rank 3", edit(seq, func(m *schema.ModelT) { sg(m).Tensors[4].Shape = []int32{2, 4, 1} }),
			[]string{"UNIDIRECTIONAL_SEQUENCE_RNN v1", "input 4 (hidden_state"}},
		{"sequence RNN weights for another input size", edit(seq, func(m *schema.ModelT) {
			sg(m).Tensors[0].Shape = []int32{2, 3, 5}
		}), []string{"UNIDIRECTIONAL_SEQUENCE_RNN v1", "input 1 (weights"}},
		{"sequence RNN with 4 inputs", edit(seq, func(m *schema.ModelT) { sg(m).Operators[0].Inputs = sg(m).Operators[0].Inputs[:4] }),
			[]string{"UNIDIRECTIONAL_SEQUENCE_RNN v1", "has 4 inputs, needs 5"}},
		{"bidirectional RNN one output without merge", edit(bi, func(m *schema.ModelT) {
			sg(m).Operators[0].Outputs = sg(m).Operators[0].Outputs[:1]
			sg(m).Outputs = sg(m).Outputs[:1]
		}), []string{"BIDIRECTIONAL_SEQUENCE_RNN v1", "has 1 outputs, needs 2"}},
		{"bidirectional RNN one aux weight", edit(bi, func(m *schema.ModelT) { sg(m).Operators[0].Inputs[10] = 1 }),
			[]string{"BIDIRECTIONAL_SEQUENCE_RNN v1", "input 10 (fw_aux_weights", "input 11 (bw_aux_weights"}},
		{"bidirectional RNN aux weights without aux input", edit(bi, func(m *schema.ModelT) {
			sg(m).Operators[0].Inputs[10] = 1
			sg(m).Operators[0].Inputs[11] = 5
		}), []string{"BIDIRECTIONAL_SEQUENCE_RNN v1", "input 9 (aux_input) is required"}},
		{"bidirectional RNN backward recurrent weights of another size", edit(bi, func(m *schema.ModelT) { sg(m).Tensors[6].Shape = []int32{4, 1} }),
			[]string{"BIDIRECTIONAL_SEQUENCE_RNN v1", "input 6 (bw_recurrent_weights, tensor 6 \"bw_recurrent_weights\")"}},
		{"bidirectional RNN backward state not a variable", edit(bi, func(m *schema.ModelT) {
			sg(m).Tensors[8].IsVariable = false
			sg(m).Inputs = append(sg(m).Inputs, 8)
		}), []string{"BIDIRECTIONAL_SEQUENCE_RNN v1", "input 8 (bw_hidden_state"}},
		{"bidirectional RNN backward aux input of another shape", edit(bi, func(m *schema.ModelT) {
			sg(m).Tensors = append(sg(m).Tensors, &schema.TensorT{Name: "aux", Type: schema.TensorTypeFLOAT32, Shape: []int32{1, 3, 2}})
			sg(m).Inputs = append(sg(m).Inputs, int32(len(sg(m).Tensors)-1))
			sg(m).Operators[0].Inputs[9] = int32(len(sg(m).Tensors) - 1)
		}), []string{"BIDIRECTIONAL_SEQUENCE_RNN v1", "input 9 (aux_input", "backward input"}},
		{"bidirectional RNN with 11 inputs", edit(bi, func(m *schema.ModelT) { sg(m).Operators[0].Inputs = sg(m).Operators[0].Inputs[:11] }),
			[]string{"BIDIRECTIONAL_SEQUENCE_RNN v1", "has 11 inputs, needs 12"}},
	}
	recRunHostile(t, cases)
}

func TestHostileRecurrentSVDF(t *testing.T) {
	float := svdfSpec{batch: 1, nIn: 3, units: 2, rank: 2, memory: 3, nodes: 1, mode: "float", act: schema.ActivationFunctionTypeRELU, seed: 1}
	i16 := float
	i16.mode = "int16"
	i8 := float
	i8.mode = "int8"
	// svdfModel tensors: 0 input, 1 weights_feature [4,3], 2 weights_time
	// [4,3], 3 bias [2], 4 state [1,12], 5 output.
	edit := func(s svdfSpec, f func(m *schema.ModelT)) []byte {
		m := svdfModel(s)
		f(m)
		return pack(m)
	}
	sg := func(m *schema.ModelT) *schema.SubGraphT { return m.Subgraphs[0] }
	opts := func(m *schema.ModelT) *schema.SVDFOptionsT {
		return sg(m).Operators[0].BuiltinOptions.Value.(*schema.SVDFOptionsT)
	}
	cases := []struct {
		name string
		b    []byte
		want []string
	}{
		{"rank 0", edit(float, func(m *schema.ModelT) { opts(m).Rank = 0 }), []string{"SVDF v1 (operator 0, subgraph 0)", "rank"}},
		{"negative rank", edit(float, func(m *schema.ModelT) { opts(m).Rank = -2 }), []string{"SVDF v1", "rank"}},
		{"rank not dividing the filters", edit(float, func(m *schema.ModelT) { opts(m).Rank = 3 }), []string{"SVDF v1", "not a multiple of rank 3"}},
		{"no options (rank 0)", edit(float, func(m *schema.ModelT) { sg(m).Operators[0].BuiltinOptions = nil }), []string{"SVDF v1", "rank"}},
		{"weights_feature for another input size", edit(float, func(m *schema.ModelT) { sg(m).Tensors[1].Shape = []int32{3, 4} }),
			[]string{"SVDF v1", "input 1 (weights_feature, tensor 1 \"weights_feature\")"}},
		{"weights_time rows", edit(float, func(m *schema.ModelT) { sg(m).Tensors[2].Shape = []int32{2, 6} }),
			[]string{"SVDF v1", "input 2 (weights_time"}},
		{"weights_time rank 1", edit(float, func(m *schema.ModelT) { sg(m).Tensors[2].Shape = []int32{12} }),
			[]string{"SVDF v1", "input 2 (weights_time", "rank 2"}},
		{"bias of another size", edit(float, func(m *schema.ModelT) { sg(m).Tensors[3].Shape = []int32{1}; m.Buffers[3].Data = m.Buffers[3].Data[:4] }),
			[]string{"SVDF v1", "input 3 (bias"}},
		{"state of another size", edit(float, func(m *schema.ModelT) { sg(m).Tensors[4].Shape = []int32{1, 11} }),
			[]string{"SVDF v1", "input 4 (state"}},
		{"state not a variable", edit(float, func(m *schema.ModelT) {
			sg(m).Tensors[4].IsVariable = false
			sg(m).Inputs = append(sg(m).Inputs, 4)
		}), []string{"SVDF v1", "input 4 (state", "not a variable"}},
		{"state omitted", edit(float, func(m *schema.ModelT) { sg(m).Operators[0].Inputs[4] = -1 }),
			[]string{"SVDF v1", "input 4 (state) is required"}},
		{"weights_feature omitted", edit(float, func(m *schema.ModelT) { sg(m).Operators[0].Inputs[1] = -1 }),
			[]string{"SVDF v1", "input 1 (weights_feature) is required"}},
		{"version 5", edit(float, func(m *schema.ModelT) { m.OperatorCodes[0].Version = 5 }),
			[]string{"SVDF v5", "version 5 is not supported (supported: 1-4)"}},
		{"integer SVDF without RELU", edit(i16, func(m *schema.ModelT) { opts(m).FusedActivationFunction = schema.ActivationFunctionTypeNONE }),
			[]string{"SVDF v3", "RELU"}},
		{"integer SVDF with float32 weights_time", edit(i16, func(m *schema.ModelT) {
			sg(m).Tensors[2].Type = schema.TensorTypeFLOAT32
			m.Buffers[2].Data = f32bytes(make([]float32, 12)...)
		}), []string{"SVDF v3", "input 2 (weights_time"}},
		{"integer SVDF with an int8 state but int16 weights_time", edit(i16, func(m *schema.ModelT) { sg(m).Tensors[4].Type = schema.TensorTypeINT8 }),
			[]string{"SVDF v3", "input 4 (state"}},
		{"integer SVDF with a float bias", edit(i16, func(m *schema.ModelT) { sg(m).Tensors[3].Type = schema.TensorTypeFLOAT32 }),
			[]string{"SVDF v3", "input 3 (bias"}},
		{"integer SVDF with an unquantised state", edit(i16, func(m *schema.ModelT) { sg(m).Tensors[4].Quantization = nil }),
			[]string{"SVDF v3", "input 4 (state", "no quantization"}},
		{"integer SVDF with a float output", edit(i16, func(m *schema.ModelT) {
			sg(m).Tensors[5].Type = schema.TensorTypeFLOAT32
			sg(m).Tensors[5].Quantization = nil
		}), []string{"SVDF v3", "output 0"}},
		{"int8-state SVDF with a bias of the wrong scale", edit(i8, func(m *schema.ModelT) { sg(m).Tensors[3].Quantization.Scale = []float32{1} }),
			[]string{"SVDF v3", "input 3 (bias", "TFLite Micro"}},
		{"hybrid SVDF with uint8 weights_feature and int8 weights_time", edit(svdfSpec{batch: 1, nIn: 3, units: 2, rank: 1, memory: 2, nodes: 1, mode: "hybrid", seed: 2}, func(m *schema.ModelT) {
			sg(m).Tensors[1].Type = schema.TensorTypeUINT8
		}), []string{"SVDF v2", "input 2 (weights_time", "uint8"}},
		{"hybrid SVDF with int16 weights_feature", edit(svdfSpec{batch: 1, nIn: 3, units: 2, rank: 1, memory: 2, nodes: 1, mode: "hybrid", seed: 2}, func(m *schema.ModelT) {
			sg(m).Tensors[1].Type = schema.TensorTypeINT16
			m.Buffers[1].Data = append(m.Buffers[1].Data, m.Buffers[1].Data...)
		}), []string{"SVDF v2", "input 1 (weights_feature", "int16"}},
	}
	recRunHostile(t, cases)
}

func TestHostileRecurrentGRU(t *testing.T) {
	// gruModel tensors: 0 input [T,B,N], 1 input_state, 2 gate_weight, 3
	// gate_bias, 4 candidate_weight, 5 candidate_bias, 6 output, 7
	// output_state.
	edit := func(f func(m *schema.ModelT)) []byte {
		m := gruModel(2, 1, 3, 4, 1)
		f(m)
		return pack(m)
	}
	sg := func(m *schema.ModelT) *schema.SubGraphT { return m.Subgraphs[0] }
	const op = "UNIDIRECTIONAL_SEQUENCE_GRU v1 (operator 0, subgraph 0)"
	cases := []struct {
		name string
		b    []byte
		want []string
	}{
		{"gate weight of the wrong shape", edit(func(m *schema.ModelT) { sg(m).Tensors[2].Shape = []int32{7, 8} }),
			[]string{op, "input 2 (gate_weight, tensor 2 \"gate_weight\")"}},
		{"candidate weight of the wrong shape", edit(func(m *schema.ModelT) { sg(m).Tensors[4].Shape = []int32{7, 4} }),
			[]string{op, "input 4 (candidate_weight"}},
		{"gate bias of the wrong size", edit(func(m *schema.ModelT) { sg(m).Tensors[3].Shape = []int32{2, 4} }),
			[]string{op, "input 3 (gate_bias"}},
		{"candidate bias omitted", edit(func(m *schema.ModelT) { sg(m).Operators[0].Inputs[5] = -1 }),
			[]string{op, "input 5 (candidate_bias) is required"}},
		{"state not a variable", edit(func(m *schema.ModelT) {
			sg(m).Tensors[1].IsVariable = false
			sg(m).Inputs = append(sg(m).Inputs, 1)
		}), []string{op, "input 1 (input_state", "not a variable"}},
		{"state of rank 3", edit(func(m *schema.ModelT) { sg(m).Tensors[1].Shape = []int32{1, 4, 1} }),
			[]string{op, "input 1 (input_state", "rank 2"}},
		{"input of rank 2", edit(func(m *schema.ModelT) { sg(m).Tensors[0].Shape = []int32{2, 3} }),
			[]string{op, "input 0 (input", "rank 3"}},
		{"int8 gate weight, float candidate weight", edit(func(m *schema.ModelT) {
			sg(m).Tensors[2].Type = schema.TensorTypeINT8
			m.Buffers[1].Data = m.Buffers[1].Data[:56]
			sg(m).Tensors[2].Quantization = &schema.QuantizationParametersT{Scale: []float32{0.1}, ZeroPoint: []int64{0}}
		}), []string{op, "input 4 (candidate_weight", "the hybrid path needs int8"}},
		{"five inputs", edit(func(m *schema.ModelT) { sg(m).Operators[0].Inputs = sg(m).Operators[0].Inputs[:5] }),
			[]string{op, "has 5 inputs, needs 6"}},
		{"one output", edit(func(m *schema.ModelT) {
			sg(m).Operators[0].Outputs = sg(m).Operators[0].Outputs[:1]
			sg(m).Outputs = sg(m).Outputs[:1]
		}), []string{op, "has 1 outputs, needs 2"}},
		{"unknown custom name", edit(func(m *schema.ModelT) { m.OperatorCodes[0].CustomCode = "UNIDIRECTIONAL_SEQUENCE_GRU_V2" }),
			[]string{"no kernel for custom operator \"UNIDIRECTIONAL_SEQUENCE_GRU_V2\""}},
	}
	recRunHostile(t, cases)
}

func recRunHostile(t *testing.T, cases []struct {
	name string
	b    []byte
	want []string
}) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := loadAndAllocate(tc.b)
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestCorruptedRecurrentModels flips bytes of small RNN, SVDF and GRU
// models through the whole pipeline: errors are fine, panics are not.
func TestCorruptedRecurrentModels(t *testing.T) {
	models := map[string]*schema.ModelT{
		"birnn hybrid": rnnModel(rnnSpec{kind: "birnn", batch: 1, steps: 2, nIn: 2, units: 3, bwUnits: 2, hybrid: true, asym: true,
			act: schema.ActivationFunctionTypeTANH, seed: 1}),
		"rnn":       rnnModel(rnnSpec{kind: "rnn", batch: 1, steps: 2, nIn: 2, units: 2, act: schema.ActivationFunctionTypeRELU, seed: 2}),
		"svdf int8": svdfModel(svdfSpec{batch: 1, nIn: 2, units: 2, rank: 1, memory: 2, nodes: 1, mode: "int8", act: schema.ActivationFunctionTypeRELU, seed: 3}),
		"svdf i16":  svdfModel(svdfSpec{batch: 1, nIn: 2, units: 2, rank: 1, memory: 2, nodes: 1, mode: "int16", act: schema.ActivationFunctionTypeRELU, seed: 4}),
		"gru":       gruModel(2, 1, 2, 2, 5),
	}
	step := 1
	if testing.Short() {
		step = 7
	}
	for name, m := range models {
		b := pack(m)
		if err := loadAndAllocate(b); err != nil {
			t.Fatalf("%s: the base model must be valid: %v", name, err)
		}
		c := append([]byte(nil), b...)
		for i := 0; i < len(b); i += step {
			for _, v := range []byte{0x00, 0xFF, b[i] ^ 0x80} {
				c[i] = v
				if err := loadAndAllocate(c); isGuarded(err) {
					t.Fatalf("%s, byte %d = %#x: %v", name, i, v, err)
				}
			}
			c[i] = b[i]
		}
	}
}
