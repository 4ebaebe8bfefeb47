package builtin_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/internal/sparse"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of DENSIFY and of sparse constants: float32, float16 and
// int8 weights stored with SparsityParameters in the layouts TensorFlow's
// converter writes (compressed rows, 1×4 and 2×2 blocks, a permuted
// traversal) with int32, uint16 and uint8 index vectors, and the chain
// MediaPipe's sparse detectors use: DENSIFY (float16) → DEQUANTIZE →
// CONV_2D.

// sparseLayout is how one constant is stored.
type sparseLayout struct {
	traversal, blockMap, blockSizes []int
	formats                         []sparse.Format
	index                           schema.SparseIndexVector
}

// indexVector packs ints into the union member of the given type.
func indexVector(typ schema.SparseIndexVector, v []int) *schema.SparseIndexVectorT {
	switch typ {
	case schema.SparseIndexVectorUint16Vector:
		out := make([]uint16, len(v))
		for i, x := range v {
			out[i] = uint16(x)
		}
		return &schema.SparseIndexVectorT{Type: typ, Value: &schema.Uint16VectorT{Values: out}}
	case schema.SparseIndexVectorUint8Vector:
		out := make([]byte, len(v))
		for i, x := range v {
			out[i] = byte(x)
		}
		return &schema.SparseIndexVectorT{Type: typ, Value: &schema.Uint8VectorT{Values: out}}
	}
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return &schema.SparseIndexVectorT{Type: schema.SparseIndexVectorInt32Vector, Value: &schema.Int32VectorT{Values: out}}
}

// sparseConst adds a constant stored sparsely: dense holds elem-byte
// values of the dense shape.
func sparseConst(b *optest.Builder, name string, typ schema.TensorType, shape []int32, q *optest.Quant, dense []byte, elem int, l sparseLayout) int32 {
	ishape := make([]int, len(shape))
	for i, d := range shape {
		ishape[i] = int(d)
	}
	p, values, err := sparse.Compress(ishape, l.traversal, l.blockMap, l.blockSizes, l.formats, dense, elem)
	if err != nil {
		panic(err)
	}
	t := b.Const(name, typ, shape, q, values)
	sp := &schema.SparsityParametersT{}
	for _, x := range p.TraversalOrder {
		sp.TraversalOrder = append(sp.TraversalOrder, int32(x))
	}
	for _, x := range p.BlockMap {
		sp.BlockMap = append(sp.BlockMap, int32(x))
	}
	for _, lv := range p.Levels {
		dm := &schema.DimensionMetadataT{Format: schema.DimensionType(lv.Format), DenseSize: int32(lv.DenseSize)}
		if lv.Format == sparse.SparseCSR {
			dm.DenseSize = 0
			dm.ArraySegments = indexVector(l.index, lv.Segments)
			dm.ArrayIndices = indexVector(l.index, lv.Indices)
		}
		sp.DimMetadata = append(sp.DimMetadata, dm)
	}
	b.Model().Subgraphs[0].Tensors[t].Sparsity = sp
	return t
}

// sparseValues draws a dense tensor of n values with about density of
// them non-zero, as elem-byte little-endian values of the type (float32
// in [-1, 1), float16 steps of 1/64, int8 codes).
func sparseValues(r *rand.Rand, n int, typ schema.TensorType, density float64) ([]byte, int) {
	elem := map[schema.TensorType]int{schema.TensorTypeFLOAT32: 4, schema.TensorTypeFLOAT16: 2, schema.TensorTypeINT8: 1}[typ]
	out := make([]byte, n*elem)
	for i := 0; i < n; i++ {
		if r.Float64() >= density {
			continue
		}
		switch typ {
		case schema.TensorTypeFLOAT32:
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(2*r.Float64()-1)))
		case schema.TensorTypeFLOAT16:
			v := float32(r.IntN(127)-63) / 64
			if v == 0 {
				v = 1.0 / 64
			}
			binary.LittleEndian.PutUint16(out[2*i:], halfBits(v))
		case schema.TensorTypeINT8:
			v := byte(r.IntN(255) - 127)
			if v == 0 {
				v = 1
			}
			out[i] = v
		}
	}
	return out, elem
}

// halfBits is the binary16 encoding of a value float16 holds exactly
// (a multiple of 2^-10 in magnitude below 1, as drawn here).
func halfBits(v float32) uint16 {
	b := math.Float32bits(v)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	return sign | uint16(exp)<<10 | uint16(b>>13&0x3ff)
}

// densifyModel is a sparse constant through DENSIFY, the model's only
// output (the model has no inputs).
func densifyModel(typ schema.TensorType, shape []int32, density float64, l sparseLayout, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 5))
	n := 1
	for _, d := range shape {
		n *= int(d)
	}
	dense, elem := sparseValues(r, n, typ, density)
	var q *optest.Quant
	if typ == schema.TensorTypeINT8 {
		q = optest.PerTensor(0.02, 0)
	}
	b := optest.NewBuilder()
	w := sparseConst(b, "weights", typ, shape, q, dense, elem, l)
	out := b.Tensor("dense", typ, shape, q)
	b.Op(schema.BuiltinOperatorDENSIFY, 1, []int32{w}, []int32{out}, nil)
	b.Outputs(out)
	return b.Bytes()
}

// sparseConvModel is MediaPipe's chain: a float16 OHWI filter stored
// sparsely, DENSIFY, DEQUANTIZE to float32, then CONV_2D of the input.
func sparseConvModel(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 6))
	filterShape := []int32{6, 3, 3, 5}
	dense, elem := sparseValues(r, 6*3*3*5, schema.TensorTypeFLOAT16, 0.4)
	b := optest.NewBuilder()
	f16, f32 := schema.TensorTypeFLOAT16, schema.TensorTypeFLOAT32
	w := sparseConst(b, "filter_f16", f16, filterShape, nil, dense, elem, sparseLayout{
		traversal: []int{0, 1, 2, 3}, formats: []sparse.Format{sparse.Dense, sparse.Dense, sparse.Dense, sparse.SparseCSR},
		index: schema.SparseIndexVectorUint8Vector})
	wd := b.Tensor("filter_dense", f16, filterShape, nil)
	b.Op(schema.BuiltinOperatorDENSIFY, 1, []int32{w}, []int32{wd}, nil)
	wf := b.Tensor("filter", f32, filterShape, nil)
	b.Op(schema.BuiltinOperatorDEQUANTIZE, 3, []int32{wd}, []int32{wf}, nil)
	bias := make([]float32, 6)
	for i := range bias {
		bias[i] = float32(r.Float64() - 0.5)
	}
	bi := b.Const("bias", f32, []int32{6}, nil, optest.F32(bias...))
	x := b.Tensor("x", f32, []int32{1, 7, 6, 5}, nil)
	y := b.Tensor("y", f32, []int32{1, 5, 4, 6}, nil)
	b.Op(schema.BuiltinOperatorCONV_2D, 1, []int32{x, wf, bi}, []int32{y}, &schema.BuiltinOptionsT{
		Type: schema.BuiltinOptionsConv2DOptions, Value: &schema.Conv2DOptionsT{Padding: schema.PaddingVALID,
			StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1}})
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

func densifyCases() []goldenModel {
	f32, f16, i8 := schema.TensorTypeFLOAT32, schema.TensorTypeFLOAT16, schema.TensorTypeINT8
	D, S := sparse.Dense, sparse.SparseCSR
	return []goldenModel{
		{variant: "f32_csr_rows", runs: 1, model: densifyModel(f32, []int32{6, 8}, 0.3, sparseLayout{
			traversal: []int{0, 1}, formats: []sparse.Format{D, S}, index: schema.SparseIndexVectorInt32Vector}, 1)},
		{variant: "f32_block_1x4", runs: 1, model: densifyModel(f32, []int32{4, 16}, 0.2, sparseLayout{
			traversal: []int{0, 1, 2}, blockMap: []int{1}, blockSizes: []int{4}, formats: []sparse.Format{D, S, D},
			index: schema.SparseIndexVectorUint8Vector}, 2)},
		{variant: "f32_block_2x2", runs: 1, model: densifyModel(f32, []int32{4, 6}, 0.3, sparseLayout{
			traversal: []int{0, 1, 2, 3}, blockMap: []int{0, 1}, blockSizes: []int{2, 2}, formats: []sparse.Format{D, S, D, D},
			index: schema.SparseIndexVectorInt32Vector}, 3)},
		{variant: "f16_conv_filter", runs: 1, model: densifyModel(f16, []int32{4, 3, 3, 8}, 0.35, sparseLayout{
			traversal: []int{0, 1, 2, 3}, formats: []sparse.Format{D, D, D, S}, index: schema.SparseIndexVectorUint16Vector}, 4)},
		{variant: "int8_permuted_both_sparse", runs: 1, model: densifyModel(i8, []int32{5, 7}, 0.4, sparseLayout{
			traversal: []int{1, 0}, formats: []sparse.Format{S, S}, index: schema.SparseIndexVectorUint8Vector}, 5)},
		{variant: "f16_densify_dequantize_conv", model: sparseConvModel(6)},
	}
}

func TestRecordDensify(t *testing.T) { recordGoldenFrom(t, "densify", densifyCases(), 7) }
func TestGoldenDensify(t *testing.T) { checkGolden(t, "densify") }
