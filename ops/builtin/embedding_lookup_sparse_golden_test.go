package builtin_test

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// EMBEDDING_LOOKUP_SPARSE against TensorFlow Lite's outputs (builtin
// kernel), bit for bit (testdata/embedding_lookup_sparse): constant ids,
// indices (consecutive lookups per position, positions skipped) and
// dense shape, random weights and table, each combiner.

func int32Bytes(v ...int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func embeddingLookupSparseModel(c schema.CombinerType) []byte {
	// 7 lookups into a [6, 3, 5] table, positions of a [4, 3] sparse
	// tensor: (0,0) (0,2) | (1,1) | (3,0) (3,1) (3,2) (3,2).
	ids := []int32{5, 0, 3, 3, 1, 2, 4}
	idx := []int32{0, 0, 0, 2, 1, 1, 3, 0, 3, 1, 3, 2, 3, 2}
	b := optest.NewBuilder()
	tIDs := b.Const("ids", schema.TensorTypeINT32, []int32{7}, nil, int32Bytes(ids...))
	tIdx := b.Const("indices", schema.TensorTypeINT32, []int32{7, 2}, nil, int32Bytes(idx...))
	tShape := b.Const("dense_shape", schema.TensorTypeINT32, []int32{2}, nil, int32Bytes(4, 3))
	w := b.Tensor("weights", schema.TensorTypeFLOAT32, []int32{7}, nil)
	v := b.Tensor("value", schema.TensorTypeFLOAT32, []int32{6, 3, 5}, nil)
	y := b.Tensor("output", schema.TensorTypeFLOAT32, []int32{4, 3, 5}, nil)
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsEmbeddingLookupSparseOptions, Value: &schema.EmbeddingLookupSparseOptionsT{Combiner: c}}
	return goldSingleOp(b, schema.BuiltinOperatorEMBEDDING_LOOKUP_SPARSE, 1, []int32{tIDs, tIdx, tShape, w, v}, []int32{y}, []int32{w, v}, opts)
}

func embeddingLookupSparseGen(r *rand.Rand, _ int, _ ops.DataType) float64 {
	return 4*r.Float64() - 1
}

func embeddingLookupSparseVariants() []goldVariant {
	exact := optest.Case{Exact: true}
	var vs []goldVariant
	for _, c := range []schema.CombinerType{schema.CombinerTypeSUM, schema.CombinerTypeMEAN, schema.CombinerTypeSQRTN} {
		c := c
		vs = append(vs, goldVariant{name: schema.EnumNamesCombinerType[c], model: func() []byte { return embeddingLookupSparseModel(c) }, gen: embeddingLookupSparseGen, tol: exact})
	}
	return vs
}

func TestRecordEmbeddingLookupSparseGolden(t *testing.T) {
	goldRecord(t, "embedding_lookup_sparse", 7000, embeddingLookupSparseVariants())
}

func TestEmbeddingLookupSparseGolden(t *testing.T) {
	goldCheckOrSmoke(t, "embedding_lookup_sparse", embeddingLookupSparseVariants())
}
