package interpreter

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Hostile LSTM-family models: valid UNIDIRECTIONAL_SEQUENCE_LSTM, LSTM
// (FULL and BASIC) and BIDIRECTIONAL_SEQUENCE_LSTM models with one thing
// broken each (a weight of the wrong rank or size, a missing mandatory
// tensor, a state that is not a variable, an unsupported version or type
// combination, truncated weight data). Each must fail to load or allocate
// with an error naming the operator and the tensor, never panic.

func TestHostileLSTMModels(t *testing.T) {
	// Valid bases.
	usl := func(path string) uslConfig {
		return uslConfig{op: "usl", batch: 2, time: 3, nIn: 4, nCell: 5, nOut: 5, timeMajor: true, path: path,
			peephole: path != "int8", act: schema.ActivationFunctionTypeTANH}
	}
	lstm := func(path string) uslConfig {
		c := usl(path)
		c.op = "lstm"
		return c
	}
	bi := bilstmConfig{batch: 2, time: 3, nIn: 4, nCell: 5, timeMajor: true}
	// tensorOf returns the tensor that operator 0's input role feeds.
	tensorOf := func(m *schema.ModelT, role int) *schema.TensorT {
		return m.Subgraphs[0].Tensors[m.Subgraphs[0].Operators[0].Inputs[role]]
	}
	// reshape gives the tensor of role a new shape and a zero buffer of
	// the matching size, so the loader accepts it and the kernel decides.
	reshape := func(m *schema.ModelT, role int, typ schema.TensorType, shape ...int32) {
		t := tensorOf(m, role)
		t.Shape, t.Type = shape, typ
		n := 1
		for _, d := range shape {
			n *= int(d)
		}
		size := map[schema.TensorType]int{schema.TensorTypeFLOAT32: 4, schema.TensorTypeINT8: 1, schema.TensorTypeUINT8: 1,
			schema.TensorTypeINT16: 2, schema.TensorTypeINT32: 4}[typ]
		m.Buffers[t.Buffer].Data = make([]byte, n*size)
	}
	// notVariable turns a state into a plain graph input.
	notVariable := func(m *schema.ModelT, role int) {
		tensorOf(m, role).IsVariable = false
		sg := m.Subgraphs[0]
		sg.Inputs = append(sg.Inputs, sg.Operators[0].Inputs[role])
	}
	editUSL := func(c uslConfig, f func(m *schema.ModelT)) []byte {
		m := buildLSTMModel(c, 61)
		f(m)
		return pack(m)
	}
	editBi := func(c bilstmConfig, f func(m *schema.ModelT)) []byte {
		m := buildBiLSTMModel(c, 62)
		f(m)
		return pack(m)
	}
	editBasic := func(f func(m *schema.ModelT)) []byte {
		m := buildBasicLSTMModel(2, 3, 4, 63)
		f(m)
		return pack(m)
	}
	for _, valid := range [][]byte{buildLSTM(usl("float"), 61), buildLSTM(usl("hybrid"), 61), buildLSTM(usl("int8"), 61),
		buildLSTM(lstm("float"), 61), buildLSTM(lstm("int8"), 61), buildBiLSTM(bi, 62), buildBasicLSTM(2, 3, 4, 63)} {
		if err := loadAndAllocate(valid); err != nil {
			t.Fatalf("a base model must be valid: %v", err)
		}
	}
	const uslOp = "UNIDIRECTIONAL_SEQUENCE_LSTM v"
	cases := []struct {
		name string
		b    []byte
		want []string // substrings the error must contain
	}{
		{"usl weight rank", editUSL(usl("float"), func(m *schema.ModelT) { reshape(m, 2, schema.TensorTypeFLOAT32, 5, 4, 1) }),
			[]string{uslOp, "input 2 (input_to_forget_weights) has shape [5 4 1], needs [5 4]"}},
		{"usl weight size", editUSL(usl("float"), func(m *schema.ModelT) { reshape(m, 7, schema.TensorTypeFLOAT32, 5, 6) }),
			[]string{uslOp, "input 7 (recurrent_to_cell_weights) has shape [5 6]"}},
		{"usl weight shape disagrees with its buffer", editUSL(usl("float"), func(m *schema.ModelT) {
			tensorOf(m, 7).Shape = []int32{5, 6}
		}), []string{"recurrent_to_cell", "constant buffer"}},
		{"usl missing input_to_output", editUSL(usl("float"), func(m *schema.ModelT) { m.Subgraphs[0].Operators[0].Inputs[4] = -1 }),
			[]string{uslOp, "input 4 (input_to_output_weights) is required but omitted"}},
		{"usl missing forget bias", editUSL(usl("hybrid"), func(m *schema.ModelT) { m.Subgraphs[0].Operators[0].Inputs[13] = -1 }),
			[]string{uslOp, "input 13 (forget_gate_bias) is required but omitted"}},
		{"usl state not variable", editUSL(usl("float"), func(m *schema.ModelT) { notVariable(m, 18) }),
			[]string{uslOp, "input 18 (output_state) is not a variable tensor"}},
		{"usl cell state not variable", editUSL(usl("int8"), func(m *schema.ModelT) { notVariable(m, 19) }),
			[]string{uslOp, "input 19 (cell_state) is not a variable tensor"}},
		{"usl state neither variable nor produced", editUSL(usl("float"), func(m *schema.ModelT) { tensorOf(m, 19).IsVariable = false }),
			[]string{"UNIDIRECTIONAL_SEQUENCE_LSTM", "cell_state", "read before anything produces it"}},
		{"usl state size", editUSL(usl("float"), func(m *schema.ModelT) { tensorOf(m, 19).Shape = []int32{2, 6} }),
			[]string{uslOp, "input 19 (cell_state) has 12 elements"}},
		{"usl version 5", editUSL(usl("float"), func(m *schema.ModelT) { m.OperatorCodes[0].Version = 5 }),
			[]string{uslOp + "5", "version 5 is not supported"}},
		{"usl int16 activations", editUSL(usl("float"), func(m *schema.ModelT) { tensorOf(m, 0).Type = schema.TensorTypeINT16 }),
			[]string{uslOp, "input 0 (input) is int16", "int16 activations"}},
		{"usl uint8 weights", editUSL(usl("hybrid"), func(m *schema.ModelT) {
			tensorOf(m, 4).Type = schema.TensorTypeUINT8
			tensorOf(m, 4).Quantization.ZeroPoint = []int64{128}
		}), []string{uslOp, "input 4 (input_to_output_weights) is uint8"}},
		{"usl per-channel hybrid", editUSL(usl("hybrid"), func(m *schema.ModelT) {
			tensorOf(m, 3).Quantization = &schema.QuantizationParametersT{Scale: []float32{.1, .1, .1, .1, .1}, ZeroPoint: make([]int64, 5)}
		}), []string{uslOp, "input 3 (input_to_cell_weights) has 5 scales (per-channel)"}},
		{"usl float bias in integer", editUSL(usl("int8"), func(m *schema.ModelT) {
			reshape(m, 14, schema.TensorTypeFLOAT32, 5)
		}), []string{uslOp, "input 14 (cell_gate_bias) is float32"}},
		{"usl integer intermediates", editUSL(usl("int8"), func(m *schema.ModelT) {
			op := m.Subgraphs[0].Operators[0]
			op.Intermediates = op.Intermediates[:4]
		}), []string{uslOp, "exactly 5 intermediate tensors"}},
		{"usl integer state type", editUSL(usl("int8"), func(m *schema.ModelT) { tensorOf(m, 18).Type = schema.TensorTypeINT16 }),
			[]string{uslOp, "input 18 (output_state) is int16"}},
		{"usl integer cell scale", editUSL(usl("int8"), func(m *schema.ModelT) {
			tensorOf(m, 19).Quantization.Scale = []float32{0.001}
		}), []string{uslOp, "input 19 (cell_state) has scale", "power of two"}},
		{"usl truncated weights", editUSL(usl("float"), func(m *schema.ModelT) {
			buf := m.Buffers[tensorOf(m, 6).Buffer]
			buf.Data = buf.Data[:len(buf.Data)-8]
		}), []string{"recurrent_to_forget"}},
		{"usl too few inputs", editUSL(usl("float"), func(m *schema.ModelT) {
			op := m.Subgraphs[0].Operators[0]
			op.Inputs = op.Inputs[:19]
		}), []string{uslOp, "has 19 inputs"}},

		{"lstm rank 3 input", editUSL(lstm("float"), func(m *schema.ModelT) { tensorOf(m, 0).Shape = []int32{1, 2, 4} }),
			[]string{"LSTM v1", "input 0 (input) has shape [1 2 4], needs rank 2"}},
		{"lstm diagonal", editUSL(lstm("float"), func(m *schema.ModelT) { reshape(m, 8, schema.TensorTypeFLOAT32, 5) }),
			[]string{"LSTM v1", "input 8 (recurrent_to_output_weights) has shape [5]"}},
		{"lstm version 5", editUSL(lstm("float"), func(m *schema.ModelT) { m.OperatorCodes[0].Version = 5 }),
			[]string{"LSTM v5", "version 5 is not supported"}},
		{"lstm 8x8_8", editUSL(lstm("int8"), func(m *schema.ModelT) {
			op := m.Subgraphs[0].Operators[0]
			for len(op.Intermediates) < 12 {
				op.Intermediates = append(op.Intermediates, op.Intermediates[4])
			}
		}), []string{"LSTM v2", "8x8_8"}},
		{"lstm state not variable", editUSL(lstm("hybrid"), func(m *schema.ModelT) { notVariable(m, 19) }),
			[]string{"LSTM v2", "input 19 (cell_state) is not a variable tensor"}},
		{"basic weights shape", editBasic(func(m *schema.ModelT) { reshape(m, 2, schema.TensorTypeFLOAT32, 16, 6) }),
			[]string{"LSTM v2", "input 2 (weights) has shape [16 6]"}},
		{"basic bias omitted", editBasic(func(m *schema.ModelT) { m.Subgraphs[0].Operators[0].Inputs[3] = -1 }),
			[]string{"LSTM v2", "input 3 (bias) is required but omitted"}},
		{"basic state not variable", editBasic(func(m *schema.ModelT) { notVariable(m, 1) }),
			[]string{"LSTM v2", "input 1 (prev_activation) is not a variable tensor"}},
		{"basic outputs", editBasic(func(m *schema.ModelT) {
			op := m.Subgraphs[0].Operators[0]
			op.Outputs = op.Outputs[:2]
		}), []string{"LSTM v2", "needs 5 and 4"}},
		{"basic types", editBasic(func(m *schema.ModelT) { tensorOf(m, 0).Type = schema.TensorTypeUINT8 }),
			[]string{"LSTM v2", "unsupported type combination"}},

		{"bilstm bw weights missing", editBi(bi, func(m *schema.ModelT) { m.Subgraphs[0].Operators[0].Inputs[19] = -1 }),
			[]string{"BIDIRECTIONAL_SEQUENCE_LSTM v1", "input 19 (bw_input_to_forget_weights) is required but omitted"}},
		{"bilstm fw weight rank", editBi(bi, func(m *schema.ModelT) { tensorOf(m, 3).Shape = []int32{20} }),
			[]string{"BIDIRECTIONAL_SEQUENCE_LSTM v1", "input 3 (fw_input_to_cell_weights) has shape [20]"}},
		{"bilstm fw state not variable", editBi(bi, func(m *schema.ModelT) { notVariable(m, 35) }),
			[]string{"BIDIRECTIONAL_SEQUENCE_LSTM v1", "input 35 (fw_output_state) is not a variable tensor"}},
		{"bilstm bw state size", editBi(bi, func(m *schema.ModelT) { tensorOf(m, 38).Shape = []int32{2, 7} }),
			[]string{"BIDIRECTIONAL_SEQUENCE_LSTM v1", "input 38 (bw_cell_state) has 14 elements"}},
		{"bilstm version 4", editBi(bi, func(m *schema.ModelT) { m.OperatorCodes[0].Version = 4 }),
			[]string{"BIDIRECTIONAL_SEQUENCE_LSTM v4", "version 4 is not supported"}},
		{"bilstm int8 input", editBi(bi, func(m *schema.ModelT) { tensorOf(m, 0).Type = schema.TensorTypeINT8 }),
			[]string{"BIDIRECTIONAL_SEQUENCE_LSTM v1", "input 0 (input) is int8"}},
		{"bilstm outputs", editBi(bi, func(m *schema.ModelT) {
			op := m.Subgraphs[0].Operators[0]
			op.Outputs = op.Outputs[:1]
			m.Subgraphs[0].Outputs = m.Subgraphs[0].Outputs[:1]
		}), []string{"BIDIRECTIONAL_SEQUENCE_LSTM v1", "has 1 outputs, needs 2"}},
		{"bilstm aux weights partial", editBi(bilstmConfig{batch: 2, time: 3, nIn: 4, nCell: 5, timeMajor: true, aux: "cross", nAux: 3},
			func(m *schema.ModelT) { m.Subgraphs[0].Operators[0].Inputs[46] = -1 }),
			[]string{"BIDIRECTIONAL_SEQUENCE_LSTM v1", "auxiliary"}},
		{"bilstm aux weight shape", editBi(bilstmConfig{batch: 2, time: 3, nIn: 4, nCell: 5, timeMajor: true, aux: "cross", nAux: 3},
			func(m *schema.ModelT) { reshape(m, 42, schema.TensorTypeFLOAT32, 5, 4) }),
			[]string{"BIDIRECTIONAL_SEQUENCE_LSTM v1", "input 42 (fw_aux_input_to_cell_weights) has shape [5 4], needs [5, 3]"}},
		{"bilstm hybrid mixed weights", editBi(bilstmConfig{batch: 2, time: 3, nIn: 4, nCell: 5, timeMajor: true, hybrid: true},
			func(m *schema.ModelT) { reshape(m, 21, schema.TensorTypeFLOAT32, 5, 4) }),
			[]string{"BIDIRECTIONAL_SEQUENCE_LSTM v2", "input 21 (bw_input_to_output_weights) is float32"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := loadAndAllocate(c.b)
			if isGuarded(err) {
				t.Fatalf("the interpreter caught: %v", err)
			}
			if err == nil {
				t.Fatalf("no error, want one containing %q", c.want)
			}
			t.Log(err)
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
