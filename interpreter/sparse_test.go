package interpreter

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/schema"
)

// Tests of sparse constants (densifyConstant): a valid sparse weight loads
// as the dense constant it stands for (DENSIFY then copies it out), and
// every inconsistency of its SparsityParameters is a load error naming
// the tensor, never a panic or an out-of-range write.

// sparseModel is DENSIFY of the 3×4 matrix
//
//	6 0 9 8
//	0 0 0 0
//	5 0 0 7
//
// stored with dimension 0 dense and dimension 1 compressed (TFLite's
// converter test D0S1): segments [0 3 3 5], indices [0 2 3 0 3].
func sparseModel() *schema.ModelT {
	m := singleOpModel(schema.BuiltinOperatorDENSIFY, 1, nil,
		[]hTensor{f32t("w", f32bytes(6, 9, 8, 5, 7), 3, 4)},
		[]hTensor{f32t("dense", nil, 3, 4)})
	m.Subgraphs[0].Tensors[0].Sparsity = &schema.SparsityParametersT{
		TraversalOrder: []int32{0, 1},
		DimMetadata: []*schema.DimensionMetadataT{
			{Format: schema.DimensionTypeDENSE, DenseSize: 3},
			{Format: schema.DimensionTypeSPARSE_CSR,
				ArraySegments: &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorUint8Vector, Value: &schema.Uint8VectorT{Values: []byte{0, 3, 3, 5}}},
				ArrayIndices:  &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorUint16Vector, Value: &schema.Uint16VectorT{Values: []uint16{0, 2, 3, 0, 3}}}},
		},
	}
	return m
}

func TestSparseConstant(t *testing.T) {
	m, err := LoadBytes(pack(sparseModel()))
	if err != nil {
		t.Fatal(err)
	}
	it, err := New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if got, want := it.Output(0).Float32s(), []float32{6, 0, 9, 8, 0, 0, 0, 0, 5, 0, 0, 7}; !slices.Equal(got, want) {
		t.Fatalf("densified %v, want %v", got, want)
	}
	// A sparse activation (no buffer) is accepted and the sparsity
	// ignored, as TFLite's parser does.
	mm := singleOpModel(schema.BuiltinOperatorRELU, 1, nil, []hTensor{f32t("x", nil, 3, 4)}, []hTensor{f32t("y", nil, 3, 4)})
	mm.Subgraphs[0].Tensors[0].Sparsity = sparseModel().Subgraphs[0].Tensors[0].Sparsity
	if err := loadAndAllocate(pack(mm)); err != nil {
		t.Fatalf("sparse activation: %v", err)
	}
}

// hugeDenseRefusal is how a [2^15, 2^15] float32 dense shape is refused:
// beyond the dense budget on 64-bit targets, while on 32-bit ones its
// byte count already overflows int.
var hugeDenseRefusal = map[bool]string{true: "overflows", false: "exceeds"}[strconv.IntSize == 32]

func TestSparseConstantHostile(t *testing.T) {
	edit := func(f func(sp *schema.SparsityParametersT, m *schema.ModelT)) []byte {
		m := sparseModel()
		f(m.Subgraphs[0].Tensors[0].Sparsity, m)
		return pack(m)
	}
	csr := func(sp *schema.SparsityParametersT) *schema.DimensionMetadataT { return sp.DimMetadata[1] }
	cases := []struct {
		name string
		b    []byte
		want []string
	}{
		{"no traversal", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) { sp.TraversalOrder = nil }), []string{"traversal_order"}},
		{"traversal repeats", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) { sp.TraversalOrder = []int32{0, 0} }), []string{"permutation"}},
		{"traversal out of range", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) { sp.TraversalOrder = []int32{0, 7} }), []string{"permutation"}},
		{"metadata missing", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) { sp.DimMetadata = sp.DimMetadata[:1] }), []string{"dim_metadata 1"}},
		{"unknown format", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) { sp.DimMetadata[0].Format = 5 }), []string{"unknown format"}},
		{"dense size", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) { sp.DimMetadata[0].DenseSize = 4 }), []string{"dense_size 4"}},
		{"no segments", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) { csr(sp).ArraySegments = nil }), []string{"array_segments"}},
		{"no indices", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) { csr(sp).ArrayIndices = nil }), []string{"array_indices"}},
		{"index past dimension", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) {
			csr(sp).ArrayIndices.Value.(*schema.Uint16VectorT).Values[2] = 4
		}), []string{"outside its dimension"}},
		{"negative index", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) {
			csr(sp).ArrayIndices = &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorInt32Vector, Value: &schema.Int32VectorT{Values: []int32{0, 2, -3, 0, 3}}}
		}), []string{"outside its dimension"}},
		{"segments decrease", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) {
			csr(sp).ArraySegments.Value.(*schema.Uint8VectorT).Values = []byte{0, 3, 2, 5}
		}), []string{"below the one before"}},
		{"segments count", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) {
			csr(sp).ArraySegments.Value.(*schema.Uint8VectorT).Values = []byte{0, 3, 5}
		}), []string{"3 segments"}},
		{"last segment", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) {
			csr(sp).ArraySegments.Value.(*schema.Uint8VectorT).Values = []byte{0, 3, 3, 9}
		}), []string{"last segment"}},
		{"values missing", edit(func(_ *schema.SparsityParametersT, m *schema.ModelT) {
			m.Buffers[1].Data = m.Buffers[1].Data[:16]
		}), []string{"describes 5 values"}},
		{"block map without blocks", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) { sp.BlockMap = []int32{0} }), []string{"block_map"}},
		{"block does not divide", edit(func(sp *schema.SparsityParametersT, _ *schema.ModelT) {
			sp.TraversalOrder, sp.BlockMap = []int32{0, 1, 2}, []int32{0}
			sp.DimMetadata = append(sp.DimMetadata, &schema.DimensionMetadataT{Format: schema.DimensionTypeDENSE, DenseSize: 2})
		}), []string{"not a multiple"}},
		{"huge dense shape", edit(func(sp *schema.SparsityParametersT, m *schema.ModelT) {
			m.Subgraphs[0].Tensors[0].Shape = []int32{1 << 15, 1 << 15}
			m.Subgraphs[0].Tensors[1].Shape = []int32{1 << 15, 1 << 15}
			sp.DimMetadata[0] = &schema.DimensionMetadataT{Format: schema.DimensionTypeSPARSE_CSR,
				ArraySegments: &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorInt32Vector, Value: &schema.Int32VectorT{Values: []int32{0, 1}}},
				ArrayIndices:  &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorInt32Vector, Value: &schema.Int32VectorT{Values: []int32{0}}}}
			sp.DimMetadata[1] = &schema.DimensionMetadataT{Format: schema.DimensionTypeSPARSE_CSR,
				ArraySegments: &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorInt32Vector, Value: &schema.Int32VectorT{Values: []int32{0, 1}}},
				ArrayIndices:  &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorInt32Vector, Value: &schema.Int32VectorT{Values: []int32{0}}}}
			m.Buffers[1].Data = f32bytes(1)
		}), []string{hugeDenseRefusal}},
		{"string type", edit(func(_ *schema.SparsityParametersT, m *schema.ModelT) {
			m.Subgraphs[0].Tensors[0].Type = schema.TensorTypeSTRING
		}), []string{"type string"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadBytes(c.b)
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range append(c.want, `"w"`) {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// FuzzSparseConstant mutates models holding sparse constants (this file's
// and the DENSIFY golden models of package ops/builtin): loading,
// allocating and invoking them must fail cleanly or succeed, never panic
// or write out of range.
//
//	go test ./interpreter -run='^$' -fuzz=FuzzSparseConstant -fuzztime=2m
func FuzzSparseConstant(f *testing.F) {
	f.Add(pack(sparseModel()))
	paths, _ := filepath.Glob(filepath.Join("..", "ops", "builtin", "testdata", "densify", "*", "model.tflite"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = loadAndAllocate(b)
	})
}

// TestSparseFullyConnected runs FULLY_CONNECTED version 8 on sparseModel's
// weights: the loader keeps the sparsity on the weights tensor, and the
// kernel's sparse float path sums the stored values only (an Inf facing
// a column that is not stored leaves the row finite, as in TFLite).
func TestSparseFullyConnected(t *testing.T) {
	sp := sparseModel().Subgraphs[0].Tensors[0].Sparsity
	m := singleOpModel(schema.BuiltinOperatorFULLY_CONNECTED, 8, nil,
		[]hTensor{f32t("x", nil, 1, 4), f32t("w", f32bytes(6, 9, 8, 5, 7), 3, 4)},
		[]hTensor{f32t("y", nil, 1, 3)})
	m.Subgraphs[0].Tensors[1].Sparsity = sp
	mm, err := LoadBytes(pack(m))
	if err != nil {
		t.Fatal(err)
	}
	it, err := New(mm, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	inf := float32(math.Inf(1))
	copy(it.Input(0).Float32s(), []float32{1, inf, 2, 3})
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if got, want := it.Output(0).Float32s(), []float32{6 + 18 + 24, 0, 5 + 21}; !slices.Equal(got, want) {
		t.Fatalf("output %v, want %v", got, want)
	}
}

// A sparse layout the loader accepts but TFLite's sparse FULLY_CONNECTED
// kernels would misread (columns outer, rows compressed) is refused by the
// kernel with an error naming it.
func TestSparseFullyConnectedRefusedLayout(t *testing.T) {
	m := singleOpModel(schema.BuiltinOperatorFULLY_CONNECTED, 8, nil,
		[]hTensor{f32t("x", nil, 1, 4), f32t("w", f32bytes(6, 5, 9, 8, 7), 3, 4)},
		[]hTensor{f32t("y", nil, 1, 3)})
	m.Subgraphs[0].Tensors[1].Sparsity = &schema.SparsityParametersT{
		TraversalOrder: []int32{1, 0},
		DimMetadata: []*schema.DimensionMetadataT{
			{Format: schema.DimensionTypeDENSE, DenseSize: 4},
			{Format: schema.DimensionTypeSPARSE_CSR,
				ArraySegments: &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorUint8Vector, Value: &schema.Uint8VectorT{Values: []byte{0, 2, 2, 3, 5}}},
				ArrayIndices:  &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorUint8Vector, Value: &schema.Uint8VectorT{Values: []byte{0, 2, 0, 0, 2}}}},
		},
	}
	mm, err := LoadBytes(pack(m))
	if err != nil {
		t.Fatal(err)
	}
	if got := mm.Subgraphs[0].Tensors[1].Sparsity; got == nil || !slices.Equal(got.TraversalOrder, []int{1, 0}) {
		t.Fatalf("loaded sparsity %+v", got)
	}
	err = loadAndAllocate(pack(m))
	if err == nil || !strings.Contains(err.Error(), "FULLY_CONNECTED") || !strings.Contains(err.Error(), "traversal") {
		t.Fatalf("error %v, want FULLY_CONNECTED refusing the traversal", err)
	}
}
