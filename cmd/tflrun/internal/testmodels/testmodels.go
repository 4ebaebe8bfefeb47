// Package testmodels builds the small single-operator models the tflrun
// command's tests and measurements run: written by the project itself
// with schema's object API, so no third-party model is needed.
package testmodels

import (
	"encoding/binary"
	"math"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/schema"
)

// op is one operator of a single-subgraph model under construction.
type op struct {
	code    schema.BuiltinOperator
	inputs  []int32
	outputs []int32
	options *schema.BuiltinOptionsT
}

// model is a single-subgraph model under construction.
type model struct {
	tensors []*schema.TensorT
	buffers []*schema.BufferT
	inputs  []int32
	outputs []int32
	ops     []op
}

func newModel() *model {
	return &model{buffers: []*schema.BufferT{{}}} // buffer 0 is the empty one
}

// tensor adds a tensor, with constant data when data is not nil.
func (m *model) tensor(name string, typ schema.TensorType, shape []int32, data []byte, q *schema.QuantizationParametersT) int32 {
	t := &schema.TensorT{Name: name, Type: typ, Shape: shape, Quantization: q}
	if data != nil {
		m.buffers = append(m.buffers, &schema.BufferT{Data: data})
		t.Buffer = uint32(len(m.buffers) - 1)
	}
	m.tensors = append(m.tensors, t)
	return int32(len(m.tensors) - 1)
}

func (m *model) bytes() []byte {
	var codes []*schema.OperatorCodeT
	index := map[schema.BuiltinOperator]uint32{}
	var ops []*schema.OperatorT
	for _, o := range m.ops {
		i, ok := index[o.code]
		if !ok {
			i = uint32(len(codes))
			index[o.code] = i
			dep := int8(127)
			if o.code < 127 {
				dep = int8(o.code)
			}
			codes = append(codes, &schema.OperatorCodeT{BuiltinCode: o.code, DeprecatedBuiltinCode: dep, Version: 1})
		}
		ops = append(ops, &schema.OperatorT{OpcodeIndex: i, Inputs: o.inputs, Outputs: o.outputs, BuiltinOptions: o.options})
	}
	mt := &schema.ModelT{
		Version:       3,
		Description:   "tflrun test model (cmd/tflrun/internal/testmodels)",
		OperatorCodes: codes,
		Subgraphs:     []*schema.SubGraphT{{Tensors: m.tensors, Inputs: m.inputs, Outputs: m.outputs, Operators: ops, Name: "main"}},
		Buffers:       m.buffers,
	}
	b := flatbuffers.NewBuilder(1024)
	b.FinishWithFileIdentifier(mt.Pack(b), []byte(schema.ModelIdentifier))
	return b.FinishedBytes()
}

func int32s(v ...int32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

// Fill is a model without inputs whose one output "filled" is float32
// [n], every element value: FILL of two constants. It is a few hundred
// bytes whatever n is, so it stands for any model whose output is far
// larger than its file.
func Fill(n int32, value float32) []byte {
	m := newModel()
	dims := m.tensor("dims", schema.TensorTypeINT32, []int32{1}, int32s(n), nil)
	v := m.tensor("value", schema.TensorTypeFLOAT32, []int32{}, binary.LittleEndian.AppendUint32(nil, math.Float32bits(value)), nil)
	out := m.tensor("filled", schema.TensorTypeFLOAT32, []int32{n}, nil, nil)
	m.outputs = []int32{out}
	m.ops = []op{{code: schema.BuiltinOperatorFILL, inputs: []int32{dims, v}, outputs: []int32{out}}}
	return m.bytes()
}

// Softmax is a float32 [shape...] → SOFTMAX (beta 1) → float32 model,
// input "logits", output "probabilities".
func Softmax(shape ...int32) []byte {
	m := newModel()
	in := m.tensor("logits", schema.TensorTypeFLOAT32, shape, nil, nil)
	out := m.tensor("probabilities", schema.TensorTypeFLOAT32, shape, nil, nil)
	m.inputs, m.outputs = []int32{in}, []int32{out}
	m.ops = []op{{code: schema.BuiltinOperatorSOFTMAX, inputs: []int32{in}, outputs: []int32{out},
		options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSoftmaxOptions, Value: &schema.SoftmaxOptionsT{Beta: 1}}}}
	return m.bytes()
}

// CastToInt32 is a float32 [shape...] → CAST → int32 model (input "x",
// output "ids"): an integer output that is not a score.
func CastToInt32(shape ...int32) []byte {
	m := newModel()
	in := m.tensor("x", schema.TensorTypeFLOAT32, shape, nil, nil)
	out := m.tensor("ids", schema.TensorTypeINT32, shape, nil, nil)
	m.inputs, m.outputs = []int32{in}, []int32{out}
	m.ops = []op{{code: schema.BuiltinOperatorCAST, inputs: []int32{in}, outputs: []int32{out},
		options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsCastOptions, Value: &schema.CastOptionsT{InDataType: schema.TensorTypeFLOAT32, OutDataType: schema.TensorTypeINT32}}}}
	return m.bytes()
}

// ImageMean is an image model: input "image" of type typ and shape
// [1, h, w, c] (quantised with scale and zeroPoint unless typ is
// float32) → MEAN over axes 1, 2 → output "mean" [1, c] of the same type
// and quantisation: the per-channel mean of what the model was fed.
func ImageMean(typ schema.TensorType, h, w, c int32, scale float32, zeroPoint int64) []byte {
	m := newModel()
	var q *schema.QuantizationParametersT
	if typ != schema.TensorTypeFLOAT32 {
		q = &schema.QuantizationParametersT{Scale: []float32{scale}, ZeroPoint: []int64{zeroPoint}}
	}
	in := m.tensor("image", typ, []int32{1, h, w, c}, nil, q)
	axes := m.tensor("axes", schema.TensorTypeINT32, []int32{2}, int32s(1, 2), nil)
	out := m.tensor("mean", typ, []int32{1, c}, nil, q)
	m.inputs, m.outputs = []int32{in}, []int32{out}
	m.ops = []op{{code: schema.BuiltinOperatorMEAN, inputs: []int32{in, axes}, outputs: []int32{out},
		options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReducerOptions, Value: &schema.ReducerOptionsT{KeepDims: false}}}}
	return m.bytes()
}
