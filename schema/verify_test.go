package schema

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
)

// sharedDir is the project's shared data, beside the repository root.
const sharedDir = "../../shared"

// testModelPath is a small real model written by TensorFlow Lite's
// converter: the float MNIST LSTM of the shared data.
const testModelPath = sharedDir + "/models/mnist_lstm/trained_lstm.tflite"

// sharedModelFiles lists every model under ../shared/models (the .tflite
// files and LiteRT's test models, which are stored as .bin), plus the
// .tflite files of ../shared/golden and ../shared/savedmodels.
func sharedModelFiles(t testing.TB) []string {
	t.Helper()
	root := filepath.Join(sharedDir, "models")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("shared models not available: %s missing", root)
	}
	var files []string
	for _, dir := range []string{"models", "golden", "savedmodels"} {
		err := filepath.WalkDir(filepath.Join(sharedDir, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if strings.HasSuffix(p, ".tflite") ||
				(strings.HasSuffix(p, ".bin") && strings.Contains(p, "litert_rnn_testdata")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil && dir == "models" {
			t.Fatal(err)
		}
	}
	if len(files) < 20 {
		t.Fatalf("found only %d models under %s", len(files), sharedDir)
	}
	return files
}

// walkModel reads every part of a verified model through the generated
// accessors, the way a loader would, and returns a count of what it saw so
// the compiler cannot drop the reads. It must not panic on any buffer that
// VerifyModel accepted.
func walkModel(m *Model) int {
	n := int(m.Version())
	var oc OperatorCode
	for i := 0; i < m.OperatorCodesLength(); i++ {
		m.OperatorCodes(&oc, i)
		n += int(EffectiveBuiltinCode(&oc)) + len(oc.CustomCode()) + int(oc.Version())
	}
	var sg SubGraph
	var tn Tensor
	var op Operator
	var q QuantizationParameters
	for s := 0; s < m.SubgraphsLength(); s++ {
		m.Subgraphs(&sg, s)
		n += len(sg.Name())
		for i := 0; i < sg.TensorsLength(); i++ {
			sg.Tensors(&tn, i)
			n += len(tn.Name()) + int(tn.Buffer()) + int(tn.Type())
			for j := 0; j < tn.ShapeLength(); j++ {
				n += int(tn.Shape(j))
			}
			for j := 0; j < tn.ShapeSignatureLength(); j++ {
				n += int(tn.ShapeSignature(j))
			}
			if tn.Quantization(&q) != nil {
				for j := 0; j < q.ScaleLength(); j++ {
					n += int(q.Scale(j))
				}
				for j := 0; j < q.ZeroPointLength(); j++ {
					n += int(q.ZeroPoint(j))
				}
				var tab flatbuffers.Table
				if q.DetailsType() == QuantizationDetailsCustomQuantization && q.Details(&tab) {
					var cq CustomQuantization
					cq.Init(tab.Bytes, tab.Pos)
					n += len(cq.CustomBytes())
				}
			}
			if tn.Sparsity(nil) != nil {
				n++
			}
		}
		for i := 0; i < sg.OperatorsLength(); i++ {
			sg.Operators(&op, i)
			n += int(op.OpcodeIndex())
			for j := 0; j < op.InputsLength(); j++ {
				n += int(op.Inputs(j))
			}
			for j := 0; j < op.OutputsLength(); j++ {
				n += int(op.Outputs(j))
			}
			for j := 0; j < op.IntermediatesLength(); j++ {
				n += int(op.Intermediates(j))
			}
			n += len(op.CustomOptionsBytes())
			var tab flatbuffers.Table
			if op.BuiltinOptions(&tab) {
				if o := op.BuiltinOptionsType().UnPack(tab); o != nil {
					n += int(o.Type)
				}
			}
			if op.BuiltinOptions2(&tab) {
				if o := op.BuiltinOptions2Type().UnPack(tab); o != nil {
					n += int(o.Type)
				}
			}
		}
	}
	var b Buffer
	for i := 0; i < m.BuffersLength(); i++ {
		m.Buffers(&b, i)
		n += len(b.DataBytes())
	}
	// The object API reads every remaining field, unions included.
	if t := m.UnPack(); t != nil {
		n += len(t.Subgraphs) + len(t.Metadata) + len(t.SignatureDefs)
	}
	return n
}

// optionsFor maps operators to the options table TFLite's converter writes
// for them: real models then check the union numbering end to end.
var optionsFor = map[BuiltinOperator]string{
	BuiltinOperatorFULLY_CONNECTED:                  "FullyConnectedOptions",
	BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM:     "UnidirectionalSequenceLSTMOptions",
	BuiltinOperatorBIDIRECTIONAL_SEQUENCE_LSTM:      "BidirectionalSequenceLSTMOptions",
	BuiltinOperatorBIDIRECTIONAL_SEQUENCE_RNN:       "BidirectionalSequenceRNNOptions",
	BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_RNN:      "SequenceRNNOptions",
	BuiltinOperatorLSTM:                             "LSTMOptions",
	BuiltinOperatorRNN:                              "RNNOptions",
	BuiltinOperatorSVDF:                             "SVDFOptions",
	BuiltinOperatorCONV_2D:                          "Conv2DOptions",
	BuiltinOperatorDEPTHWISE_CONV_2D:                "DepthwiseConv2DOptions",
	BuiltinOperatorAVERAGE_POOL_2D:                  "Pool2DOptions",
	BuiltinOperatorMAX_POOL_2D:                      "Pool2DOptions",
	BuiltinOperatorSOFTMAX:                          "SoftmaxOptions",
	BuiltinOperatorRESHAPE:                          "ReshapeOptions",
	BuiltinOperatorCONCATENATION:                    "ConcatenationOptions",
	BuiltinOperatorADD:                              "AddOptions",
	BuiltinOperatorSUB:                              "SubOptions",
	BuiltinOperatorMUL:                              "MulOptions",
	BuiltinOperatorMEAN:                             "ReducerOptions",
	BuiltinOperatorGATHER:                           "GatherOptions",
	BuiltinOperatorSTRIDED_SLICE:                    "StridedSliceOptions",
	BuiltinOperatorCAST:                             "CastOptions",
	BuiltinOperatorQUANTIZE:                         "QuantizeOptions",
	BuiltinOperatorDEQUANTIZE:                       "DequantizeOptions",
	BuiltinOperatorTOPK_V2:                          "TopKV2Options",
	BuiltinOperatorNOT_EQUAL:                        "NotEqualOptions",
	BuiltinOperatorSQUEEZE:                          "SqueezeOptions",
	BuiltinOperatorPACK:                             "PackOptions",
	BuiltinOperatorUNPACK:                           "UnpackOptions",
	BuiltinOperatorSPLIT:                            "SplitOptions",
	BuiltinOperatorTRANSPOSE:                        "TransposeOptions",
	BuiltinOperatorSHAPE:                            "ShapeOptions",
	BuiltinOperatorWHILE:                            "WhileOptions",
	BuiltinOperatorLOCAL_RESPONSE_NORMALIZATION:     "LocalResponseNormalizationOptions",
	BuiltinOperatorRESIZE_BILINEAR:                  "ResizeBilinearOptions",
	BuiltinOperatorRESIZE_NEAREST_NEIGHBOR:          "ResizeNearestNeighborOptions",
	BuiltinOperatorLEAKY_RELU:                       "LeakyReluOptions",
	BuiltinOperatorBATCH_MATMUL:                     "BatchMatMulOptions",
	BuiltinOperatorEXPAND_DIMS:                      "ExpandDimsOptions",
	BuiltinOperatorPAD:                              "PadOptions",
	BuiltinOperatorFILL:                             "FillOptions",
	BuiltinOperatorGREATER:                          "GreaterOptions",
	BuiltinOperatorLESS:                             "LessOptions",
	BuiltinOperatorSPLIT_V:                          "SplitVOptions",
	BuiltinOperatorARG_MAX:                          "ArgMaxOptions",
	BuiltinOperatorSUM:                              "ReducerOptions",
	BuiltinOperatorREDUCE_MAX:                       "ReducerOptions",
	BuiltinOperatorDIV:                              "DivOptions",
	BuiltinOperatorSELECT_V2:                        "SelectV2Options",
	BuiltinOperatorGATHER_ND:                        "GatherNdOptions",
	BuiltinOperatorSLICE:                            "SliceOptions",
	BuiltinOperatorZEROS_LIKE:                       "ZerosLikeOptions",
	BuiltinOperatorLOG_SOFTMAX:                      "LogSoftmaxOptions",
	BuiltinOperatorMAXIMUM:                          "MaximumMinimumOptions",
	BuiltinOperatorMINIMUM:                          "MaximumMinimumOptions",
	BuiltinOperatorSQUARED_DIFFERENCE:               "SquaredDifferenceOptions",
	BuiltinOperatorRSQRT:                            "",
	BuiltinOperatorEMBEDDING_LOOKUP:                 "",
	BuiltinOperatorHARD_SWISH:                       "HardSwishOptions",
	BuiltinOperatorTILE:                             "TileOptions",
	BuiltinOperatorRANGE:                            "RangeOptions",
	BuiltinOperatorSELECT:                           "SelectOptions",
	BuiltinOperatorTRANSPOSE_CONV:                   "TransposeConvOptions",
	BuiltinOperatorGELU:                             "GeluOptions",
	BuiltinOperatorCUMSUM:                           "CumsumOptions",
	BuiltinOperatorBROADCAST_TO:                     "BroadcastToOptions",
	BuiltinOperatorPLACEHOLDER_FOR_GREATER_OP_CODES: "",
}

// TestSharedModelsVerifyAndParse runs every shared model through
// VerifyModel and the accessor walk, and checks that each operator's
// options union carries the table TFLite writes for that operator.
func TestSharedModelsVerifyAndParse(t *testing.T) {
	for _, path := range sharedModelFiles(t) {
		buf, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyModel(buf); err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		m := GetRootAsModel(buf, 0)
		if m.Version() != 3 {
			t.Errorf("%s: schema version %d, want 3", path, m.Version())
		}
		if m.SubgraphsLength() == 0 || m.BuffersLength() == 0 {
			t.Errorf("%s: %d subgraphs, %d buffers", path, m.SubgraphsLength(), m.BuffersLength())
		}
		walkModel(m)
		checkOperators(t, path, m)
	}
}

func checkOperators(t *testing.T, path string, m *Model) {
	var sg SubGraph
	var op Operator
	var oc OperatorCode
	for s := 0; s < m.SubgraphsLength(); s++ {
		m.Subgraphs(&sg, s)
		for i := 0; i < sg.OperatorsLength(); i++ {
			sg.Operators(&op, i)
			idx := int(op.OpcodeIndex())
			if idx >= m.OperatorCodesLength() {
				t.Errorf("%s: subgraph %d op %d: opcode index %d of %d", path, s, i, idx, m.OperatorCodesLength())
				continue
			}
			m.OperatorCodes(&oc, idx)
			code := EffectiveBuiltinCode(&oc)
			if strings.HasPrefix(BuiltinOperatorName(int32(code)), "BUILTIN_OPERATOR(") {
				t.Errorf("%s: subgraph %d op %d: unknown builtin code %d", path, s, i, code)
			}
			got := ""
			if op.BuiltinOptionsType() != BuiltinOptionsNONE {
				got = op.BuiltinOptionsType().String()
			}
			if want, ok := optionsFor[code]; ok && got != "" && got != want {
				t.Errorf("%s: subgraph %d op %d (%s): options %s, want %s",
					path, s, i, BuiltinOperatorName(int32(code)), got, want)
			}
		}
	}
}

// TestOperatorsSeenInSharedModels pins a few facts of the real models
// (the fused LSTM of mnist_lstm and its options table), which only hold if
// enum values, union numbers and field slots all match TFLite's.
func TestOperatorsSeenInSharedModels(t *testing.T) {
	buf := readTestModel(t)
	if err := VerifyModel(buf); err != nil {
		t.Fatal(err)
	}
	m := GetRootAsModel(buf, 0)
	ops := map[string]bool{}
	var oc OperatorCode
	for i := 0; i < m.OperatorCodesLength(); i++ {
		m.OperatorCodes(&oc, i)
		ops[BuiltinOperatorName(int32(EffectiveBuiltinCode(&oc)))] = true
	}
	for _, want := range []string{"UNIDIRECTIONAL_SEQUENCE_LSTM", "RESHAPE", "FULLY_CONNECTED", "SOFTMAX"} {
		if !ops[want] {
			t.Errorf("operator %s not found; have %v", want, ops)
		}
	}
	var sg SubGraph
	var op Operator
	var tn Tensor
	m.Subgraphs(&sg, 0)
	found := false
	for i := 0; i < sg.OperatorsLength(); i++ {
		sg.Operators(&op, i)
		m.OperatorCodes(&oc, int(op.OpcodeIndex()))
		if EffectiveBuiltinCode(&oc) != BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM {
			continue
		}
		found = true
		if op.BuiltinOptionsType() != BuiltinOptionsUnidirectionalSequenceLSTMOptions {
			t.Fatalf("LSTM options type %v", op.BuiltinOptionsType())
		}
		var tab flatbuffers.Table
		op.BuiltinOptions(&tab)
		var o UnidirectionalSequenceLSTMOptions
		o.Init(tab.Bytes, tab.Pos)
		if o.FusedActivationFunction() != ActivationFunctionTypeTANH {
			t.Errorf("LSTM activation %v, want TANH", o.FusedActivationFunction())
		}
		// Keras LSTM(20): 24 inputs, input [1,28,28], recurrent weights [80,20].
		if op.InputsLength() != 24 {
			t.Errorf("LSTM has %d inputs, want 24", op.InputsLength())
		}
		sg.Tensors(&tn, int(op.Inputs(0)))
		if got := fmt.Sprint(shapeOf(&tn)); got != "[1 28 28]" {
			t.Errorf("LSTM input shape %s, want [1 28 28]", got)
		}
		sg.Tensors(&tn, int(op.Inputs(5)))
		if got := fmt.Sprint(shapeOf(&tn)); got != "[20 20]" {
			t.Errorf("recurrent-to-input weights shape %s, want [20 20]", got)
		}
	}
	if !found {
		t.Error("no UNIDIRECTIONAL_SEQUENCE_LSTM operator")
	}
}

func shapeOf(tn *Tensor) []int32 {
	s := make([]int32, tn.ShapeLength())
	for i := range s {
		s[i] = tn.Shape(i)
	}
	return s
}

// readTestModel reads testModelPath, skipping the test, naming the path,
// when it is absent.
func readTestModel(t testing.TB) []byte {
	t.Helper()
	buf, err := os.ReadFile(testModelPath)
	if err != nil {
		t.Skipf("%s is absent: %v", testModelPath, err)
	}
	return buf
}

// dataInterior marks the bytes of buf, a valid model, that lie inside the
// data of a constant buffer, more than edge bytes from either end: tensor
// values, which the verifier only bounds-checks as a whole vector. In the
// MNIST LSTM they are 37820 of the 41240 bytes.
func dataInterior(buf []byte, edge int) []bool {
	in := make([]bool, len(buf))
	m := GetRootAsModel(buf, 0)
	var b Buffer
	for i := 0; i < m.BuffersLength(); i++ {
		if !m.Buffers(&b, i) {
			continue
		}
		d := b.DataBytes()
		start := cap(buf) - cap(d) // d is a sub-slice of buf
		for j := start + edge; j < start+len(d)-edge; j++ {
			in[j] = true
		}
	}
	return in
}

// interiorStride is how sparsely the sweeps below sample the data
// interior: a cut or a changed byte there is like any other of the same
// vector, so every 61st is enough to keep the case covered.
const interiorStride = 61

// TestTruncatedModel verifies every proper prefix of a real model that
// ends in its structure (and every interiorStride-th one inside constant
// data): each must be rejected, none may panic.
func TestTruncatedModel(t *testing.T) {
	buf := readTestModel(t)
	if err := VerifyModel(buf); err != nil {
		t.Fatal(err)
	}
	interior := dataInterior(buf, 16)
	for n := 0; n < len(buf); n++ {
		if interior[n] && n%interiorStride != 0 {
			continue
		}
		// A fresh copy, so nothing can read past n through spare capacity.
		prefix := append([]byte(nil), buf[:n]...)
		if err := VerifyModel(prefix); err == nil {
			t.Fatalf("prefix of %d of %d bytes accepted", n, len(buf))
		}
	}
}

// TestCorruptedModel overwrites each byte of a real model's structure (and
// every interiorStride-th byte of its constant data) with 0x00 and with
// 0xFF. VerifyModel must not panic, and whatever it accepts must be
// walkable.
func TestCorruptedModel(t *testing.T) {
	buf := readTestModel(t)
	interior := dataInterior(buf, 16)
	mut := make([]byte, len(buf))
	accepted, tried := 0, 0
	for i := range buf {
		if interior[i] && i%interiorStride != 0 {
			continue
		}
		tried++
		for _, val := range []byte{0x00, 0xFF} {
			if buf[i] == val {
				continue
			}
			copy(mut, buf)
			mut[i] = val
			if VerifyModel(mut) == nil {
				accepted++
				walkModel(GetRootAsModel(mut, 0))
			}
		}
	}
	t.Logf("%d of %d corruptions still verify (data bytes, scalars)", accepted, 2*tried)
}

// ---- hand-built and hand-damaged buffers ----

// smallModel builds a one-operator model with the generated object API.
func smallModel() []byte {
	m := &ModelT{
		Version:     3,
		Description: "tflrun test",
		OperatorCodes: []*OperatorCodeT{{
			DeprecatedBuiltinCode: int8(BuiltinOperatorFULLY_CONNECTED),
			BuiltinCode:           BuiltinOperatorFULLY_CONNECTED,
			Version:               1,
		}},
		Subgraphs: []*SubGraphT{{
			Tensors: []*TensorT{{
				Shape:  []int32{1, 4},
				Type:   TensorTypeFLOAT32,
				Buffer: 1,
				Name:   "input",
				Quantization: &QuantizationParametersT{
					Scale:     []float32{0.5, 0.25, 0.125},
					ZeroPoint: []int64{0, 0, 0},
				},
			}},
			Inputs:  []int32{0},
			Outputs: []int32{0},
			Operators: []*OperatorT{{
				Inputs:  []int32{0},
				Outputs: []int32{0},
				BuiltinOptions: &BuiltinOptionsT{
					Type:  BuiltinOptionsFullyConnectedOptions,
					Value: &FullyConnectedOptionsT{KeepNumDims: true},
				},
				DebugMetadataIndex: -1,
			}},
			Name:               "main",
			DebugMetadataIndex: -1,
		}},
		Buffers: []*BufferT{{}, {Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}}},
	}
	b := flatbuffers.NewBuilder(1024)
	b.FinishWithFileIdentifier(m.Pack(b), []byte(ModelIdentifier))
	return b.FinishedBytes()
}

// Positions inside a built model, found with the generated accessors.
type layout struct {
	buf []byte
	m   *Model
}

func newLayout(t *testing.T) layout {
	t.Helper()
	buf := smallModel()
	if err := VerifyModel(buf); err != nil {
		t.Fatalf("hand-built model does not verify: %v", err)
	}
	return layout{buf, GetRootAsModel(buf, 0)}
}

// field returns the position of field slot of the table tab (it must be
// present).
func (l layout) field(t *testing.T, tab flatbuffers.Table, slot int) int {
	t.Helper()
	off := tab.Offset(flatbuffers.VOffsetT(4 + 2*slot))
	if off == 0 {
		t.Fatalf("field slot %d absent", slot)
	}
	return int(tab.Pos) + int(off)
}

// target returns where the offset stored at pos points.
func (l layout) target(pos int) int { return pos + int(binary.LittleEndian.Uint32(l.buf[pos:])) }

func (l layout) tensor0() flatbuffers.Table {
	var sg SubGraph
	var tn Tensor
	l.m.Subgraphs(&sg, 0)
	sg.Tensors(&tn, 0)
	return tn.Table()
}

func (l layout) operator0() flatbuffers.Table {
	var sg SubGraph
	var op Operator
	l.m.Subgraphs(&sg, 0)
	sg.Operators(&op, 0)
	return op.Table()
}

func put32(buf []byte, pos int, v uint32) { binary.LittleEndian.PutUint32(buf[pos:], v) }
func put16(buf []byte, pos int, v uint16) { binary.LittleEndian.PutUint16(buf[pos:], v) }

// vtableOf returns the vtable position of the table at pos.
func vtableOf(buf []byte, pos int) int {
	return pos - int(int32(binary.LittleEndian.Uint32(buf[pos:])))
}

func wantError(t *testing.T, buf []byte, want string) {
	t.Helper()
	err := VerifyModel(buf)
	if err == nil {
		t.Fatalf("accepted; want error %q", want)
	}
	if _, ok := err.(*FormatError); !ok {
		t.Errorf("error type %T, want *FormatError", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error\n  %v\nwant it to contain\n  %s", err, want)
	}
}

func TestHostileBuffers(t *testing.T) {
	t.Run("too short", func(t *testing.T) {
		wantError(t, smallModel()[:7], "model: buffer of 7 bytes is too short for a TFLite flatbuffer (need at least 8)")
		wantError(t, nil, "model: buffer of 0 bytes is too short")
	})
	t.Run("bad identifier", func(t *testing.T) {
		buf := smallModel()
		copy(buf[4:], "TFL2")
		wantError(t, buf, `model: file identifier at offset 4 is "TFL2", want "TFL3"`)
	})
	t.Run("root offset past end", func(t *testing.T) {
		buf := smallModel()
		put32(buf, 0, uint32(len(buf)+100))
		wantError(t, buf, fmt.Sprintf("model: root offset at offset 0 points to %d, past the end of the %d-byte buffer",
			len(buf)+100, len(buf)))
	})
	t.Run("root offset zero", func(t *testing.T) {
		buf := smallModel()
		put32(buf, 0, 0)
		wantError(t, buf, "model: root offset at offset 0 is 0 (points at itself)")
	})
	t.Run("root offset negative", func(t *testing.T) {
		buf := smallModel()
		put32(buf, 0, 0xFFFFFFF0)
		wantError(t, buf, "model: root offset at offset 0 is 4294967280, beyond flatbuffers' 2 GiB range")
	})
	t.Run("vtable offset out of range", func(t *testing.T) {
		l := newLayout(t)
		root := int(l.m.Table().Pos)
		put32(l.buf, root, uint32(0xFFF00000)) // vtable 1 MiB after the table
		wantError(t, l.buf, fmt.Sprintf("model: Model table at offset %d has its vtable at %d, misaligned or outside the %d-byte buffer",
			root, root+0x100000, len(l.buf)))
	})
	t.Run("odd vtable size", func(t *testing.T) {
		l := newLayout(t)
		vt := vtableOf(l.buf, int(l.m.Table().Pos))
		put16(l.buf, vt, 7)
		wantError(t, l.buf, fmt.Sprintf("model: Model vtable at offset %d has size 7 (must be even, >= 4", vt))
	})
	t.Run("field outside its table", func(t *testing.T) {
		l := newLayout(t)
		vt := vtableOf(l.buf, int(l.m.Table().Pos))
		put16(l.buf, vt+2, 4) // object size 4: only the vtable offset
		wantError(t, l.buf, "lies outside its 4-byte table at")
	})
	t.Run("misaligned scalar", func(t *testing.T) {
		l := newLayout(t)
		root := int(l.m.Table().Pos)
		vt := vtableOf(l.buf, root)
		put16(l.buf, vt+4, 5) // Model.version at table offset 5
		wantError(t, l.buf, fmt.Sprintf("model: field version at offset %d is not 4-byte aligned", root+5))
	})
	t.Run("vector length overflowing", func(t *testing.T) {
		l := newLayout(t)
		shape := l.target(l.field(t, l.tensor0(), 0))
		put32(l.buf, shape, 0xFFFFFFFF)
		wantError(t, l.buf, fmt.Sprintf("model.subgraphs[0].tensors[0].shape: vector of 4294967295 int32 at offset %d runs past the end of the %d-byte buffer",
			shape, len(l.buf)))
	})
	t.Run("vector of floats past end", func(t *testing.T) {
		l := newLayout(t)
		var q QuantizationParameters
		var sg SubGraph
		var tn Tensor
		l.m.Subgraphs(&sg, 0)
		sg.Tensors(&tn, 0)
		tn.Quantization(&q)
		scale := l.target(l.field(t, q.Table(), 2))
		put32(l.buf, scale, uint32(len(l.buf)/4))
		wantError(t, l.buf, fmt.Sprintf("model.subgraphs[0].tensors[0].quantization.scale: vector of %d float32 at offset %d runs past the end of the %d-byte buffer",
			len(l.buf)/4, scale, len(l.buf)))
	})
	t.Run("misaligned vector", func(t *testing.T) {
		l := newLayout(t)
		var q QuantizationParameters
		var sg SubGraph
		var tn Tensor
		l.m.Subgraphs(&sg, 0)
		sg.Tensors(&tn, 0)
		tn.Quantization(&q)
		at := l.field(t, q.Table(), 2)
		put32(l.buf, at, binary.LittleEndian.Uint32(l.buf[at:])+2)
		wantError(t, l.buf, fmt.Sprintf("model.subgraphs[0].tensors[0].quantization.scale: vector at offset %d is not 4-byte aligned",
			l.target(at)))
	})
	t.Run("string without NUL", func(t *testing.T) {
		l := newLayout(t)
		name := l.target(l.field(t, l.tensor0(), 3))
		l.buf[name+4+len("input")] = 'x'
		wantError(t, l.buf, fmt.Sprintf("model.subgraphs[0].tensors[0].name: string of 5 bytes at offset %d is not NUL-terminated",
			name))
	})
	t.Run("string running to the end", func(t *testing.T) {
		l := newLayout(t)
		name := l.target(l.field(t, l.tensor0(), 3))
		n := len(l.buf) - name - 4
		put32(l.buf, name, uint32(n))
		wantError(t, l.buf, fmt.Sprintf("model.subgraphs[0].tensors[0].name: string of %d bytes at offset %d has no NUL terminator inside the %d-byte buffer",
			n, name, len(l.buf)))
	})
	t.Run("offset pointing at itself", func(t *testing.T) {
		l := newLayout(t)
		at := l.field(t, l.tensor0(), 3)
		put32(l.buf, at, 0)
		wantError(t, l.buf, fmt.Sprintf("model.subgraphs[0].tensors[0].name: offset at offset %d is 0 (points at itself)", at))
	})
	t.Run("vector element pointing at itself", func(t *testing.T) {
		l := newLayout(t)
		vec := l.target(l.field(t, l.m.Table(), 2)) // Model.subgraphs
		put32(l.buf, vec+4, 0)
		// The element is read as a table whose vtable is itself, of size 0.
		wantError(t, l.buf, fmt.Sprintf("model.subgraphs[0]: SubGraph vtable at offset %d has size 0", vec+4))
	})
	t.Run("union member table broken", func(t *testing.T) {
		l := newLayout(t)
		opts := l.target(l.field(t, l.operator0(), 4))
		put32(l.buf, opts, 0x80000000)
		wantError(t, l.buf, fmt.Sprintf("model.subgraphs[0].operators[0].builtin_options<FullyConnectedOptions>: FullyConnectedOptions table at offset %d has its vtable at",
			opts))
	})
	t.Run("union offset past end", func(t *testing.T) {
		l := newLayout(t)
		at := l.field(t, l.operator0(), 4)
		put32(l.buf, at, uint32(len(l.buf)))
		wantError(t, l.buf, "model.subgraphs[0].operators[0].builtin_options<FullyConnectedOptions>: offset at offset")
	})
	t.Run("buffer data range outside the file", func(t *testing.T) {
		m := GetRootAsModel(smallModel(), 0).UnPack()
		m.Buffers[1] = &BufferT{Offset: 1 << 40, Size: 10}
		b := flatbuffers.NewBuilder(0)
		b.FinishWithFileIdentifier(m.Pack(b), []byte(ModelIdentifier))
		buf := b.FinishedBytes()
		wantError(t, buf, fmt.Sprintf("model.buffers[1]: data range offset 1099511627776 size 10 lies outside the %d-byte file", len(buf)))
	})
}

// TestUnknownUnionTypeAccepted follows the C++ verifier: a union type this
// schema does not know is accepted and its table left unread.
func TestUnknownUnionTypeAccepted(t *testing.T) {
	l := newLayout(t)
	typ := l.field(t, l.operator0(), 3)
	l.buf[typ] = 200
	// Even a garbage table behind it is not read.
	put32(l.buf, l.target(l.field(t, l.operator0(), 4)), 0x7FFFFFFF)
	if err := VerifyModel(l.buf); err != nil {
		t.Fatalf("unknown union type rejected: %v", err)
	}
	walkModel(GetRootAsModel(l.buf, 0))
	if got := l.operator0(); got.Bytes == nil {
		t.Fatal("no operator")
	}
	var sg SubGraph
	var op Operator
	l.m.Subgraphs(&sg, 0)
	sg.Operators(&op, 0)
	if op.BuiltinOptionsType().String() != "BuiltinOptions(200)" {
		t.Errorf("type %v", op.BuiltinOptionsType())
	}
	// A known type over the same garbage is rejected.
	l.buf[typ] = byte(BuiltinOptionsFullyConnectedOptions)
	if VerifyModel(l.buf) == nil {
		t.Fatal("garbage FullyConnectedOptions accepted")
	}
}

// TestDepthLimit nests 70 tables through a self-referencing descriptor
// (TFLite's own tables nest at most 6 deep, so only a test type can reach
// the limit).
func TestDepthLimit(t *testing.T) {
	deep := &tableDesc{name: "Deep"}
	deep.fields = []fieldDesc{tab("next", 0, deep)}
	b := flatbuffers.NewBuilder(0)
	var prev flatbuffers.UOffsetT
	for i := 0; i < 70; i++ {
		b.StartObject(1)
		if prev != 0 {
			b.PrependUOffsetTSlot(0, prev, 0)
		}
		prev = b.EndObject()
	}
	b.FinishWithFileIdentifier(prev, []byte(ModelIdentifier))
	err := verifyBuffer(b.FinishedBytes(), deep)
	if err == nil || !strings.Contains(err.Error(), "tables nested more than 64 deep") {
		t.Fatalf("got %v", err)
	}
	if !strings.HasPrefix(err.Error(), "model"+strings.Repeat(".next", 64)+": ") {
		t.Errorf("path of %v", err)
	}
	// 64 levels are fine.
	b = flatbuffers.NewBuilder(0)
	prev = 0
	for i := 0; i < 64; i++ {
		b.StartObject(1)
		if prev != 0 {
			b.PrependUOffsetTSlot(0, prev, 0)
		}
		prev = b.EndObject()
	}
	b.FinishWithFileIdentifier(prev, []byte(ModelIdentifier))
	if err := verifyBuffer(b.FinishedBytes(), deep); err != nil {
		t.Fatal(err)
	}
}

// TestTableCountLimit makes a million-and-one subgraph offsets share one
// table: a small buffer that would otherwise cost a long walk.
func TestTableCountLimit(t *testing.T) {
	build := func(n int) []byte {
		b := flatbuffers.NewBuilder(4*n + 64)
		SubGraphStart(b)
		sg := SubGraphEnd(b)
		ModelStartSubgraphsVector(b, n)
		for i := 0; i < n; i++ {
			b.PrependUOffsetT(sg)
		}
		vec := b.EndVector(n)
		ModelStart(b)
		ModelAddVersion(b, 3)
		ModelAddSubgraphs(b, vec)
		b.FinishWithFileIdentifier(ModelEnd(b), []byte(ModelIdentifier))
		return b.FinishedBytes()
	}
	// The Model table plus MaxTables-1 subgraphs is just within the limit.
	if err := VerifyModel(build(MaxTables - 1)); err != nil {
		t.Fatal(err)
	}
	wantError(t, build(MaxTables), "model.subgraphs[999999]: more than 1000000 tables in the buffer")
}
