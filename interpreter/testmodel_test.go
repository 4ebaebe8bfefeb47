package interpreter

import (
	"encoding/binary"
	"math"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/schema"
)

// This file builds small models in tests with the schema's object API, so
// hostile variants can be made by editing a valid model's Go description
// before packing it.

// pack serialises a model description into a .tflite byte slice with the
// "TFL3" file identifier.
func pack(m *schema.ModelT) []byte {
	b := flatbuffers.NewBuilder(1024)
	b.FinishWithFileIdentifier(m.Pack(b), []byte("TFL3"))
	return b.FinishedBytes()
}

func f32bytes(v ...float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// fcModel describes a float FULLY_CONNECTED model: input [1,4] → FC with
// weights [3,4] and bias [3] → output [1,3].
//
//	tensor 0 input, 1 weights (buffer 1), 2 bias (buffer 2), 3 output
func fcModel() *schema.ModelT {
	w := make([]float32, 12)
	for i := range w {
		w[i] = float32(i+1) / 10
	}
	return &schema.ModelT{
		Version:       3,
		OperatorCodes: []*schema.OperatorCodeT{{BuiltinCode: schema.BuiltinOperatorFULLY_CONNECTED, DeprecatedBuiltinCode: 9, Version: 1}},
		Buffers:       []*schema.BufferT{{}, {Data: f32bytes(w...)}, {Data: f32bytes(0.5, -0.5, 1)}, {}},
		Subgraphs: []*schema.SubGraphT{{
			Tensors: []*schema.TensorT{
				{Name: "input", Shape: []int32{1, 4}, Type: schema.TensorTypeFLOAT32},
				{Name: "weights", Shape: []int32{3, 4}, Type: schema.TensorTypeFLOAT32, Buffer: 1},
				{Name: "bias", Shape: []int32{3}, Type: schema.TensorTypeFLOAT32, Buffer: 2},
				{Name: "output", Shape: []int32{1, 3}, Type: schema.TensorTypeFLOAT32, Buffer: 3},
			},
			Inputs:  []int32{0},
			Outputs: []int32{3},
			Operators: []*schema.OperatorT{{
				OpcodeIndex: 0, Inputs: []int32{0, 1, 2}, Outputs: []int32{3},
				BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{}},
			}},
		}},
	}
}

// fcWant is fcModel's output for input x: W·x + b.
func fcWant(x [4]float32) [3]float32 {
	var out [3]float32
	b := [3]float32{0.5, -0.5, 1}
	for r := 0; r < 3; r++ {
		s := b[r]
		for c := 0; c < 4; c++ {
			s += float32(r*4+c+1) / 10 * x[c]
		}
		out[r] = s
	}
	return out
}

// reshapeModel describes input [2,3] → RESHAPE (new_shape option) →
// output.
func reshapeModel(newShape []int32, outShape []int32) *schema.ModelT {
	return &schema.ModelT{
		Version:       3,
		OperatorCodes: []*schema.OperatorCodeT{{BuiltinCode: schema.BuiltinOperatorRESHAPE, DeprecatedBuiltinCode: 22, Version: 1}},
		Buffers:       []*schema.BufferT{{}},
		Subgraphs: []*schema.SubGraphT{{
			Tensors: []*schema.TensorT{
				{Name: "input", Shape: []int32{2, 3}, Type: schema.TensorTypeFLOAT32},
				{Name: "output", Shape: outShape, Type: schema.TensorTypeFLOAT32},
			},
			Inputs:  []int32{0},
			Outputs: []int32{1},
			Operators: []*schema.OperatorT{{
				Inputs: []int32{0}, Outputs: []int32{1},
				BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReshapeOptions, Value: &schema.ReshapeOptionsT{NewShape: newShape}},
			}},
		}},
	}
}

// lstmModel describes a float UNIDIRECTIONAL_SEQUENCE_LSTM with batch 1,
// 2 time steps, n_input 2, n_cell = n_output 3, no peephole, projection or
// layer norm: input tensor 0 [1,2,2]; weights 1..8 (input-to-gate i,f,c,o
// [3,2], recurrent-to-gate i,f,c,o [3,3]); gate biases 9..12 [3]; state
// tensors 13 (output state [1,3]) and 14 (cell state [1,3]), variables;
// output 15 [1,2,3]. Unused optional inputs are -1.
func lstmModel() *schema.ModelT {
	m := &schema.ModelT{
		Version:       3,
		OperatorCodes: []*schema.OperatorCodeT{{BuiltinCode: schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM, DeprecatedBuiltinCode: 44, Version: 1}},
		Buffers:       []*schema.BufferT{{}},
	}
	sg := &schema.SubGraphT{Inputs: []int32{0}, Outputs: []int32{15}}
	addConst := func(name string, shape []int32, vals []float32) {
		m.Buffers = append(m.Buffers, &schema.BufferT{Data: f32bytes(vals...)})
		sg.Tensors = append(sg.Tensors, &schema.TensorT{Name: name, Shape: shape, Type: schema.TensorTypeFLOAT32, Buffer: uint32(len(m.Buffers) - 1)})
	}
	fill := func(n int, seed float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(math.Sin(float64(seed) + float64(i)*0.7))
		}
		return v
	}
	sg.Tensors = append(sg.Tensors, &schema.TensorT{Name: "input", Shape: []int32{1, 2, 2}, Type: schema.TensorTypeFLOAT32})
	for g, name := range []string{"i", "f", "c", "o"} {
		addConst("input_to_"+name, []int32{3, 2}, fill(6, float32(g)))
	}
	for g, name := range []string{"i", "f", "c", "o"} {
		addConst("recurrent_to_"+name, []int32{3, 3}, fill(9, float32(10+g)))
	}
	for g, name := range []string{"i", "f", "c", "o"} {
		addConst("bias_"+name, []int32{3}, fill(3, float32(20+g)))
	}
	sg.Tensors = append(sg.Tensors,
		&schema.TensorT{Name: "output_state", Shape: []int32{1, 3}, Type: schema.TensorTypeFLOAT32, IsVariable: true},
		&schema.TensorT{Name: "cell_state", Shape: []int32{1, 3}, Type: schema.TensorTypeFLOAT32, IsVariable: true},
		&schema.TensorT{Name: "output", Shape: []int32{1, 2, 3}, Type: schema.TensorTypeFLOAT32},
	)
	// TFLite's 24 inputs: 0 input; 1-4 input-to-gate; 5-8 recurrent;
	// 9-11 peephole; 12-15 gate bias; 16-17 projection; 18-19 state;
	// 20-23 layer norm.
	in := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1, 9, 10, 11, 12, -1, -1, 13, 14, -1, -1, -1, -1}
	sg.Operators = []*schema.OperatorT{{
		Inputs: in, Outputs: []int32{15},
		BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions,
			Value: &schema.UnidirectionalSequenceLSTMOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeTANH}},
	}}
	m.Subgraphs = []*schema.SubGraphT{sg}
	return m
}

// mustLoad packs m and loads it, failing the test on error.
func mustLoad(t *testing.T, m *schema.ModelT) *Model {
	t.Helper()
	model, err := LoadBytes(pack(m))
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	return model
}
