package interpreter

import (
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// sparseConvModel is MediaPipe's weight pattern in small: sparse float16
// weights (the 3×4 matrix of sparseModel) → DENSIFY → DEQUANTIZE → a 1×1
// CONV_2D over a 2×2 image of 4 channels, with a float32 bias. With
// alsoOutput the DEQUANTIZE output is a graph output too.
func sparseConvModel(t *testing.T, alsoOutput bool) *schema.ModelT {
	f32, f16 := schema.TensorTypeFLOAT32, schema.TensorTypeFLOAT16
	outputs := []int32{5}
	if alsoOutput {
		outputs = append(outputs, 3)
	}
	return &schema.ModelT{
		Version: 3,
		OperatorCodes: []*schema.OperatorCodeT{
			{BuiltinCode: schema.BuiltinOperatorDENSIFY, DeprecatedBuiltinCode: 124, Version: 1},
			{BuiltinCode: schema.BuiltinOperatorDEQUANTIZE, DeprecatedBuiltinCode: 6, Version: 3},
			{BuiltinCode: schema.BuiltinOperatorCONV_2D, DeprecatedBuiltinCode: 3, Version: 1},
		},
		Buffers: []*schema.BufferT{{}, {Data: f16bytes(t, 6, 9, 8, 5, 7)}, {Data: f32bytes(0.5, -1, 2)}},
		Subgraphs: []*schema.SubGraphT{{
			Tensors: []*schema.TensorT{
				{Name: "input", Shape: []int32{1, 2, 2, 4}, Type: f32},
				{Name: "w_sparse_f16", Shape: []int32{3, 1, 1, 4}, Type: f16, Buffer: 1, Sparsity: &schema.SparsityParametersT{
					TraversalOrder: []int32{0, 1, 2, 3},
					DimMetadata: []*schema.DimensionMetadataT{
						{Format: schema.DimensionTypeDENSE, DenseSize: 3},
						{Format: schema.DimensionTypeDENSE, DenseSize: 1},
						{Format: schema.DimensionTypeDENSE, DenseSize: 1},
						{Format: schema.DimensionTypeSPARSE_CSR,
							ArraySegments: &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorUint8Vector, Value: &schema.Uint8VectorT{Values: []byte{0, 3, 3, 5}}},
							ArrayIndices:  &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorUint16Vector, Value: &schema.Uint16VectorT{Values: []uint16{0, 2, 3, 0, 3}}}},
					},
				}},
				{Name: "w_f16", Shape: []int32{3, 1, 1, 4}, Type: f16},
				{Name: "w", Shape: []int32{3, 1, 1, 4}, Type: f32},
				{Name: "bias", Shape: []int32{3}, Type: f32, Buffer: 2},
				{Name: "output", Shape: []int32{1, 2, 2, 3}, Type: f32},
			},
			Inputs:  []int32{0},
			Outputs: outputs,
			Operators: []*schema.OperatorT{
				{OpcodeIndex: 0, Inputs: []int32{1}, Outputs: []int32{2}},
				{OpcodeIndex: 1, Inputs: []int32{2}, Outputs: []int32{3}},
				{OpcodeIndex: 2, Inputs: []int32{0, 3, 4}, Outputs: []int32{5},
					BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConv2DOptions, Value: &schema.Conv2DOptionsT{
						Padding: schema.PaddingVALID, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1}}},
			},
		}},
	}
}

// TestSparseWeightsNotResidentTwice checks what keeps MediaPipe's sparse
// float16 models lean: the sparse constant is not densified at load (only
// DENSIFY reads it), and once CONV_2D has packed the dequantized filter
// the precomputed DENSIFY and DEQUANTIZE outputs are freed, while the
// outputs stay those of the dense weights, at every Invoke and after a
// resize re-runs AllocateTensors (which computes the freed tensors anew).
// A precomputed tensor that is also a graph output is kept.
func TestSparseWeightsNotResidentTwice(t *testing.T) {
	weights := []float32{6, 0, 9, 8, 0, 0, 0, 0, 5, 0, 0, 7}
	bias := []float32{0.5, -1, 2}
	for _, alsoOutput := range []bool{false, true} {
		m := mustLoad(t, sparseConvModel(t, alsoOutput))
		ti := &m.Subgraphs[0].Tensors[1]
		if ti.Sparsity != nil || ti.ConstBytes() != 5*2 {
			t.Fatalf("sparse constant read only by DENSIFY: Sparsity %v, %d constant bytes; want it kept sparse (nil, 10 bytes)", ti.Sparsity, ti.ConstBytes())
		}
		it, err := New(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		for round, batch := range []int{1, 2} {
			if round > 0 {
				if err := it.ResizeInputTensor(0, []int{batch, 2, 2, 4}); err != nil {
					t.Fatal(err)
				}
			}
			if err := it.AllocateTensors(); err != nil {
				t.Fatal(err)
			}
			conv := it.sg.nodes[2].kernel.(ops.PackingKernel)
			packed := slices.Contains(conv.PackedInputs(), 1)
			dq := &it.sg.tensors[3]
			densified := &it.sg.tensors[2]
			if densified.Data != nil {
				t.Errorf("output %v, round %d: the DENSIFY output (read only by the precomputed DEQUANTIZE) is still held", alsoOutput, round)
			}
			if freed := dq.Data == nil; freed != (packed && !alsoOutput) {
				t.Errorf("output %v, round %d: DEQUANTIZE output freed %v; CONV_2D packed its filter: %v", alsoOutput, round, freed, packed)
			}
			want := 64 // the kept DEQUANTIZE output: 48 bytes, aligned
			if packed && !alsoOutput {
				want = 0
			}
			if it.PrecomputedBytes() != want {
				t.Errorf("output %v, round %d: PrecomputedBytes %d, want %d", alsoOutput, round, it.PrecomputedBytes(), want)
			}
			x := it.Input(0).Float32s()
			for i := range x {
				x[i] = float32(i%7) - 2.5
			}
			for range 2 {
				if err := it.Invoke(); err != nil {
					t.Fatal(err)
				}
				got := it.Output(0).Float32s()
				for p := 0; p < batch*4; p++ {
					for c := 0; c < 3; c++ {
						s := float32(0)
						for k := 0; k < 4; k++ {
							s += weights[c*4+k] * x[p*4+k]
						}
						if want := s + bias[c]; got[p*3+c] != want {
							t.Fatalf("output %v, round %d: pixel %d channel %d = %v, want %v", alsoOutput, round, p, c, got[p*3+c], want)
						}
					}
				}
				if alsoOutput && !slices.Equal(it.Output(1).Float32s(), weights) {
					t.Fatalf("round %d: the dequantized weights (a graph output) are %v, want %v", round, it.Output(1).Float32s(), weights)
				}
			}
		}
		it.Close()
	}
}
