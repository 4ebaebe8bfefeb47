package schema

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
)

// richModel builds a model that uses the rarer parts of the schema (sparse
// tensors and both index-vector unions, custom and multi-axis quantization,
// variant subtypes, both options unions with vector and string fields,
// signatures, metadata, external buffers), so tests and the fuzzer reach
// every kind of table the verifier knows.
func richModel() []byte {
	sparse := &SparsityParametersT{
		TraversalOrder: []int32{0, 1},
		BlockMap:       []int32{},
		DimMetadata: []*DimensionMetadataT{
			{Format: DimensionTypeDENSE, DenseSize: 3},
			{
				Format:        DimensionTypeSPARSE_CSR,
				ArraySegments: &SparseIndexVectorT{Type: SparseIndexVectorInt32Vector, Value: &Int32VectorT{Values: []int32{0, 1, 3, 4}}},
				ArrayIndices:  &SparseIndexVectorT{Type: SparseIndexVectorUint8Vector, Value: &Uint8VectorT{Values: []byte{2, 0, 1, 3}}},
			},
		},
	}
	m := &ModelT{
		Version:     3,
		Description: "rich",
		OperatorCodes: []*OperatorCodeT{
			{DeprecatedBuiltinCode: 22, BuiltinCode: BuiltinOperatorRESHAPE, Version: 1},
			{DeprecatedBuiltinCode: 127, BuiltinCode: BuiltinOperatorSTABLEHLO_CONVOLUTION, Version: 1},
			{DeprecatedBuiltinCode: 32, BuiltinCode: BuiltinOperatorCUSTOM, CustomCode: "MyOp", Version: 2},
		},
		Subgraphs: []*SubGraphT{{
			Tensors: []*TensorT{
				{Shape: []int32{3, 4}, ShapeSignature: []int32{-1, 4}, Type: TensorTypeFLOAT32, Buffer: 1,
					Name: "w", Sparsity: sparse, HasRank: true},
				{Shape: []int32{4}, Type: TensorTypeINT8, Name: "q", Quantization: &QuantizationParametersT{
					Details: &QuantizationDetailsT{Type: QuantizationDetailsCustomQuantization,
						Value: &CustomQuantizationT{Custom: []byte("opaque")}}}},
				{Shape: []int32{4}, Type: TensorTypeINT4, Name: "mq", Quantization: &QuantizationParametersT{
					Details: &QuantizationDetailsT{Type: QuantizationDetailsMultiAxisQuantization,
						Value: &MultiAxisQuantizationT{Scales: 0, ZeroPoints: -1, QuantizedDimensions: []int32{0, 1}}}}},
				{Type: TensorTypeVARIANT, Name: "list", IsVariable: true, VariantTensors: []*VariantSubTypeT{
					{Shape: []int32{2}, Type: TensorTypeFLOAT32, HasRank: true}}, ExternalBuffer: 1},
			},
			Inputs:  []int32{0},
			Outputs: []int32{1},
			Operators: []*OperatorT{
				{OpcodeIndex: 0, Inputs: []int32{0}, Outputs: []int32{1},
					BuiltinOptions: &BuiltinOptionsT{Type: BuiltinOptionsReshapeOptions,
						Value: &ReshapeOptionsT{NewShape: []int32{12}}},
					MutatingVariableInputs: []bool{false}, Intermediates: []int32{2}, DebugMetadataIndex: -1},
				{OpcodeIndex: 1, Inputs: []int32{0, 1}, Outputs: []int32{2},
					BuiltinOptions2: &BuiltinOptions2T{Type: BuiltinOptions2StablehloConvolutionOptions,
						Value: &StablehloConvolutionOptionsT{WindowStrides: []int64{1, 1}, Padding: []int64{0, 0, 0, 0},
							WindowReversal: []bool{false, true}, InputSpatialDimensions: []int64{1, 2},
							FeatureGroupCount: 1, BatchGroupCount: 1,
							PrecisionConfig: []StablehloPrecisionConfig{StablehloPrecisionConfigHIGHEST}}},
					DebugMetadataIndex: -1},
				{OpcodeIndex: 2, Inputs: []int32{-1, 3}, Outputs: []int32{3},
					CustomOptions: []byte{1, 2, 3}, DebugMetadataIndex: -1},
				{OpcodeIndex: 1, BuiltinOptions2: &BuiltinOptions2T{Type: BuiltinOptions2StableHLOCompositeOptions,
					Value: &StableHLOCompositeOptionsT{Name: "odml.rms_norm", DecompositionSubgraphIndex: 1,
						CompositeAttributes: []byte{0, 1}, Version: 1}}, DebugMetadataIndex: -1},
				{OpcodeIndex: 1, BuiltinOptions: &BuiltinOptionsT{Type: BuiltinOptionsVarHandleOptions,
					Value: &VarHandleOptionsT{Container: "c", SharedName: "v"}},
					BuiltinOptions2: &BuiltinOptions2T{Type: BuiltinOptions2StablehloCustomCallOptions,
						Value: &StablehloCustomCallOptionsT{CallTargetName: "f", BackendConfig: "{}",
							CalledComputations: []int32{1}, CustomAttributes: []byte{9}}},
					DebugMetadataIndex: -1},
			},
			Name:               "main",
			DebugMetadataIndex: -1,
		}},
		Buffers: []*BufferT{{}, {Data: []byte{1, 2, 3, 4}}, {Data: []byte("metadata")}},
		Metadata: []*MetadataT{
			{Name: "min_runtime_version", Buffer: 2},
		},
		MetadataBuffer: []int32{2},
		SignatureDefs: []*SignatureDefT{{
			Inputs:        []*TensorMapT{{Name: "x", TensorIndex: 0}},
			Outputs:       []*TensorMapT{{Name: "y", TensorIndex: 1}},
			SignatureKey:  "serving_default",
			SubgraphIndex: 0,
		}},
		ExternalBufferGroups: []*ExternalBufferGroupT{{Name: "weights.bin"}},
		ExternalBuffers:      []*ExternalBufferT{{Id: 1, Group: 0, Offset: 64, Length: 16, Packing: "none"}},
	}
	b := flatbuffers.NewBuilder(0)
	b.FinishWithFileIdentifier(m.Pack(b), []byte(ModelIdentifier))
	return b.FinishedBytes()
}

// TestRichModel round-trips the rich model and checks that every prefix is
// rejected and that byte corruptions never panic.
func TestRichModel(t *testing.T) {
	buf := richModel()
	if err := VerifyModel(buf); err != nil {
		t.Fatal(err)
	}
	m := GetRootAsModel(buf, 0).UnPack()
	if got := m.Subgraphs[0].Tensors[0].Sparsity.DimMetadata[1].ArrayIndices.Value.(*Uint8VectorT).Values; len(got) != 4 {
		t.Errorf("array_indices %v", got)
	}
	if got := m.Subgraphs[0].Operators[1].BuiltinOptions2.Value.(*StablehloConvolutionOptionsT).WindowReversal; len(got) != 2 || !got[1] {
		t.Errorf("window_reversal %v", got)
	}
	if got := m.SignatureDefs[0].Outputs[0].Name; got != "y" {
		t.Errorf("signature output %q", got)
	}
	// Go's builder may leave alignment padding after the first object it
	// wrote, at the very end of the buffer; a prefix that only drops such
	// padding is a complete model, and must then read back unchanged.
	for n := 0; n < len(buf); n++ {
		prefix := append([]byte(nil), buf[:n]...)
		if VerifyModel(prefix) == nil {
			if n < len(buf)-3 || !reflect.DeepEqual(GetRootAsModel(prefix, 0).UnPack(), m) {
				t.Fatalf("prefix of %d of %d bytes accepted", n, len(buf))
			}
		}
	}
	mut := make([]byte, len(buf))
	for i := range buf {
		for _, val := range []byte{0x00, 0xFF, 0x80, 0x01} {
			copy(mut, buf)
			mut[i] = val
			if VerifyModel(mut) == nil {
				walkModel(GetRootAsModel(mut, 0))
			}
		}
	}
}

// FuzzVerifyModel feeds arbitrary bytes to VerifyModel; whenever it
// accepts them, the whole model is walked with the generated accessors,
// which must not panic: that is the verifier's guarantee.
//
//	go test ./schema -run='^$' -fuzz=FuzzVerifyModel -fuzztime=2m
func FuzzVerifyModel(f *testing.F) {
	f.Add(smallModel())
	f.Add(richModel())
	// The float MNIST LSTM TensorFlow Lite's converter wrote (when the
	// shared data is present) and the model of the same shape tflrun's
	// writer makes for tflrun bench.
	for _, p := range []string{testModelPath, "../cmd/tflrun/embedded/seeded_lstm.tflite"} {
		if buf, err := os.ReadFile(p); err == nil {
			f.Add(buf)
		}
	}
	// The smallest shared models, when the shared data is present.
	var small []string
	filepath.WalkDir(filepath.Join(sharedDir, "golden", "recurrent"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".tflite" {
			if info, err := d.Info(); err == nil && info.Size() < 2500 {
				small = append(small, p)
			}
		}
		return nil
	})
	sort.Strings(small)
	for _, p := range small {
		if buf, err := os.ReadFile(p); err == nil {
			f.Add(buf)
		}
	}
	f.Fuzz(func(t *testing.T, buf []byte) {
		if VerifyModel(buf) != nil {
			return
		}
		walkModel(GetRootAsModel(buf, 0))
	})
}
