package interpreter

import (
	"encoding/binary"
	"errors"
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
	pb := newParseBudget(len(buf))
	desc, err := pb.str(fm.Description(), "description bytes")
	if err != nil {
		return nil, err
	}
	m := &Model{data: buf, Size: len(buf), Version: fm.Version(), Description: desc}
	if m.Version != schemaVersion {
		return nil, fmt.Errorf("model schema version is %d, tflrun reads version %d", m.Version, schemaVersion)
	}

	buffers, total, err := readBuffers(fm, buf, pb)
	if err != nil {
		return nil, err
	}
	m.BufferBytes = total

	if err := pb.take(fm.OperatorCodesLength(), unsafe.Sizeof(OperatorInfo{}), "operator codes"); err != nil {
		return nil, err
	}
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
			if o.Custom, err = pb.str(oc.CustomCode(), "custom code bytes"); err != nil {
				return nil, fmt.Errorf("operator code %d: %w", i, err)
			}
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
	if err := pb.take(fm.SubgraphsLength(), unsafe.Sizeof(SubgraphInfo{}), "subgraphs"); err != nil {
		return nil, err
	}
	m.Subgraphs = make([]SubgraphInfo, fm.SubgraphsLength())
	var fsg schema.SubGraph
	for s := range m.Subgraphs {
		fm.Subgraphs(&fsg, s)
		if err := parseSubgraph(&m.Subgraphs[s], &fsg, buffers, opcodes, pb); err != nil {
			return nil, fmt.Errorf("subgraph %d: %w", s, err)
		}
	}
	if err := checkSubgraphRefs(m.Subgraphs); err != nil {
		return nil, err
	}

	var md schema.Metadata
	for i := 0; i < fm.MetadataLength(); i++ {
		fm.Metadata(&md, i)
		b := index32(md.Buffer())
		if b >= len(buffers) {
			return nil, fmt.Errorf("metadata %d (%q): buffer %d out of range (the model has %d buffers)", i, md.Name(), b, len(buffers))
		}
		name, err := pb.str(md.Name(), "metadata name bytes")
		if err == nil {
			err = pb.take(1, unsafe.Sizeof(MetadataInfo{}), "metadata entries")
		}
		if err != nil {
			return nil, fmt.Errorf("metadata %d: %w", i, err)
		}
		m.Metadata = append(m.Metadata, MetadataInfo{Name: name, Data: buffers[b]})
	}

	var sd schema.SignatureDef
	var tm schema.TensorMap
	for i := 0; i < fm.SignatureDefsLength(); i++ {
		fm.SignatureDefs(&sd, i)
		key, err := pb.str(sd.SignatureKey(), "signature key bytes")
		if err == nil {
			err = pb.take(1, unsafe.Sizeof(SignatureInfo{}), "signatures")
		}
		if err != nil {
			return nil, fmt.Errorf("signature %d: %w", i, err)
		}
		sig := SignatureInfo{Key: key, Subgraph: index32(sd.SubgraphIndex())}
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
				name, err := pb.str(tm.Name(), "signature name bytes")
				if err == nil {
					err = pb.take(1, unsafe.Sizeof(SignatureTensor{}), "signature tensors")
				}
				if err != nil {
					return nil, fmt.Errorf("signature %q %s %d: %w", sig.Key, dir.what, j, err)
				}
				st := SignatureTensor{Name: name, Tensor: index32(tm.TensorIndex())}
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
func readBuffers(fm *schema.Model, buf []byte, pb *parseBudget) ([][]byte, int64, error) {
	if err := pb.take(fm.BuffersLength(), unsafe.Sizeof([]byte(nil)), "buffers"); err != nil {
		return nil, 0, err
	}
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

// parseBudget bounds the memory parseModel allocates for the Model's
// description of the file (tensor and operator lists, index lists,
// names, quantisation): a flatbuffer may reference one table, vector or
// string from many places, so a small file could otherwise describe
// millions of operators sharing one input list (990 000 operators in 4 MB
// took 539 MB before this bound). Every allocation is charged before it
// is made; the bound is parseBytesPerFileByte bytes per byte of the file
// plus parseSlackBytes, and never more than DefaultMaxArenaBytes. Real
// models need well under a tenth of it (their structures are not shared).
type parseBudget struct {
	left  int64
	limit int64
	// slab is the unused tail of the current block that index lists are
	// cut from (one allocation per parseSlab ints, not one per list).
	slab []int
}

const (
	// parseBytesPerFileByte and parseSlackBytes set the parse budget: a
	// model may take 32 bytes of description per byte of file, plus 1 MiB.
	// The densest of 415 real models (tiny operators, no weights) take 3.6.
	parseBytesPerFileByte = 32
	parseSlackBytes       = 1 << 20
	parseSlab             = 1024
	// optionsCost is charged per decoded builtin options table: every
	// options struct is a few scalars, with vectors bounded by their
	// decoders (a RESHAPE new_shape has at most 8 entries).
	optionsCost = 256
)

func newParseBudget(fileBytes int) *parseBudget {
	limit := int64(fileBytes)*parseBytesPerFileByte + parseSlackBytes
	if limit > DefaultMaxArenaBytes {
		limit = DefaultMaxArenaBytes
	}
	return &parseBudget{left: limit, limit: limit}
}

// take charges n units of size bytes each.
func (pb *parseBudget) take(n int, size uintptr, what string) error {
	cost := int64(n) * int64(size)
	if n < 0 || (size != 0 && cost/int64(size) != int64(n)) || cost > pb.left {
		return fmt.Errorf("describing %d %s needs more memory than a %d-byte file may take (at most %d bytes while loading; the file shares its structures that many times)", n, what, (pb.limit-parseSlackBytes)/parseBytesPerFileByte, pb.limit)
	}
	pb.left -= cost
	return nil
}

// ints returns the n values of a flatbuffer int vector as []int.
func (pb *parseBudget) ints(n int, get func(int) int32, what string) ([]int, error) {
	if n == 0 {
		return []int{}, nil
	}
	if err := pb.take(n, unsafe.Sizeof(int(0)), what); err != nil {
		return nil, err
	}
	var l []int
	if n > parseSlab/4 {
		l = make([]int, n)
	} else {
		if len(pb.slab) < n {
			pb.slab = make([]int, parseSlab)
		}
		l, pb.slab = pb.slab[:n:n], pb.slab[n:]
	}
	for i := range l {
		l[i] = int(get(i))
	}
	return l, nil
}

// str copies a flatbuffer string.
func (pb *parseBudget) str(b []byte, what string) (string, error) {
	if err := pb.take(len(b), 1, what); err != nil {
		return "", err
	}
	return string(b), nil
}

// Producers of a tensor, as parseSubgraph records them: an operator's
// index (≥ 0) or one of these.
const (
	noProducer       = -1
	producedAsInput  = -2 // a graph input, written by the caller
	producedConstant = -3 // constant data in the model
	producedVariable = -4 // a variable, reset by AllocateTensors
)

// producerName describes producer p of a tensor for messages.
func producerName(p int, ops []OperatorInfo) string {
	switch p {
	case producedAsInput:
		return "a graph input"
	case producedConstant:
		return "a constant"
	case producedVariable:
		return "a variable"
	}
	return fmt.Sprintf("written by operator %d (%s)", p, ops[p].Name)
}

// emptyConstant is the data of a tensor with no elements and no producer:
// a constant that holds nothing (TFLite accepts such tensors, a shape [0]
// shape operand say, and its kernels read them as empty constants).
var emptyConstant = []byte{}

func parseSubgraph(sg *SubgraphInfo, fsg *schema.SubGraph, buffers [][]byte, opcodes []OperatorInfo, pb *parseBudget) error {
	var err error
	if sg.Name, err = pb.str(fsg.Name(), "subgraph name bytes"); err != nil {
		return err
	}
	// The tensor list, and the producer of each tensor below.
	if err := pb.take(fsg.TensorsLength(), unsafe.Sizeof(TensorInfo{})+4, "tensors"); err != nil {
		return err
	}
	sg.Tensors = make([]TensorInfo, fsg.TensorsLength())
	densifyOnly := densifyOnlyTensors(fsg, len(sg.Tensors), opcodes)
	var ft schema.Tensor
	for i := range sg.Tensors {
		fsg.Tensors(&ft, i)
		if err := parseTensor(&sg.Tensors[i], i, &ft, buffers, pb, densifyOnly[i]); err != nil {
			return fmt.Errorf("tensor %d: %w", i, err)
		}
	}
	nt := len(sg.Tensors)
	for i := range sg.Tensors {
		if err := resolveBlockwise(sg.Tensors, i); err != nil {
			return fmt.Errorf("tensor %d: %w", i, err)
		}
	}
	if sg.Inputs, err = pb.ints(fsg.InputsLength(), fsg.Inputs, "graph inputs"); err != nil {
		return err
	}
	if sg.Outputs, err = pb.ints(fsg.OutputsLength(), fsg.Outputs, "graph outputs"); err != nil {
		return err
	}
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

	// Every tensor has at most one producer: it is a constant, a
	// variable, a graph input (written by the caller) or the output of
	// one operator. A second writer would make the tensor's size and
	// contents depend on which one ran last (two writers of different
	// shapes would make the first one write past its buffer).
	producer := make([]int32, nt)
	for i := range sg.Tensors {
		switch {
		case sg.Tensors[i].IsConst():
			producer[i] = producedConstant
		case sg.Tensors[i].IsVariable:
			producer[i] = producedVariable
		default:
			producer[i] = noProducer
		}
	}
	for k, x := range sg.Inputs {
		// A variable may be a graph input: the initial state of a fused
		// recurrent operator that the caller sets (TensorFlow's
		// converter marks an LSTM's state operands is_variable even when
		// they are function arguments). The caller writes it before
		// Invoke, the operator updates it in place, AllocateTensors and
		// ResetVariableTensors zero it.
		if p := int(producer[x]); p != noProducer && p != producedVariable {
			return fmt.Errorf("input %d (tensor %d %q) is also %s: a tensor has one producer", k, x, sg.Tensors[x].Name, producerName(p, nil))
		}
		producer[x] = producedAsInput
	}

	if err := pb.take(fsg.OperatorsLength(), unsafe.Sizeof(OperatorInfo{}), "operators"); err != nil {
		return err
	}
	sg.Operators = make([]OperatorInfo, fsg.OperatorsLength())
	var fo schema.Operator
	for k := range sg.Operators {
		fsg.Operators(&fo, k)
		op := &sg.Operators[k]
		if err := parseOperator(op, k, &fo, sg.Tensors, opcodes, pb); err != nil {
			return fmt.Errorf("operator %d: %w", k, err)
		}
		for j, x := range op.Outputs {
			if p := int(producer[x]); p != noProducer {
				return fmt.Errorf("operator %d (%s): output %d (tensor %d %q) is also %s: a tensor has one producer", k, op.Name, j, x, sg.Tensors[x].Name, producerName(p, sg.Operators))
			}
			producer[x] = int32(k)
		}
	}
	// A tensor without elements that nothing produces is an empty
	// constant (TFLite runs such models: a RESHAPE whose shape operand is
	// a shape [0] tensor with an empty buffer means "to a scalar").
	for i := range sg.Tensors {
		t := &sg.Tensors[i]
		if producer[i] == noProducer && elementsOf(t.Shape) == 0 {
			t.data = emptyConstant
			producer[i] = producedConstant
		}
	}

	// Operators read only what an earlier operator, the caller or the
	// model provides, and never their own outputs.
	for k := range sg.Operators {
		op := &sg.Operators[k]
		for j, x := range op.Inputs {
			if x < 0 {
				continue
			}
			switch p := int(producer[x]); {
			case p == k:
				return fmt.Errorf("operator %d (%s): input %d (tensor %d %q) is its own output", k, op.Name, j, x, sg.Tensors[x].Name)
			case p == noProducer || p > k:
				return fmt.Errorf("operator %d (%s): input %d (tensor %d %q) is read before anything produces it", k, op.Name, j, x, sg.Tensors[x].Name)
			}
		}
	}
	for k, x := range sg.Outputs {
		if producer[x] == noProducer {
			return fmt.Errorf("output %d (tensor %d %q) is never produced", k, x, sg.Tensors[x].Name)
		}
	}
	return nil
}

// elementsOf is the element count of a shape the loader has checked (no
// overflow, no negative dimension).
func elementsOf(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// densifyOnlyTensors marks the tensors of fsg (n of them) that only
// DENSIFY operators read: at least one does, no other operator does, and
// they are neither graph inputs nor outputs. A sparse constant among
// them stays stored sparse (deferDensify). Out-of-range indices are left
// for parseOperator to report.
func densifyOnlyTensors(fsg *schema.SubGraph, n int, opcodes []OperatorInfo) []bool {
	only := make([]bool, n)
	other := make([]bool, n)
	mark := func(x int32, list []bool) {
		if x >= 0 && int(x) < n {
			list[x] = true
		}
	}
	for k := 0; k < fsg.InputsLength(); k++ {
		mark(fsg.Inputs(k), other)
	}
	for k := 0; k < fsg.OutputsLength(); k++ {
		mark(fsg.Outputs(k), other)
	}
	var fo schema.Operator
	for k := 0; k < fsg.OperatorsLength(); k++ {
		fsg.Operators(&fo, k)
		list := other
		if oi := index32(fo.OpcodeIndex()); oi < len(opcodes) && opcodes[oi].Op == ops.OpDensify {
			list = only
		}
		for j := 0; j < fo.InputsLength(); j++ {
			mark(fo.Inputs(j), list)
		}
		for j := 0; j < fo.IntermediatesLength(); j++ {
			mark(fo.Intermediates(j), other)
		}
	}
	for i := range only {
		only[i] = only[i] && !other[i]
	}
	return only
}

// parseTensor reads tensor index of the subgraph. densifyOnly says that
// only DENSIFY operators read it (densifyOnlyTensors): a sparse constant
// then stays sparse (deferDensify) instead of being densified here.
func parseTensor(t *TensorInfo, index int, ft *schema.Tensor, buffers [][]byte, pb *parseBudget, densifyOnly bool) error {
	t.Index = index
	var err error
	if t.Name, err = pb.str(ft.Name(), "tensor name bytes"); err != nil {
		return err
	}
	t.Type = ops.DataType(ft.Type())
	if !t.Type.Known() {
		return fmt.Errorf("%q: unknown tensor type %d", t.Name, int(ft.Type()))
	}
	t.IsVariable = ft.IsVariable()
	if t.Shape, err = pb.ints(ft.ShapeLength(), ft.Shape, "dimensions"); err != nil {
		return fmt.Errorf("%q: %w", t.Name, err)
	}
	n, err := ops.ShapeElements(t.Shape, t.Type.Size())
	if err != nil {
		return fmt.Errorf("%q: %w", t.Name, err)
	}
	if ft.ShapeSignatureLength() > 0 {
		if t.Signature, err = pb.ints(ft.ShapeSignatureLength(), ft.ShapeSignature, "dimensions"); err != nil {
			return fmt.Errorf("%q: %w", t.Name, err)
		}
		if len(t.Signature) != len(t.Shape) {
			return fmt.Errorf("%q: shape_signature %v has rank %d, shape %v has rank %d", t.Name, t.Signature, len(t.Signature), t.Shape, len(t.Shape))
		}
		for d, s := range t.Signature {
			if s < -1 || (s != -1 && s != t.Shape[d]) {
				return fmt.Errorf("%q: shape_signature %v does not match shape %v at dimension %d", t.Name, t.Signature, t.Shape, d)
			}
		}
	}
	if err := parseQuantization(t, ft, pb); err != nil {
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
	sp := ft.Sparsity(nil)
	switch {
	case sp != nil && densifyOnly:
		if err := deferDensify(t, sp, data); err != nil {
			return fmt.Errorf("%q: %w", t.Name, err)
		}
	case sp != nil:
		// A sparse constant becomes the dense constant it stands for.
		var err error
		if data, err = densifyConstant(t, sp, data); err != nil {
			return fmt.Errorf("%q: %w", t.Name, err)
		}
	}
	switch {
	case t.densify != nil:
		// Stored values only; deferDensify checked their count.
	case t.Type == ops.String:
		if err := checkStringBuffer(data, n); err != nil {
			return fmt.Errorf("%q: %w", t.Name, err)
		}
	case t.Type.PackedBits() != 0:
		if want := t.Type.BytesFor(n); len(data) != want {
			return fmt.Errorf("%q: constant buffer %d has %d bytes, %d packed %s elements need %d", t.Name, t.Buffer, len(data), n, t.Type, want)
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
func parseQuantization(t *TensorInfo, ft *schema.Tensor, pb *parseBudget) error {
	var fq schema.QuantizationParameters
	q := ft.Quantization(&fq)
	if q != nil && q.DetailsType() == schema.QuantizationDetailsBlockwiseQuantization {
		var tab flatbuffers.Table
		if !q.Details(&tab) {
			return errors.New("blockwise quantization without its details")
		}
		var bq schema.BlockwiseQuantization
		bq.Init(tab.Bytes, tab.Pos)
		// The scales are another tensor's data: resolveBlockwise reads
		// them once the subgraph's tensors are parsed.
		t.Blockwise = &ops.BlockwiseQuantization{ScalesTensor: int(bq.Scales()), ZeroPointsTensor: int(bq.ZeroPoints()), BlockSize: int(bq.BlockSize())}
		return nil
	}
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
	if err := pb.take(ns, 4+8, "quantisation parameters"); err != nil {
		return err
	}
	if err := pb.take(1, unsafe.Sizeof(ops.Quantization{}), "quantisation parameters"); err != nil {
		return err
	}
	p := &ops.Quantization{Scale: make([]float32, ns), ZeroPoint: make([]int64, ns), QuantizedDimension: qd}
	for i := 0; i < ns; i++ {
		p.Scale[i] = q.Scale(i)
		p.ZeroPoint[i] = q.ZeroPoint(i)
	}
	t.Quant = p
	return nil
}

// resolveBlockwise points tensor i's blockwise quantisation at the
// float16 scales of the tensor that holds them, which must be a float16
// constant of the subgraph (TFLite reads that tensor's data as float16
// whatever its type).
func resolveBlockwise(ts []TensorInfo, i int) error {
	bq := ts[i].Blockwise
	if bq == nil {
		return nil
	}
	if bq.BlockSize <= 0 {
		return fmt.Errorf("blockwise quantization: block size %d, need > 0", bq.BlockSize)
	}
	j := bq.ScalesTensor
	if j < 0 || j >= len(ts) {
		return fmt.Errorf("blockwise quantization: scales tensor %d out of range (the subgraph has %d tensors)", j, len(ts))
	}
	st := &ts[j]
	if st.Type != ops.Float16 || st.data == nil {
		return fmt.Errorf("blockwise quantization: scales tensor %d is %s (constant: %v), need a float16 constant", j, st.Type, st.data != nil)
	}
	// A view, not a copy: many tensors may share one scales tensor.
	bq.HalfScales = ops.View[uint16](st.data)
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

// subgraphRefs is implemented by the options of operators that run other
// subgraphs (builtin.WhileOptions, builtin.IfOptions).
type subgraphRefs interface{ SubgraphIndices() []int }

// checkSubgraphRefs refuses, at load, a control-flow operator naming a
// subgraph the model does not have, or its own subgraph (deeper
// recursion is refused when the interpreter opens the subgraphs).
func checkSubgraphRefs(sgs []SubgraphInfo) error {
	for s := range sgs {
		for k := range sgs[s].Operators {
			op := &sgs[s].Operators[k]
			r, ok := op.Options.(subgraphRefs)
			if !ok {
				continue
			}
			for _, x := range r.SubgraphIndices() {
				if x < 0 || x >= len(sgs) {
					return fmt.Errorf("subgraph %d: operator %d (%s): %s names subgraph %d, out of range (the model has %d)", s, k, op.Name, op.OptionsType, x, len(sgs))
				}
				if x == s {
					return fmt.Errorf("subgraph %d: operator %d (%s): %s names its own subgraph %d (recursion)", s, k, op.Name, op.OptionsType, x)
				}
			}
		}
	}
	return nil
}

func parseOperator(op *OperatorInfo, k int, fo *schema.Operator, tensors []TensorInfo, opcodes []OperatorInfo, pb *parseBudget) error {
	oi := index32(fo.OpcodeIndex())
	if oi >= len(opcodes) {
		return fmt.Errorf("opcode index %d out of range (the model has %d operator codes)", oi, len(opcodes))
	}
	*op = opcodes[oi]
	op.Index = k
	var err error
	if op.Inputs, err = pb.ints(fo.InputsLength(), fo.Inputs, "operator inputs"); err != nil {
		return err
	}
	if op.Outputs, err = pb.ints(fo.OutputsLength(), fo.Outputs, "operator outputs"); err != nil {
		return err
	}
	if op.Intermediates, err = pb.ints(fo.IntermediatesLength(), fo.Intermediates, "operator intermediates"); err != nil {
		return err
	}
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
			if err := pb.take(1, optionsCost, "builtin options tables"); err != nil {
				return err
			}
			opts, err := optionsDecoders().DecodeOptions(ops.OptionsTable{Type: uint8(t), Bytes: tbl.Bytes, Pos: uint32(tbl.Pos)})
			if err != nil {
				return fmt.Errorf("%s: %s: %w", op.Name, op.OptionsType, err)
			}
			op.Options = opts
		}
	}
	if t := fo.BuiltinOptions2Type(); t != schema.BuiltinOptions2NONE && op.Options == nil {
		// The second options union (builtin_options_2), which TFLite
		// reads when the first is empty: the StableHLO operators.
		op.OptionsType = schema.EnumNamesBuiltinOptions2[t]
		var tbl flatbuffers.Table
		if fo.BuiltinOptions2(&tbl) {
			if err := pb.take(1, optionsCost, "builtin options tables"); err != nil {
				return err
			}
			opts, err := optionsDecoders().DecodeOptions(ops.OptionsTable{Type: uint8(t), Bytes: tbl.Bytes, Pos: uint32(tbl.Pos), Union2: true})
			if err != nil {
				return fmt.Errorf("%s: %s: %w", op.Name, op.OptionsType, err)
			}
			op.Options = opts
		}
	}
	return nil
}
