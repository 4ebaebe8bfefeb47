package interpreter

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// schemaVersion is the only TFLite schema version tflrun reads (TFLite's
// TFLITE_SCHEMA_VERSION).
const schemaVersion = 3

// parseModel verifies buf structurally (schema.VerifyModel: every offset,
// vector and string inside the buffer) and semantically (indices in range,
// shapes sane, constant buffers of exactly the size their tensors need,
// every operator input defined before use), and builds the Model. Every
// error says what is wrong and where (subgraph, tensor, operator index).
func parseModel(buf []byte) (*Model, error) {
	if err := schema.VerifyModel(buf); err != nil {
		return nil, fmt.Errorf("malformed model: %w", err)
	}
	fm := schema.GetRootAsModel(buf, 0)
	m := &Model{data: buf, Size: len(buf), Version: fm.Version(), Description: string(fm.Description())}
	if m.Version != schemaVersion {
		return nil, fmt.Errorf("model schema version is %d, tflrun reads version %d", m.Version, schemaVersion)
	}

	buffers, total, err := readBuffers(fm, buf)
	if err != nil {
		return nil, err
	}
	m.BufferBytes = total

	opcodes := make([]OperatorInfo, fm.OperatorCodesLength()) // template per opcode
	var oc schema.OperatorCode
	for i := range opcodes {
		fm.OperatorCodes(&oc, i)
		code := schema.EffectiveBuiltinCode(&oc)
		o := &opcodes[i]
		o.Op = ops.BuiltinOperator(code)
		o.Version = int(oc.Version())
		if o.Version < 1 {
			o.Version = 1
		}
		if o.Op == ops.BuiltinCustom {
			o.Custom = string(oc.CustomCode())
			o.Name = o.Custom
			if o.Name == "" {
				return nil, fmt.Errorf("operator code %d: custom operator without a custom_code", i)
			}
		} else {
			o.Name = schema.BuiltinOperatorName(int32(code))
		}
	}

	if fm.SubgraphsLength() == 0 {
		return nil, fmt.Errorf("model has no subgraphs")
	}
	m.Subgraphs = make([]SubgraphInfo, fm.SubgraphsLength())
	var fsg schema.SubGraph
	for s := range m.Subgraphs {
		fm.Subgraphs(&fsg, s)
		if err := parseSubgraph(&m.Subgraphs[s], &fsg, buffers, opcodes); err != nil {
			return nil, fmt.Errorf("subgraph %d: %w", s, err)
		}
	}

	var md schema.Metadata
	for i := 0; i < fm.MetadataLength(); i++ {
		fm.Metadata(&md, i)
		b := index32(md.Buffer())
		if b >= len(buffers) {
			return nil, fmt.Errorf("metadata %d (%q): buffer %d out of range (the model has %d buffers)", i, md.Name(), b, len(buffers))
		}
		m.Metadata = append(m.Metadata, MetadataInfo{Name: string(md.Name()), Data: buffers[b]})
	}

	var sd schema.SignatureDef
	var tm schema.TensorMap
	for i := 0; i < fm.SignatureDefsLength(); i++ {
		fm.SignatureDefs(&sd, i)
		sig := SignatureInfo{Key: string(sd.SignatureKey()), Subgraph: index32(sd.SubgraphIndex())}
		if sig.Subgraph >= len(m.Subgraphs) {
			return nil, fmt.Errorf("signature %d (%q): subgraph %d out of range (the model has %d)", i, sig.Key, sig.Subgraph, len(m.Subgraphs))
		}
		nt := len(m.Subgraphs[sig.Subgraph].Tensors)
		for _, dir := range []struct {
			n    int
			get  func(*schema.TensorMap, int) bool
			dst  *[]SignatureTensor
			what string
		}{
			{sd.InputsLength(), sd.Inputs, &sig.Inputs, "input"},
			{sd.OutputsLength(), sd.Outputs, &sig.Outputs, "output"},
		} {
			for j := 0; j < dir.n; j++ {
				dir.get(&tm, j)
				st := SignatureTensor{Name: string(tm.Name()), Tensor: index32(tm.TensorIndex())}
				if st.Tensor >= nt {
					return nil, fmt.Errorf("signature %q %s %d (%q): tensor %d out of range (subgraph %d has %d tensors)", sig.Key, dir.what, j, st.Name, st.Tensor, sig.Subgraph, nt)
				}
				*dir.dst = append(*dir.dst, st)
			}
		}
		m.Signatures = append(m.Signatures, sig)
	}
	return m, nil
}

// readBuffers returns each buffer's bytes (a view of buf; nil when empty)
// and their total size. A buffer stored outside the flatbuffer (offset and
// size fields, for models over 2 GB) must lie inside the file.
func readBuffers(fm *schema.Model, buf []byte) ([][]byte, int64, error) {
	out := make([][]byte, fm.BuffersLength())
	var fb schema.Buffer
	var total int64
	for i := range out {
		fm.Buffers(&fb, i)
		if off, size := fb.Offset(), fb.Size(); off > 1 {
			if off > uint64(len(buf)) || size > uint64(len(buf))-off {
				return nil, 0, fmt.Errorf("buffer %d: %d bytes at offset %d lie outside the %d-byte file", i, size, off, len(buf))
			}
			if size > 0 {
				out[i] = buf[off : off+size : off+size]
			}
		} else if d := fb.DataBytes(); len(d) > 0 {
			out[i] = d[:len(d):len(d)]
		}
		total += int64(len(out[i]))
	}
	return out, total, nil
}

func intList(n int, get func(int) int32) []int {
	l := make([]int, n)
	for i := range l {
		l[i] = int(get(i))
	}
	return l
}

func parseSubgraph(sg *SubgraphInfo, fsg *schema.SubGraph, buffers [][]byte, opcodes []OperatorInfo) error {
	sg.Name = string(fsg.Name())
	sg.Tensors = make([]TensorInfo, fsg.TensorsLength())
	var ft schema.Tensor
	for i := range sg.Tensors {
		fsg.Tensors(&ft, i)
		if err := parseTensor(&sg.Tensors[i], i, &ft, buffers); err != nil {
			return fmt.Errorf("tensor %d: %w", i, err)
		}
	}
	nt := len(sg.Tensors)
	sg.Inputs = intList(fsg.InputsLength(), fsg.Inputs)
	sg.Outputs = intList(fsg.OutputsLength(), fsg.Outputs)
	for k, x := range sg.Inputs {
		if x < 0 || x >= nt {
			return fmt.Errorf("input %d: tensor %d out of range (the subgraph has %d tensors)", k, x, nt)
		}
	}
	for k, x := range sg.Outputs {
		if x < 0 || x >= nt {
			return fmt.Errorf("output %d: tensor %d out of range (the subgraph has %d tensors)", k, x, nt)
		}
	}

	defined := make([]bool, nt)
	for _, x := range sg.Inputs {
		defined[x] = true
	}
	for i := range sg.Tensors {
		if sg.Tensors[i].IsConst() || sg.Tensors[i].IsVariable {
			defined[i] = true
		}
	}

	sg.Operators = make([]OperatorInfo, fsg.OperatorsLength())
	var fo schema.Operator
	for k := range sg.Operators {
		fsg.Operators(&fo, k)
		op := &sg.Operators[k]
		if err := parseOperator(op, k, &fo, sg.Tensors, opcodes); err != nil {
			return fmt.Errorf("operator %d: %w", k, err)
		}
		for j, x := range op.Inputs {
			if x >= 0 && !defined[x] {
				return fmt.Errorf("operator %d (%s): input %d (tensor %d %q) is read before anything produces it", k, op.Name, j, x, sg.Tensors[x].Name)
			}
		}
		for j, x := range op.Outputs {
			if sg.Tensors[x].IsConst() {
				return fmt.Errorf("operator %d (%s): output %d (tensor %d %q) is a constant", k, op.Name, j, x, sg.Tensors[x].Name)
			}
			defined[x] = true
		}
	}
	for k, x := range sg.Outputs {
		if !defined[x] {
			return fmt.Errorf("output %d (tensor %d %q) is never produced", k, x, sg.Tensors[x].Name)
		}
	}
	return nil
}

func parseTensor(t *TensorInfo, index int, ft *schema.Tensor, buffers [][]byte) error {
	t.Index = index
	t.Name = string(ft.Name())
	t.Type = ops.DataType(ft.Type())
	if !t.Type.Known() {
		return fmt.Errorf("%q: unknown tensor type %d", t.Name, int(ft.Type()))
	}
	t.IsVariable = ft.IsVariable()
	t.Shape = intList(ft.ShapeLength(), ft.Shape)
	n, err := ops.ShapeElements(t.Shape, t.Type.Size())
	if err != nil {
		return fmt.Errorf("%q: %w", t.Name, err)
	}
	if ft.ShapeSignatureLength() > 0 {
		t.Signature = intList(ft.ShapeSignatureLength(), ft.ShapeSignature)
		if len(t.Signature) != len(t.Shape) {
			return fmt.Errorf("%q: shape_signature %v has rank %d, shape %v has rank %d", t.Name, t.Signature, len(t.Signature), t.Shape, len(t.Shape))
		}
		for d, s := range t.Signature {
			if s < -1 || (s != -1 && s != t.Shape[d]) {
				return fmt.Errorf("%q: shape_signature %v does not match shape %v at dimension %d", t.Name, t.Signature, t.Shape, d)
			}
		}
	}
	if err := parseQuantization(t, ft); err != nil {
		return fmt.Errorf("%q: %w", t.Name, err)
	}

	t.Buffer = index32(ft.Buffer())
	if t.Buffer >= len(buffers) {
		return fmt.Errorf("%q: buffer %d out of range (the model has %d buffers)", t.Name, t.Buffer, len(buffers))
	}
	data := buffers[t.Buffer]
	if data == nil {
		return nil
	}
	if t.IsVariable {
		// TFLite ignores a variable's buffer (state starts reset); a
		// variable must not also be a constant here.
		return nil
	}
	if sp := ft.Sparsity(nil); sp != nil {
		// A sparse constant becomes the dense constant it stands for.
		var err error
		if data, err = densifyConstant(t, sp, data); err != nil {
			return fmt.Errorf("%q: %w", t.Name, err)
		}
	}
	switch {
	case t.Type == ops.String:
		if err := checkStringBuffer(data, n); err != nil {
			return fmt.Errorf("%q: %w", t.Name, err)
		}
	case t.Type == ops.Int4:
		if want := (n + 1) / 2; len(data) != want {
			return fmt.Errorf("%q: constant buffer %d has %d bytes, %d packed int4 elements need %d", t.Name, t.Buffer, len(data), n, want)
		}
	case t.Type.Size() == 0:
		return fmt.Errorf("%q: constant tensors of type %s are not supported", t.Name, t.Type)
	default:
		if want := n * t.Type.Size(); len(data) != want {
			return fmt.Errorf("%q: constant buffer %d has %d bytes, shape %v of %s needs %d", t.Name, t.Buffer, len(data), t.Shape, t.Type, want)
		}
	}
	if sz := t.Type.Size(); sz > 1 && uintptr(unsafe.Pointer(unsafe.SliceData(data)))%uintptr(sz) != 0 {
		// Misaligned in the file: typed views need natural alignment
		// (32-bit ARM faults otherwise), so copy once.
		data = append(alignedBytes(len(data))[:0], data...)
	}
	t.data = data
	return nil
}

// parseQuantization reads TFLite's QuantizationParameters. As in TFLite,
// an empty scale means "not quantised", and scale and zero_point must
// have the same length. TFLite also rejects a quantized_dimension outside
// the tensor's rank; tflrun accepts that case, as TFLite Micro does (for a
// single scale the dimension is unused; per-channel readers check it).
func parseQuantization(t *TensorInfo, ft *schema.Tensor) error {
	var fq schema.QuantizationParameters
	q := ft.Quantization(&fq)
	if q == nil || q.ScaleLength() == 0 {
		return nil
	}
	ns, nz := q.ScaleLength(), q.ZeroPointLength()
	if nz != ns {
		return fmt.Errorf("quantization has %d scales and %d zero points", ns, nz)
	}
	qd := int(q.QuantizedDimension())
	if ns > 1 {
		if qd < 0 {
			return fmt.Errorf("quantized_dimension %d is negative", qd)
		}
		// A dimension outside the rank is accepted too, as TFLite Micro
		// does: person_detect's 1-D conv biases carry per-channel scales
		// with quantized_dimension 3. Kernels that read per-channel
		// parameters check the dimension themselves.
		if qd < len(t.Shape) && t.Shape[qd] != ns {
			return fmt.Errorf("%d per-channel scales for dimension %d of size %d", ns, qd, t.Shape[qd])
		}
	}
	p := &ops.Quantization{Scale: make([]float32, ns), ZeroPoint: make([]int64, ns), QuantizedDimension: qd}
	for i := 0; i < ns; i++ {
		p.Scale[i] = q.Scale(i)
		p.ZeroPoint[i] = q.ZeroPoint(i)
	}
	t.Quant = p
	return nil
}

// checkStringBuffer validates TFLite's string tensor layout: int32 count
// N, N+1 int32 offsets (the first just past the offset table, each not
// below the previous, the last equal to the buffer length), then the
// bytes. N must equal the tensor's element count.
func checkStringBuffer(b []byte, n int) error {
	if len(b) < 4 {
		return fmt.Errorf("string buffer of %d bytes has no count", len(b))
	}
	count := int64(int32(binary.LittleEndian.Uint32(b)))
	if count != int64(n) {
		return fmt.Errorf("string buffer holds %d strings, the shape needs %d", count, n)
	}
	header := (count + 2) * 4
	if header > int64(len(b)) {
		return fmt.Errorf("string buffer of %d bytes is too short for %d offsets", len(b), count+1)
	}
	prev := header
	for i := int64(0); i <= count; i++ {
		off := int64(int32(binary.LittleEndian.Uint32(b[4+4*i:])))
		if i == 0 && off != header {
			return fmt.Errorf("string 0 starts at %d, expected %d", off, header)
		}
		if off < prev || off > int64(len(b)) {
			return fmt.Errorf("string offset %d (%d) is out of order or past the %d-byte buffer", i, off, len(b))
		}
		prev = off
	}
	if prev != int64(len(b)) {
		return fmt.Errorf("strings end at %d, the buffer has %d bytes", prev, len(b))
	}
	return nil
}

func parseOperator(op *OperatorInfo, k int, fo *schema.Operator, tensors []TensorInfo, opcodes []OperatorInfo) error {
	oi := index32(fo.OpcodeIndex())
	if oi >= len(opcodes) {
		return fmt.Errorf("opcode index %d out of range (the model has %d operator codes)", oi, len(opcodes))
	}
	*op = opcodes[oi]
	op.Index = k
	op.Inputs = intList(fo.InputsLength(), fo.Inputs)
	op.Outputs = intList(fo.OutputsLength(), fo.Outputs)
	op.Intermediates = intList(fo.IntermediatesLength(), fo.Intermediates)
	nt := len(tensors)
	for j, x := range op.Inputs {
		if x < -1 || x >= nt {
			return fmt.Errorf("%s: input %d: tensor %d out of range (the subgraph has %d tensors)", op.Name, j, x, nt)
		}
	}
	for j, x := range op.Outputs {
		if x < 0 || x >= nt {
			return fmt.Errorf("%s: output %d: tensor %d out of range (the subgraph has %d tensors)", op.Name, j, x, nt)
		}
	}
	for j, x := range op.Intermediates {
		if x < 0 || x >= nt {
			return fmt.Errorf("%s: intermediate %d: tensor %d out of range (the subgraph has %d tensors)", op.Name, j, x, nt)
		}
	}
	if b := fo.CustomOptionsBytes(); len(b) > 0 {
		op.CustomOptions = b[:len(b):len(b)]
	}
	if t := fo.BuiltinOptionsType(); t != schema.BuiltinOptionsNONE {
		op.OptionsType = schema.EnumNamesBuiltinOptions[t]
		var tbl flatbuffers.Table
		if fo.BuiltinOptions(&tbl) {
			opts, err := optionsDecoders().DecodeOptions(ops.OptionsTable{Type: uint8(t), Bytes: tbl.Bytes, Pos: uint32(tbl.Pos)})
			if err != nil {
				return fmt.Errorf("%s: %s: %w", op.Name, op.OptionsType, err)
			}
			op.Options = opts
		}
	}
	return nil
}
