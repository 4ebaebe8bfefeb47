// Package benchmodel builds the model `tflrun bench` runs when it is given
// none: a float32 LSTM classifier with the shapes of TensorFlow Lite
// Micro's mnist_lstm example (a Keras LSTM(20) over the 28 rows of a 28×28
// image, then a dense layer to 10 classes and a softmax), but with seeded
// pseudo-random weights instead of trained ones, so that the repository
// holds no third-party model. Its outputs mean nothing; its operators,
// shapes and cost are those of the real model.
//
// The model is written with the converter's own IR and flatbuffer writer
// (convert/ir, convert/internal/tflite). Build is deterministic: the same bytes on
// every run and platform (the weights come from a PCG generator with a
// fixed seed, turned into floats here rather than by math/rand's methods).
// cmd/tflrun/gen_benchmodel.go writes them to embedded/seeded_lstm.tflite,
// and a test of cmd/tflrun checks that the committed file is Build's
// output.
package benchmodel

import (
	"math"
	"math/rand/v2"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// Name is the file name of the built model in cmd/tflrun/embedded.
const Name = "seeded_lstm.tflite"

// Summary says what the model is, for `tflrun bench`'s first line.
const Summary = "float32 LSTM(20) over a [1, 28, 28] input → FULLY_CONNECTED(10) → SOFTMAX, " +
	"the shape of TensorFlow Lite Micro's mnist_lstm example with seeded random weights, written by tflrun"

// The model's dimensions: batch 1, 28 time steps of 28 inputs, 20 LSTM
// cells, 10 classes.
const (
	Steps   = 28
	Inputs  = 28
	Cells   = 20
	Classes = 10
)

// seed is the PCG seed of the weights.
const seed1, seed2 = 20261130, 28

// description is the model's description string.
const description = "tflrun bench's embedded model: " + Summary +
	" (cmd/tflrun/internal/benchmodel)"

// Build returns the model's .tflite bytes: one subgraph, input "input"
// float32 [1, 28, 28] (batch, time, features) → UNIDIRECTIONAL_SEQUENCE_LSTM
// (20 cells, no peephole, projection or layer norm; TANH, cell clip 10,
// batch-major, state in two variable tensors [1, 20]) → RESHAPE [1, 560] →
// FULLY_CONNECTED (weights [10, 560], bias [10]) → SOFTMAX (beta 1) →
// output "probabilities" float32 [1, 10], with signature
// "serving_default". These are the operators, options and tensor shapes
// TensorFlow Lite's converter writes for the Keras mnist_lstm model.
//
// Weights are uniform in ±1/sqrt(fan-in) (input and recurrent weights of
// each gate, dense weights), biases uniform in ±0.1, the forget gate's
// shifted by +1 (Keras' unit_forget_bias). The error comes from the
// writer and does not occur for this fixed graph.
func Build() ([]byte, error) {
	rng := rand.NewPCG(seed1, seed2)
	uniform := func(shape ir.Shape, limit, shift float64) *ir.Tensor {
		n, _ := shape.NumElements() // static shapes only
		v := make([]float32, n)
		for i := range v {
			// 53 random bits → [0, 1) → [-limit, limit) + shift. The
			// float64 conversion rounds the product, so no platform
			// fuses it with the addition (FMA; 2*u is exact, so fusing
			// 2*u-1 changes nothing) and the bytes are the same
			// everywhere.
			u := float64(rng.Uint64()>>11) / (1 << 53)
			w := float64((2*u - 1) * limit)
			v[i] = float32(w + shift)
		}
		return ir.FromFloat32s(shape, v)
	}

	f := ir.NewFunction("serving_default", nil)
	x := f.AddParam("input", ir.Float32, ir.Shape{1, Steps, Inputs})

	// The 24 inputs of the full LSTM kernel (TFLite's lstm::full
	// numbering); nil ones are the optional tensors left out (-1).
	in := make([]*ir.Value, 24)
	in[0] = x
	gates := [4]string{"input", "forget", "cell", "output"}
	for g, name := range gates {
		in[1+g] = f.NewConst("lstm/input_to_"+name+"_weights", uniform(ir.Shape{Cells, Inputs}, 1/math.Sqrt(Inputs), 0))
	}
	for g, name := range gates {
		in[5+g] = f.NewConst("lstm/recurrent_to_"+name+"_weights", uniform(ir.Shape{Cells, Cells}, 1/math.Sqrt(Cells), 0))
	}
	for g, name := range gates {
		shift := 0.0
		if name == "forget" {
			shift = 1
		}
		in[12+g] = f.NewConst("lstm/"+name+"_gate_bias", uniform(ir.Shape{Cells}, 0.1, shift))
	}
	// Output and cell state: variable tensors that start at zero and
	// that the operator writes back after every invoke.
	in[18] = &ir.Value{Name: f.UniqueName("lstm/output_state"), DType: ir.Float32, Shape: ir.Shape{1, Cells}, IsVariableTensor: true}
	in[19] = &ir.Value{Name: f.UniqueName("lstm/cell_state"), DType: ir.Float32, Shape: ir.Shape{1, Cells}, IsVariableTensor: true}
	lstm := f.NewTFL("lstm", &ir.TFLOp{Builtin: schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions,
			Value: &schema.UnidirectionalSequenceLSTMOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeTANH, CellClip: 10}}},
		in, ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{1, Steps, Cells}})

	flat := ir.Shape{1, Steps * Cells}
	shape := f.NewConst("flatten/shape", ir.FromInt32s(ir.Shape{2}, []int32{1, Steps * Cells}))
	reshape := f.NewTFL("flatten", &ir.TFLOp{Builtin: schema.BuiltinOperatorRESHAPE, Version: 1},
		[]*ir.Value{lstm.Outputs[0], shape}, ir.TypeShape{DType: ir.Float32, Shape: flat})

	w := f.NewConst("dense/weights", uniform(ir.Shape{Classes, Steps * Cells}, 1/math.Sqrt(Steps*Cells), 0))
	b := f.NewConst("dense/bias", uniform(ir.Shape{Classes}, 0.1, 0))
	dense := f.NewTFL("dense", &ir.TFLOp{Builtin: schema.BuiltinOperatorFULLY_CONNECTED, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{}}},
		[]*ir.Value{reshape.Outputs[0], w, b}, ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{1, Classes}})

	softmax := f.NewTFL("softmax", &ir.TFLOp{Builtin: schema.BuiltinOperatorSOFTMAX, Version: 1,
		Options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSoftmaxOptions, Value: &schema.SoftmaxOptionsT{Beta: 1}}},
		[]*ir.Value{dense.Outputs[0]}, ir.TypeShape{DType: ir.Float32, Shape: ir.Shape{1, Classes}})

	f.Results = []*ir.Value{softmax.Outputs[0]}
	f.ResultNames = []string{"probabilities"}
	return convert.WriteFunction(f, convert.Signature{Key: "serving_default", InputNames: []string{"input"}, OutputNames: []string{"probabilities"}}, description)
}
