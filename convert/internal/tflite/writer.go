// Package tflite writes a converted function as a TensorFlow Lite
// flatbuffer (schema version 3, file identifier "TFL3") with the
// project's schema package: one subgraph, its tensors, operators,
// constant buffers (16-byte aligned, so the interpreter can use them in
// place), a signature def naming the inputs and outputs, and a
// description string.
package tflite

import (
	"encoding/binary"
	"fmt"
	"strconv"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// Signature names the entry point in the written model's signature def.
type Signature struct {
	// Key is the signature key ("serving_default").
	Key string
	// InputNames and OutputNames are the signature's names for the
	// function's parameters and results, in order.
	InputNames, OutputNames []string
}

// bufferAlign is the alignment of constant data in the file.
const bufferAlign = 16

// Build assembles the object-API model for f. Every node must be a TFLite
// operator or a Const (whose output becomes a constant tensor); anything
// else is an error naming the node, its op and function. Every tensor
// shape must be static.
func Build(f *ir.Function, sig Signature, description string) (*schema.ModelT, error) {
	if len(sig.InputNames) != len(f.Params) || len(sig.OutputNames) != len(f.Results) {
		return nil, fmt.Errorf("signature names %d inputs and %d outputs, the function has %d and %d",
			len(sig.InputNames), len(sig.OutputNames), len(f.Params), len(f.Results))
	}
	w := newWriter(description, 3)
	sg, err := w.subgraph(f, "main", nil, nil)
	if err != nil {
		return nil, err
	}
	w.model.Subgraphs = []*schema.SubGraphT{sg}
	sd := &schema.SignatureDefT{SignatureKey: sig.Key}
	for i, name := range sig.InputNames {
		sd.Inputs = append(sd.Inputs, &schema.TensorMapT{Name: name, TensorIndex: uint32(sg.Inputs[i])})
	}
	for i, name := range sig.OutputNames {
		sd.Outputs = append(sd.Outputs, &schema.TensorMapT{Name: name, TensorIndex: uint32(sg.Outputs[i])})
	}
	w.model.SignatureDefs = []*schema.SignatureDefT{sd}
	return w.model, nil
}

func newWriter(description string, version uint32) *writer {
	return &writer{buffers: map[*ir.Tensor]uint32{}, model: &schema.ModelT{
		Version:     version,
		Description: description,
		Buffers:     []*schema.BufferT{{}}, // buffer 0: the empty sentinel
	}, codes: map[opKey]uint32{}}
}

// subgraph writes f as a subgraph named name. extra gives the tensor
// fields the IR does not model (nil: none); subs numbers the subgraphs a
// control-flow operator may name (nil: none may be named).
func (w *writer) subgraph(f *ir.Function, name string, extra map[*ir.Value]*TensorExtra, subs map[*ir.Function]int32) (*schema.SubGraphT, error) {
	if err := f.TopoSort(); err != nil {
		return nil, err
	}
	sg := &schema.SubGraphT{Name: name}
	w.sg, w.index, w.named, w.extra = sg, map[*ir.Value]int32{}, map[int32]bool{}, extra
	for _, p := range f.Params {
		idx, err := w.tensor(p)
		if err != nil {
			return nil, err
		}
		sg.Inputs = append(sg.Inputs, idx)
	}
	for _, n := range f.Nodes {
		if n.TFL == nil {
			if n.Op == "Const" && len(n.Outputs) == 1 && n.Outputs[0].Const != nil {
				continue // constants become tensors with buffers when used
			}
			return nil, n.Errorf("has no TFLite equivalent (not legalised)")
		}
		opts := n.TFL.Options
		fields := SubgraphFields(opts, n.TFL.Options2)
		if len(fields) != len(n.TFL.Subgraphs) && (len(n.TFL.Subgraphs) > 0 || subs != nil) {
			return nil, n.Errorf("names %d subgraphs, its options have %d subgraph fields", len(n.TFL.Subgraphs), len(fields))
		}
		for i, g := range n.TFL.Subgraphs {
			x, ok := subs[g]
			if !ok {
				return nil, n.Errorf("runs function %q, which is not written", g.Name)
			}
			*fields[i] = x
		}
		op := &schema.OperatorT{BuiltinOptions: opts, BuiltinOptions2: n.TFL.Options2, CustomOptions: n.TFL.CustomOptions}
		op.OpcodeIndex = w.opcode(n.TFL)
		for _, in := range n.Inputs {
			if in == nil {
				op.Inputs = append(op.Inputs, -1)
				continue
			}
			idx, err := w.tensor(in)
			if err != nil {
				return nil, n.Wrap(err)
			}
			op.Inputs = append(op.Inputs, idx)
		}
		for _, out := range n.Outputs {
			idx, err := w.tensor(out)
			if err != nil {
				return nil, n.Wrap(err)
			}
			op.Outputs = append(op.Outputs, idx)
		}
		for _, im := range n.TFL.Intermediates {
			idx, err := w.tensor(im)
			if err != nil {
				return nil, n.Wrap(err)
			}
			op.Intermediates = append(op.Intermediates, idx)
		}
		if len(n.TFL.CustomOptions) > 0 {
			op.CustomOptionsFormat = schema.CustomOptionsFormatFLEXBUFFERS
		}
		sg.Operators = append(sg.Operators, op)
	}
	for i, r := range f.Results {
		idx, err := w.tensor(r)
		if err != nil {
			return nil, err
		}
		// An output tensor takes the name the TensorFlow graph gives the
		// fetched tensor ("StatefulPartitionedCall:0"), unless it is also
		// an input or another output.
		if i < len(f.ResultNames) && f.ResultNames[i] != "" && !r.IsParam() && !w.named[idx] {
			sg.Tensors[idx].Name = f.ResultNames[i]
			w.named[idx] = true
		}
		sg.Outputs = append(sg.Outputs, idx)
	}
	return sg, nil
}

// Write builds and serialises f (see Build).
func Write(f *ir.Function, sig Signature, description string) ([]byte, error) {
	m, err := Build(f, sig, description)
	if err != nil {
		return nil, err
	}
	return Pack(m), nil
}

type opKey struct {
	code    schema.BuiltinOperator
	custom  string
	version int32
}

type writer struct {
	model *schema.ModelT
	sg    *schema.SubGraphT
	index map[*ir.Value]int32
	named map[int32]bool
	extra map[*ir.Value]*TensorExtra
	// handles allows resource and variant tensors (a .tflite read in
	// has them: resource variables, Flex TensorLists).
	handles bool
	buffers map[*ir.Tensor]uint32
	codes   map[opKey]uint32
}

func (w *writer) opcode(op *ir.TFLOp) uint32 {
	v := op.Version
	if v < 1 {
		v = 1
	}
	k := opKey{op.Builtin, op.Custom, v}
	if i, ok := w.codes[k]; ok {
		return i
	}
	dep := int8(127) // PLACEHOLDER_FOR_GREATER_OP_CODES
	if op.Builtin < 127 {
		dep = int8(op.Builtin)
	}
	i := uint32(len(w.model.OperatorCodes))
	w.model.OperatorCodes = append(w.model.OperatorCodes, &schema.OperatorCodeT{
		DeprecatedBuiltinCode: dep, BuiltinCode: op.Builtin, CustomCode: op.Custom, Version: v,
	})
	w.codes[k] = i
	return i
}

// tensor returns the index of v's tensor, adding it (and its constant
// buffer) on first use.
func (w *writer) tensor(v *ir.Value) (int32, error) {
	if i, ok := w.index[v]; ok {
		return i, nil
	}
	x := w.extra[v]
	if !v.Shape.Static() {
		return 0, fmt.Errorf("tensor %q has shape %s, which is not static (pin dynamic dimensions with --input_shapes)", v.Name, v.Shape)
	}
	if v.DType == ir.Invalid || !w.handles && (v.DType == ir.Resource || v.DType == ir.Variant) {
		return 0, fmt.Errorf("tensor %q has type %s, which a TFLite tensor cannot hold", v.Name, v.DType)
	}
	if _, ok := v.Shape.NumElements(); !ok {
		return 0, fmt.Errorf("tensor %q has shape %s, more elements than a tensor can hold", v.Name, v.Shape)
	}
	t := &schema.TensorT{Name: v.Name, Type: schema.TensorType(v.DType), IsVariable: v.IsVariableTensor, HasRank: true}
	t.Shape = make([]int32, len(v.Shape))
	for i, d := range v.Shape {
		if d > 1<<31-1 {
			return 0, fmt.Errorf("tensor %q: dimension %d is too large", v.Name, d)
		}
		t.Shape[i] = int32(d)
	}
	if q := v.Quant; q != nil {
		t.Quantization = &schema.QuantizationParametersT{Scale: q.Scale, ZeroPoint: q.ZeroPoint, QuantizedDimension: int32(q.Dim), Min: q.Min, Max: q.Max}
	}
	if x != nil {
		t.ShapeSignature, t.Sparsity, t.VariantTensors = x.ShapeSignature, x.Sparsity, x.VariantTensors
		t.HasRank = !x.NoRank
		if x.Details != nil {
			if t.Quantization == nil {
				t.Quantization = &schema.QuantizationParametersT{}
			}
			t.Quantization.Details = x.Details
		}
	}
	if v.Const != nil {
		data, err := constBytes(v.Const)
		if err != nil {
			return 0, fmt.Errorf("tensor %q: %v", v.Name, err)
		}
		if !v.Const.Shape.Equal(v.Shape) {
			return 0, fmt.Errorf("tensor %q: constant of shape %s on a tensor of shape %s", v.Name, v.Const.Shape, v.Shape)
		}
		// Constants folded from one value (a variable read in several
		// places) share one buffer.
		if b, ok := w.buffers[v.Const]; ok {
			t.Buffer = b
		} else {
			t.Buffer = uint32(len(w.model.Buffers))
			w.model.Buffers = append(w.model.Buffers, &schema.BufferT{Data: data})
			w.buffers[v.Const] = t.Buffer
		}
	}
	i := int32(len(w.sg.Tensors))
	w.sg.Tensors = append(w.sg.Tensors, t)
	w.index[v] = i
	return i, nil
}

// constBytes is the buffer content of a constant: raw little-endian data,
// or for strings TFLite's layout (int32 count, count+1 int32 offsets from
// the buffer start, then the bytes).
func constBytes(t *ir.Tensor) ([]byte, error) {
	if t.DType != ir.String {
		return t.Data, nil
	}
	n := len(t.Strings)
	head := 4 * (n + 2)
	total := head
	for _, s := range t.Strings {
		total += len(s)
	}
	if total > 1<<31-1 {
		return nil, fmt.Errorf("string tensor of %d bytes is too large", total)
	}
	b := make([]byte, total)
	binary.LittleEndian.PutUint32(b, uint32(n))
	off := head
	for i, s := range t.Strings {
		binary.LittleEndian.PutUint32(b[4*(i+1):], uint32(off))
		copy(b[off:], s)
		off += len(s)
	}
	binary.LittleEndian.PutUint32(b[4*(n+1):], uint32(off))
	return b, nil
}

// Pack serialises a model like schema.ModelT.Pack, except that constant
// buffer data is placed on 16-byte boundaries of the file (the generated
// BufferT.Pack aligns only to 4), and finishes it with the "TFL3"
// identifier.
func Pack(m *schema.ModelT) []byte {
	b := flatbuffers.NewBuilder(1 << 16)
	codes := make([]flatbuffers.UOffsetT, len(m.OperatorCodes))
	for i, c := range m.OperatorCodes {
		codes[i] = c.Pack(b)
	}
	codesVec := offsetVector(b, codes)
	subs := make([]flatbuffers.UOffsetT, len(m.Subgraphs))
	for i, s := range m.Subgraphs {
		subs[i] = s.Pack(b)
	}
	subsVec := offsetVector(b, subs)
	desc := b.CreateString(m.Description)
	bufs := make([]flatbuffers.UOffsetT, len(m.Buffers))
	for i, buf := range m.Buffers {
		var data flatbuffers.UOffsetT
		if buf.Data != nil {
			data = alignedBytes(b, buf.Data)
		}
		schema.BufferStart(b)
		if buf.Data != nil {
			schema.BufferAddData(b, data)
		}
		schema.BufferAddOffset(b, buf.Offset)
		schema.BufferAddSize(b, buf.Size)
		bufs[i] = schema.BufferEnd(b)
	}
	bufsVec := offsetVector(b, bufs)
	meta := make([]flatbuffers.UOffsetT, len(m.Metadata))
	for i, md := range m.Metadata {
		meta[i] = md.Pack(b)
	}
	var metaVec flatbuffers.UOffsetT
	if len(m.Metadata) > 0 {
		metaVec = offsetVector(b, meta)
	}
	sigs := make([]flatbuffers.UOffsetT, len(m.SignatureDefs))
	for i, s := range m.SignatureDefs {
		sigs[i] = s.Pack(b)
	}
	var sigsVec flatbuffers.UOffsetT
	if len(m.SignatureDefs) > 0 {
		sigsVec = offsetVector(b, sigs)
	}
	schema.ModelStart(b)
	schema.ModelAddVersion(b, m.Version)
	schema.ModelAddOperatorCodes(b, codesVec)
	schema.ModelAddSubgraphs(b, subsVec)
	schema.ModelAddDescription(b, desc)
	schema.ModelAddBuffers(b, bufsVec)
	if metaVec != 0 {
		schema.ModelAddMetadata(b, metaVec)
	}
	if sigsVec != 0 {
		schema.ModelAddSignatureDefs(b, sigsVec)
	}
	root := schema.ModelEnd(b)
	b.FinishWithFileIdentifier(root, []byte("TFL3"))
	return b.FinishedBytes()
}

func offsetVector(b *flatbuffers.Builder, offs []flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	b.StartVector(4, len(offs), 4)
	for i := len(offs) - 1; i >= 0; i-- {
		b.PrependUOffsetT(offs[i])
	}
	return b.EndVector(len(offs))
}

// alignedBytes writes a byte vector whose first data byte lies on a
// bufferAlign boundary of the finished file (the builder aligns relative
// to the end of the buffer, and Finish pads the total to the largest
// alignment used).
func alignedBytes(b *flatbuffers.Builder, data []byte) flatbuffers.UOffsetT {
	b.StartVector(1, len(data), bufferAlign)
	for i := len(data) - 1; i >= 0; i-- {
		b.PlaceByte(data[i])
	}
	return b.EndVector(len(data))
}

// BuildModel assembles the object-API model of m: the subgraphs still in
// use (subgraph 0, signature entries, those nothing referred to when m
// was read, and every subgraph an operator of a written one runs), in
// m's order, numbered anew; m's signatures, metadata and the tensor
// fields in m.Extra. description replaces m's when not empty. The
// control-flow operators' subgraph indices are set from
// ir.TFLOp.Subgraphs.
func BuildModel(m *Model, description string) (*schema.ModelT, error) {
	if len(m.Subgraphs) == 0 {
		return nil, fmt.Errorf("the model has no subgraphs")
	}
	keep := map[*ir.Function]bool{}
	var stack []*ir.Function
	add := func(f *ir.Function) {
		if !keep[f] {
			keep[f] = true
			stack = append(stack, f)
		}
	}
	for _, f := range m.Subgraphs {
		if m.roots[f] || f == m.Subgraphs[0] {
			add(f)
		}
	}
	for _, s := range m.Signatures {
		add(s.Subgraph)
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, n := range f.Nodes {
			if n.TFL != nil {
				for _, g := range n.TFL.Subgraphs {
					add(g)
				}
			}
		}
	}
	subs := map[*ir.Function]int32{}
	var order []*ir.Function
	for _, f := range m.Subgraphs {
		if keep[f] {
			subs[f] = int32(len(order))
			order = append(order, f)
		}
	}
	for f := range keep {
		if _, ok := subs[f]; !ok {
			return nil, fmt.Errorf("an operator runs %s, which is not a subgraph of the model", f.Where())
		}
	}
	if description == "" {
		description = m.Description
	}
	version := m.Version
	if version == 0 {
		version = 3
	}
	w := newWriter(description, version)
	w.handles = true
	index := map[*ir.Function]map[*ir.Value]int32{}
	for _, f := range order {
		sg, err := w.subgraph(f, subgraphName(f), m.Extra, subs)
		if err != nil {
			return nil, err
		}
		w.model.Subgraphs = append(w.model.Subgraphs, sg)
		index[f] = w.index
	}
	for _, s := range m.Signatures {
		sd := &schema.SignatureDefT{SignatureKey: s.Key, SubgraphIndex: uint32(subs[s.Subgraph])}
		for _, list := range []struct {
			in  []NamedValue
			out *[]*schema.TensorMapT
		}{{s.Inputs, &sd.Inputs}, {s.Outputs, &sd.Outputs}} {
			for _, nv := range list.in {
				idx, ok := index[s.Subgraph][nv.Value]
				if !ok {
					return nil, fmt.Errorf("signature %q: tensor %q of %q is no longer in %s", s.Key, nv.Value.Name, nv.Name, s.Subgraph.Where())
				}
				*list.out = append(*list.out, &schema.TensorMapT{Name: nv.Name, TensorIndex: uint32(idx)})
			}
		}
		w.model.SignatureDefs = append(w.model.SignatureDefs, sd)
	}
	for _, md := range m.Metadata {
		w.model.Metadata = append(w.model.Metadata, &schema.MetadataT{Name: md.Name, Buffer: uint32(len(w.model.Buffers))})
		w.model.Buffers = append(w.model.Buffers, &schema.BufferT{Data: md.Data})
	}
	return w.model, nil
}

// subgraphName is the name a function is written under: its own, unless
// Read named it after its index for want of one.
func subgraphName(f *ir.Function) string {
	if len(f.Name) > len("subgraph") && f.Name[:len("subgraph")] == "subgraph" {
		if _, err := strconv.Atoi(f.Name[len("subgraph"):]); err == nil {
			return ""
		}
	}
	return f.Name
}

// WriteModel builds and serialises m (see BuildModel).
func WriteModel(m *Model, description string) ([]byte, error) {
	mt, err := BuildModel(m, description)
	if err != nil {
		return nil, err
	}
	return Pack(mt), nil
}
