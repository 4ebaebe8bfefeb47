package tflite

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// Model is a .tflite model read into the converter's IR (Read): one
// function per subgraph, every operator a TFLite node (ir.Node.TFL), every
// constant buffer a Const node, and what the IR has no place for kept
// beside it, so that BuildModel writes back an equivalent model.
type Model struct {
	// Version is the schema version (3).
	Version uint32
	// Description is the model's description string.
	Description string
	// Subgraphs are the subgraphs in file order; Subgraphs[0] is the
	// primary one. A control-flow operator names the subgraphs it runs in
	// ir.TFLOp.Subgraphs.
	Subgraphs []*ir.Function
	// Signatures are the signature defs.
	Signatures []SignatureDef
	// Metadata are the model's named metadata buffers (TFLite Metadata,
	// min_runtime_version, ...), written back unchanged.
	Metadata []Metadata
	// Extra keeps the tensor fields the IR does not model, by value.
	Extra map[*ir.Value]*TensorExtra
	// roots are the subgraphs written even when no operator runs them:
	// subgraph 0, signature entries, and subgraphs nothing referred to
	// in the file read.
	roots map[*ir.Function]bool
}

// SignatureDef is one signature of a Model: its key, the subgraph it
// runs, and its named inputs and outputs.
type SignatureDef struct {
	Key      string
	Subgraph *ir.Function
	Inputs   []NamedValue
	Outputs  []NamedValue
}

// NamedValue is a signature's name for a tensor.
type NamedValue struct {
	Name  string
	Value *ir.Value
}

// Metadata is a named metadata buffer.
type Metadata struct {
	Name string
	Data []byte
}

// TensorExtra holds the fields of a TFLite tensor the IR does not model:
// the shape signature (-1 for a dynamic dimension), a tensor of unknown
// rank, sparsity, variant subtypes and custom quantisation details.
type TensorExtra struct {
	ShapeSignature []int32
	NoRank         bool
	Sparsity       *schema.SparsityParametersT
	VariantTensors []*schema.VariantSubTypeT
	Details        *schema.QuantizationDetailsT
}

// SubgraphFields returns pointers to the subgraph-index fields of an
// operator's options, in the order ir.TFLOp.Subgraphs lists them (nil for
// an operator that runs no other subgraph).
func SubgraphFields(opts *schema.BuiltinOptionsT, opts2 *schema.BuiltinOptions2T) []*int32 {
	var out []*int32
	if opts != nil {
		switch v := opts.Value.(type) {
		case *schema.WhileOptionsT:
			out = append(out, &v.CondSubgraphIndex, &v.BodySubgraphIndex)
		case *schema.IfOptionsT:
			out = append(out, &v.ThenSubgraphIndex, &v.ElseSubgraphIndex)
		case *schema.CallOnceOptionsT:
			out = append(out, &v.InitSubgraphIndex)
		}
	}
	if opts2 != nil {
		switch v := opts2.Value.(type) {
		case *schema.StablehloWhileOptionsT:
			out = append(out, &v.CondSubgraphIndex, &v.BodySubgraphIndex)
		case *schema.StableHLOCompositeOptionsT:
			out = append(out, &v.DecompositionSubgraphIndex)
		case *schema.StablehloReduceOptionsT:
			out = append(out, &v.BodySubgraphIndex)
		case *schema.StablehloReduceWindowOptionsT:
			out = append(out, &v.BodySubgraphIndex)
		case *schema.StablehloScatterOptionsT:
			out = append(out, &v.UpdateComputationSubgraphIndex)
		case *schema.StablehloSortOptionsT:
			out = append(out, &v.ComparatorSubgraphIndex)
		}
	}
	return out
}

// Read imports a .tflite flatbuffer. It first checks the model as
// tflrun's interpreter does when loading it (schema.VerifyModel, then
// every index, shape, buffer size and subgraph reference), so a hostile
// file is an error naming what is wrong and where; constants are counted
// against budget (ir.Budget: MaxTensorBytes per tensor, MaxConstantBytes in
// all). Constant data aliases buf, which must not change afterwards.
//
// Builtin options are kept as the schema's object API holds them, custom
// options as their bytes; an options union of a type this schema does
// not know (a newer TFLite) is an error, since it could not be written
// back.
func Read(buf []byte, budget *ir.Budget) (*Model, error) {
	if _, err := interpreter.LoadBytes(buf); err != nil {
		return nil, err
	}
	fm := schema.GetRootAsModel(buf, 0)
	mt := fm.UnPack()
	m := &Model{Version: mt.Version, Description: mt.Description, Extra: map[*ir.Value]*TensorExtra{}, roots: map[*ir.Function]bool{}}
	data := make([][]byte, len(mt.Buffers))
	for i, b := range mt.Buffers {
		data[i] = b.Data
		if b.Offset > 1 {
			// Past the flatbuffer (files over 2 GB): the interpreter's
			// check put the range inside buf.
			data[i] = buf[b.Offset : b.Offset+b.Size]
		}
	}
	r := &reader{m: m, mt: mt, buf: buf, data: data, budget: budget}
	for i := range mt.Subgraphs {
		f := ir.NewFunction("subgraph"+strconv.Itoa(i), nil)
		if n := mt.Subgraphs[i].Name; n != "" {
			f.Name = n
		}
		f.Budget = budget
		m.Subgraphs = append(m.Subgraphs, f)
	}
	referenced := map[*ir.Function]bool{}
	for i, sg := range mt.Subgraphs {
		if err := r.subgraph(m.Subgraphs[i], sg, i, referenced); err != nil {
			return nil, fmt.Errorf("subgraph %d: %w", i, err)
		}
	}
	m.roots[m.Subgraphs[0]] = true
	for _, f := range m.Subgraphs {
		if !referenced[f] {
			m.roots[f] = true
		}
	}
	for i, sd := range mt.SignatureDefs {
		s := int(sd.SubgraphIndex)
		if s >= len(m.Subgraphs) {
			return nil, fmt.Errorf("signature %d (%q) names subgraph %d, out of range", i, sd.SignatureKey, s)
		}
		def := SignatureDef{Key: sd.SignatureKey, Subgraph: m.Subgraphs[s]}
		m.roots[def.Subgraph] = true
		vals := r.values[s]
		for _, tm := range sd.Inputs {
			if int(tm.TensorIndex) >= len(vals) {
				return nil, fmt.Errorf("signature %q: input %q names tensor %d, out of range", sd.SignatureKey, tm.Name, tm.TensorIndex)
			}
			def.Inputs = append(def.Inputs, NamedValue{tm.Name, vals[tm.TensorIndex]})
		}
		for _, tm := range sd.Outputs {
			if int(tm.TensorIndex) >= len(vals) {
				return nil, fmt.Errorf("signature %q: output %q names tensor %d, out of range", sd.SignatureKey, tm.Name, tm.TensorIndex)
			}
			def.Outputs = append(def.Outputs, NamedValue{tm.Name, vals[tm.TensorIndex]})
		}
		m.Signatures = append(m.Signatures, def)
	}
	for i, md := range mt.Metadata {
		if int(md.Buffer) >= len(data) {
			return nil, fmt.Errorf("metadata %d (%q) names buffer %d, out of range (the model has %d)", i, md.Name, md.Buffer, len(data))
		}
		m.Metadata = append(m.Metadata, Metadata{Name: md.Name, Data: data[md.Buffer]})
	}
	return m, nil
}

type reader struct {
	m      *Model
	buf    []byte
	mt     *schema.ModelT
	data   [][]byte
	budget *ir.Budget
	// values[s][t] is tensor t of subgraph s.
	values [][]*ir.Value
	// consts shares one ir.Tensor between the tensors of one buffer with
	// the same type and shape (the writer then shares the buffer too).
	consts map[constKey]*ir.Tensor
}

type constKey struct {
	buffer uint32
	dtype  ir.DType
	shape  string
}

// subgraph imports subgraph index s into f.
func (r *reader) subgraph(f *ir.Function, sg *schema.SubGraphT, s int, referenced map[*ir.Function]bool) error {
	vals := make([]*ir.Value, len(sg.Tensors))
	r.values = append(r.values, vals)
	if r.consts == nil {
		r.consts = map[constKey]*ir.Tensor{}
	}
	for _, t := range sg.Inputs {
		if t < 0 || int(t) >= len(vals) {
			return fmt.Errorf("input names tensor %d, out of range", t)
		}
		if vals[t] != nil {
			return fmt.Errorf("tensor %d (%q) is listed twice as a subgraph input", t, sg.Tensors[t].Name)
		}
		v := r.value(sg.Tensors[t])
		v.Index = len(f.Params)
		f.Params = append(f.Params, v)
		vals[t] = v
	}
	// A tensor's producer, so that constants and free tensors can be told
	// apart from operator outputs.
	produced := make([]bool, len(vals))
	for k, op := range sg.Operators {
		for _, t := range op.Outputs {
			if t < 0 || int(t) >= len(vals) {
				return fmt.Errorf("operator %d: output names tensor %d, out of range", k, t)
			}
			if produced[t] || vals[t] != nil {
				return fmt.Errorf("operator %d: output tensor %d (%q) is also a subgraph input or another operator's output", k, t, sg.Tensors[t].Name)
			}
			produced[t] = true
		}
	}
	get := func(t int32, what string) (*ir.Value, error) {
		if t < 0 {
			return nil, nil
		}
		if int(t) >= len(vals) {
			return nil, fmt.Errorf("%s names tensor %d, out of range (the subgraph has %d)", what, t, len(vals))
		}
		if vals[t] == nil {
			if produced[t] {
				return nil, fmt.Errorf("%s: tensor %d (%q) is used before the operator computing it", what, t, sg.Tensors[t].Name)
			}
			v, err := r.free(f, sg.Tensors[t], t)
			if err != nil {
				return nil, err
			}
			vals[t] = v
		}
		return vals[t], nil
	}
	for k, op := range sg.Operators {
		if int(op.OpcodeIndex) >= len(r.mt.OperatorCodes) {
			return fmt.Errorf("operator %d: opcode index %d out of range", k, op.OpcodeIndex)
		}
		oc := r.mt.OperatorCodes[op.OpcodeIndex]
		code := oc.BuiltinCode
		if int32(oc.DeprecatedBuiltinCode) > int32(code) {
			code = schema.BuiltinOperator(oc.DeprecatedBuiltinCode)
		}
		tfl := &ir.TFLOp{Builtin: code, Custom: oc.CustomCode, Version: oc.Version, Options: op.BuiltinOptions,
			Options2: op.BuiltinOptions2, CustomOptions: op.CustomOptions}
		if code != schema.BuiltinOperatorCUSTOM {
			tfl.Custom = ""
		}
		if op.LargeCustomOptionsOffset > 1 {
			tfl.CustomOptions = r.largeOptions(op)
		}
		if op.BuiltinOptions != nil && op.BuiltinOptions.Value == nil && op.BuiltinOptions.Type != schema.BuiltinOptionsNONE {
			return fmt.Errorf("operator %d (%s): builtin options of type %d, which this schema does not know (a newer TensorFlow Lite), cannot be written back",
				k, opName(tfl), op.BuiltinOptions.Type)
		}
		if op.BuiltinOptions2 != nil && op.BuiltinOptions2.Value == nil && op.BuiltinOptions2.Type != schema.BuiltinOptions2NONE {
			return fmt.Errorf("operator %d (%s): builtin options 2 of type %d, which this schema does not know (a newer TensorFlow Lite), cannot be written back",
				k, opName(tfl), op.BuiltinOptions2.Type)
		}
		for j, p := range SubgraphFields(op.BuiltinOptions, op.BuiltinOptions2) {
			x := int(*p)
			if x < 0 || x >= len(r.m.Subgraphs) || x == s {
				return fmt.Errorf("operator %d (%s): subgraph reference %d is %d, out of range or its own subgraph", k, opName(tfl), j, x)
			}
			tfl.Subgraphs = append(tfl.Subgraphs, r.m.Subgraphs[x])
			referenced[r.m.Subgraphs[x]] = true
		}
		ins := make([]*ir.Value, len(op.Inputs))
		for j, t := range op.Inputs {
			v, err := get(t, fmt.Sprintf("operator %d (%s) input %d", k, opName(tfl), j))
			if err != nil {
				return err
			}
			ins[j] = v
		}
		for j, t := range op.Intermediates {
			v, err := get(t, fmt.Sprintf("operator %d (%s) intermediate %d", k, opName(tfl), j))
			if err != nil {
				return err
			}
			if v == nil {
				return fmt.Errorf("operator %d (%s): intermediate %d is -1", k, opName(tfl), j)
			}
			tfl.Intermediates = append(tfl.Intermediates, v)
		}
		name := opName(tfl)
		if len(op.Outputs) > 0 && op.Outputs[0] >= 0 && sg.Tensors[op.Outputs[0]].Name != "" {
			name = sg.Tensors[op.Outputs[0]].Name
		}
		n := f.NewNode(name, "", ins, 0)
		n.TFL = tfl
		for j, t := range op.Outputs {
			v := r.value(sg.Tensors[t])
			v.Producer, v.Index = n, j
			n.Outputs = append(n.Outputs, v)
			vals[t] = v
		}
	}
	for _, t := range sg.Outputs {
		v, err := get(t, "subgraph output")
		if err != nil {
			return err
		}
		if v == nil {
			return fmt.Errorf("subgraph output is -1")
		}
		f.Results = append(f.Results, v)
		f.ResultNames = append(f.ResultNames, v.Name)
	}
	return nil
}

// largeOptions returns the custom options a file over 2 GB keeps after
// the flatbuffer (the interpreter's load check put the range inside it).
func (r *reader) largeOptions(op *schema.OperatorT) []byte {
	return r.buf[op.LargeCustomOptionsOffset : op.LargeCustomOptionsOffset+op.LargeCustomOptionsSize]
}

// value makes the value of a tensor (no producer yet).
func (r *reader) value(t *schema.TensorT) *ir.Value {
	v := &ir.Value{Name: t.Name, DType: ir.DType(t.Type), Shape: shapeOf(t.Shape), IsVariableTensor: t.IsVariable}
	if q := t.Quantization; q != nil && (len(q.Scale) > 0 || len(q.ZeroPoint) > 0 || len(q.Min) > 0 || len(q.Max) > 0 || q.QuantizedDimension != 0) {
		v.Quant = &ir.Quantization{Scale: q.Scale, ZeroPoint: q.ZeroPoint, Dim: int(q.QuantizedDimension), Min: q.Min, Max: q.Max}
	}
	var x TensorExtra
	keep := false
	if t.ShapeSignature != nil {
		x.ShapeSignature, keep = t.ShapeSignature, true
	}
	if !t.HasRank && len(t.Shape) == 0 {
		x.NoRank, keep = true, true
	}
	if t.Sparsity != nil {
		x.Sparsity, keep = t.Sparsity, true
	}
	if len(t.VariantTensors) > 0 {
		x.VariantTensors, keep = t.VariantTensors, true
	}
	if q := t.Quantization; q != nil && q.Details != nil && q.Details.Type != schema.QuantizationDetailsNONE {
		x.Details, keep = q.Details, true
	}
	if keep {
		r.m.Extra[v] = &x
	}
	return v
}

// free makes a tensor no operator computes and no input supplies: a
// constant (its buffer holds data), or a tensor without data (a variable
// tensor's state, an unused tensor).
func (r *reader) free(f *ir.Function, t *schema.TensorT, index int32) (*ir.Value, error) {
	var data []byte
	if int(t.Buffer) < len(r.data) {
		data = r.data[t.Buffer]
	}
	if t.Buffer == 0 || len(data) == 0 {
		return r.value(t), nil
	}
	dt := ir.DType(t.Type)
	shape := shapeOf(t.Shape)
	key := constKey{t.Buffer, dt, shape.String()}
	c := r.consts[key]
	if c == nil {
		c = &ir.Tensor{DType: dt, Shape: shape, Data: data}
		if dt == ir.String {
			strs, err := readStrings(data)
			if err != nil {
				return nil, fmt.Errorf("tensor %d (%q): %w", index, t.Name, err)
			}
			c = &ir.Tensor{DType: dt, Shape: shape, Strings: strs}
		}
		if err := r.budget.Add(c, func() string {
			return fmt.Sprintf("%s: constant tensor %d (%q) %s%s", f.Where(), index, t.Name, dt, shape)
		}); err != nil {
			return nil, err
		}
		r.consts[key] = c
	}
	n := f.NewNode(t.Name, "Const", nil, 1)
	v := r.value(t)
	v.Producer, v.Const = n, c
	n.Outputs[0] = v
	return v, nil
}

// readStrings splits a TFLite string buffer (int32 count, count+1 int32
// offsets, the bytes); the interpreter's load check validated its layout.
func readStrings(b []byte) ([][]byte, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("string buffer of %d bytes has no count", len(b))
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n < 0 || n > (len(b)-8)/4 {
		return nil, fmt.Errorf("string buffer of %d bytes cannot hold %d strings", len(b), n)
	}
	out := make([][]byte, n)
	for i := range out {
		lo, hi := binary.LittleEndian.Uint32(b[4*(i+1):]), binary.LittleEndian.Uint32(b[4*(i+2):])
		if lo > hi || int64(hi) > int64(len(b)) {
			return nil, fmt.Errorf("string %d spans bytes %d..%d of a %d-byte buffer", i, lo, hi, len(b))
		}
		out[i] = b[lo:hi]
	}
	return out, nil
}

func shapeOf(s []int32) ir.Shape {
	out := make(ir.Shape, len(s))
	for i, d := range s {
		out[i] = int(d)
	}
	return out
}

func opName(op *ir.TFLOp) string {
	if op.Builtin == schema.BuiltinOperatorCUSTOM {
		return op.Custom
	}
	return schema.BuiltinOperatorName(int32(op.Builtin))
}
