// Package optest builds small single-operator .tflite models and checks
// tflrun's outputs on them against TensorFlow Lite's, recorded once as
// golden cases under a testdata folder.
//
// The models are the project's own (seeded weights written by Builder), so
// they and the recorded outputs may be committed. A case folder holds
//
//	case.json      {"model": "model.tflite", "exact": true|false, "atol": A, "rtol": R}
//	input_<i>.npy  one per model input, in subgraph input order
//	output_<j>.npy TensorFlow Lite's output j for those inputs
//
// with "model" relative to the case folder (cases of one model usually
// share it: "../model.tflite"). Check runs every case below a folder
// through the interpreter; Record (used by the generators, never by tests)
// computes the outputs with a native TensorFlow Lite runner that has the
// interface of ../shared/tools/tflite_ref.md, found through the
// TFLITE_REF environment variable.
//
// Integer outputs must match bit for bit; float outputs within atol +
// rtol·max|want| (the project's defaults 1e-5 and 1e-5, as tflite_compare).
package optest

import (
	"encoding/binary"
	"fmt"
	"math"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/schema"
)

// Builder assembles a model (one subgraph unless AddSubgraph is used) with the schema's object API. The
// zero value is not usable; call NewBuilder. Methods return tensor indices
// for wiring operators.
type Builder struct {
	m   *schema.ModelT
	sg  *schema.SubGraphT
	ops map[string]uint32 // opcode key → index into OperatorCodes
}

// NewBuilder returns an empty model with buffer 0 (the schema's empty
// sentinel buffer) and one subgraph.
func NewBuilder() *Builder {
	sg := &schema.SubGraphT{Name: "main"}
	return &Builder{
		m: &schema.ModelT{
			Version:     3,
			Description: "tflrun optest model",
			Buffers:     []*schema.BufferT{{}},
			Subgraphs:   []*schema.SubGraphT{sg},
		},
		sg:  sg,
		ops: map[string]uint32{},
	}
}

// AddSubgraph appends an empty subgraph (for the bodies of WHILE, IF)
// and makes it the one Tensor, Const, Op, Inputs and Outputs build; it
// returns its index. Tensor indices are per subgraph.
func (b *Builder) AddSubgraph(name string) int32 {
	b.sg = &schema.SubGraphT{Name: name}
	b.m.Subgraphs = append(b.m.Subgraphs, b.sg)
	return int32(len(b.m.Subgraphs) - 1)
}

// UseSubgraph makes subgraph i (0 is the entry) the one the other
// methods build.
func (b *Builder) UseSubgraph(i int32) { b.sg = b.m.Subgraphs[i] }

// Quant is the quantisation of a tensor: one scale and zero point per
// tensor, or per channel of dimension Dim when there are several; or,
// with Blockwise set (and no scales), TFLite's BlockwiseQuantization
// details naming the tensors of the block scales and zero points.
type Quant struct {
	Scale     []float32
	ZeroPoint []int64
	Dim       int32
	Blockwise *schema.BlockwiseQuantizationT
}

// PerTensor returns a per-tensor quantisation.
func PerTensor(scale float32, zeroPoint int64) *Quant {
	return &Quant{Scale: []float32{scale}, ZeroPoint: []int64{zeroPoint}}
}

func (q *Quant) schema() *schema.QuantizationParametersT {
	if q == nil {
		return nil
	}
	p := &schema.QuantizationParametersT{Scale: q.Scale, ZeroPoint: q.ZeroPoint, QuantizedDimension: q.Dim}
	if q.Blockwise != nil {
		p.Details = &schema.QuantizationDetailsT{Type: schema.QuantizationDetailsBlockwiseQuantization, Value: q.Blockwise}
	}
	return p
}

// Tensor adds an activation tensor (no data) and returns its index.
func (b *Builder) Tensor(name string, typ schema.TensorType, shape []int32, q *Quant) int32 {
	b.sg.Tensors = append(b.sg.Tensors, &schema.TensorT{Name: name, Type: typ, Shape: shape, Quantization: q.schema()})
	return int32(len(b.sg.Tensors) - 1)
}

// Const adds a constant tensor holding data (little-endian bytes of
// exactly the shape's size) and returns its index.
func (b *Builder) Const(name string, typ schema.TensorType, shape []int32, q *Quant, data []byte) int32 {
	b.m.Buffers = append(b.m.Buffers, &schema.BufferT{Data: data})
	b.sg.Tensors = append(b.sg.Tensors, &schema.TensorT{Name: name, Type: typ, Shape: shape, Quantization: q.schema(),
		Buffer: uint32(len(b.m.Buffers) - 1)})
	return int32(len(b.sg.Tensors) - 1)
}

// SetSignature sets a tensor's shape_signature (-1 marks a dimension that
// may be resized).
func (b *Builder) SetSignature(t int32, sig []int32) { b.sg.Tensors[t].ShapeSignature = sig }

// Inputs sets the subgraph's inputs.
func (b *Builder) Inputs(ts ...int32) { b.sg.Inputs = ts }

// Outputs sets the subgraph's outputs.
func (b *Builder) Outputs(ts ...int32) { b.sg.Outputs = ts }

func (b *Builder) opcode(code schema.BuiltinOperator, custom string, version int32) uint32 {
	key := fmt.Sprintf("%d/%s/%d", code, custom, version)
	if i, ok := b.ops[key]; ok {
		return i
	}
	deprecated := int8(127) // PLACEHOLDER_FOR_GREATER_OP_CODES
	if code < 127 {
		deprecated = int8(code)
	}
	b.m.OperatorCodes = append(b.m.OperatorCodes, &schema.OperatorCodeT{
		DeprecatedBuiltinCode: deprecated, BuiltinCode: code, CustomCode: custom, Version: version})
	i := uint32(len(b.m.OperatorCodes) - 1)
	b.ops[key] = i
	return i
}

// Op appends a builtin operator (version ≥ 1) with its options table (nil
// for none); -1 in inputs is an omitted optional input.
func (b *Builder) Op(code schema.BuiltinOperator, version int32, inputs, outputs []int32, opts *schema.BuiltinOptionsT) {
	b.sg.Operators = append(b.sg.Operators, &schema.OperatorT{
		OpcodeIndex: b.opcode(code, "", version), Inputs: inputs, Outputs: outputs, BuiltinOptions: opts})
}

// Op2 appends a builtin operator whose options live in the schema's second
// options union (BuiltinOptions2, the StableHLO-era operators).
func (b *Builder) Op2(code schema.BuiltinOperator, version int32, inputs, outputs []int32, opts *schema.BuiltinOptions2T) {
	b.sg.Operators = append(b.sg.Operators, &schema.OperatorT{
		OpcodeIndex: b.opcode(code, "", version), Inputs: inputs, Outputs: outputs, BuiltinOptions2: opts})
}

// Custom appends a custom operator with its raw custom_options bytes
// (usually a FlexBuffer map).
func (b *Builder) Custom(name string, inputs, outputs []int32, customOptions []byte) {
	b.sg.Operators = append(b.sg.Operators, &schema.OperatorT{
		OpcodeIndex: b.opcode(schema.BuiltinOperatorCUSTOM, name, 1), Inputs: inputs, Outputs: outputs,
		CustomOptions: customOptions, CustomOptionsFormat: schema.CustomOptionsFormatFLEXBUFFERS})
}

// Model returns the model description, for tests that edit it into a
// hostile variant before packing.
func (b *Builder) Model() *schema.ModelT { return b.m }

// Bytes packs the model into a .tflite flatbuffer with the "TFL3"
// identifier.
func (b *Builder) Bytes() []byte { return Pack(b.m) }

// Pack serialises a model description with the "TFL3" identifier.
func Pack(m *schema.ModelT) []byte {
	fb := flatbuffers.NewBuilder(1024)
	fb.FinishWithFileIdentifier(m.Pack(fb), []byte("TFL3"))
	return fb.FinishedBytes()
}

// F32 returns the little-endian bytes of v.
func F32(v ...float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// I32 returns the little-endian bytes of v.
func I32(v ...int32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return out
}

// I64 returns the little-endian bytes of v.
func I64(v ...int64) []byte {
	out := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(out[8*i:], uint64(x))
	}
	return out
}

// I16 returns the little-endian bytes of v.
func I16(v ...int16) []byte {
	out := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(out[2*i:], uint16(x))
	}
	return out
}

// I8 returns the bytes of v.
func I8(v ...int8) []byte {
	out := make([]byte, len(v))
	for i, x := range v {
		out[i] = byte(x)
	}
	return out
}

// NewSubgraph appends an empty subgraph called name and makes it the one
// Tensor, Const, Op, Inputs and Outputs build from now on; it returns the
// subgraph's index.
func (b *Builder) NewSubgraph(name string) int {
	b.sg = &schema.SubGraphT{Name: name}
	b.m.Subgraphs = append(b.m.Subgraphs, b.sg)
	return len(b.m.Subgraphs) - 1
}

// SigTensor is one name of a SignatureDef and the tensor it maps to.
type SigTensor struct {
	Name   string
	Tensor int32
}

// Signature adds a SignatureDef with the given key for subgraph sg,
// mapping the names in inputs and outputs (in that order) to tensors of
// that subgraph.
func (b *Builder) Signature(key string, sg int, inputs, outputs []SigTensor) {
	maps := func(l []SigTensor) []*schema.TensorMapT {
		out := make([]*schema.TensorMapT, len(l))
		for i, s := range l {
			out[i] = &schema.TensorMapT{Name: s.Name, TensorIndex: uint32(s.Tensor)}
		}
		return out
	}
	b.m.SignatureDefs = append(b.m.SignatureDefs, &schema.SignatureDefT{
		SignatureKey: key, SubgraphIndex: uint32(sg), Inputs: maps(inputs), Outputs: maps(outputs),
	})
}
