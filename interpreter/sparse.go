package interpreter

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/internal/sparse"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// densifyConstant expands the buffer of a sparse constant tensor (one
// with SparsityParameters; its buffer holds only the stored values) into
// the dense buffer of its shape, once, at load: from then on the tensor is
// an ordinary dense constant, which is what TFLite's DENSIFY kernel (and
// its sparse FULLY_CONNECTED paths) compute from it. The parameters are
// checked as TFLite's verifier checks them (package internal/sparse);
// segments and indices may be int32, uint16 or uint8 vectors, as TFLite's
// parser accepts. (parseTensor aligns the result as it aligns any
// constant.) It records the sparsity in t.Sparsity for the kernels.
func densifyConstant(t *TensorInfo, sp *schema.SparsityParameters, data []byte) ([]byte, error) {
	p, err := sparseParams(t, sp)
	if err != nil {
		return nil, err
	}
	dense, err := sparse.Densify(t.Shape, p, data, t.Type.Size())
	if err != nil {
		return nil, err
	}
	t.Sparsity = &ops.Sparsity{TraversalOrder: p.TraversalOrder, BlockMap: p.BlockMap, Levels: make([]ops.SparsityLevel, len(p.Levels))}
	for i, l := range p.Levels {
		t.Sparsity.Levels[i] = ops.SparsityLevel{Compressed: l.Format == sparse.SparseCSR, DenseSize: l.DenseSize, Segments: l.Segments, Indices: l.Indices}
	}
	return dense, nil
}

// deferDensify validates a sparse constant whose only readers are DENSIFY
// operators and leaves it stored sparse: t keeps the stored values, and
// t.densify expands them (reading the sparsity from the model's bytes
// again) when DENSIFY runs, which it does once (a precomputed output).
// Neither the dense copy nor the index vectors as ints stay resident
// beside the model, as in TFLite, whose DENSIFY kernel expands its input
// at its first Eval (densify.cc).
func deferDensify(t *TensorInfo, sp *schema.SparsityParameters, data []byte) error {
	p, err := sparseParams(t, sp)
	if err != nil {
		return err
	}
	elem := t.Type.Size()
	count, err := sparse.Count(t.Shape, p)
	if err != nil {
		return err
	}
	if len(data) != count*elem {
		return fmt.Errorf("sparsity: buffer has %d bytes, the sparsity describes %d values of %d bytes", len(data), count, elem)
	}
	if _, err := sparse.DenseBytes(t.Shape, elem); err != nil {
		return err
	}
	t.densify = func(dst, values []byte) error {
		p, err := sparseParams(t, sp)
		if err != nil {
			return err
		}
		return sparse.DensifyInto(dst, t.Shape, p, values, elem)
	}
	return nil
}

// sparseParams reads t's SparsityParameters for package internal/sparse.
func sparseParams(t *TensorInfo, sp *schema.SparsityParameters) (*sparse.Params, error) {
	elem := t.Type.Size()
	if elem == 0 || t.Type == ops.Int4 {
		return nil, fmt.Errorf("sparse tensors of type %s are not supported", t.Type)
	}
	p := &sparse.Params{
		TraversalOrder: intList(sp.TraversalOrderLength(), sp.TraversalOrder),
		BlockMap:       intList(sp.BlockMapLength(), sp.BlockMap),
		Levels:         make([]sparse.Level, sp.DimMetadataLength()),
	}
	if len(p.TraversalOrder) == 0 && len(t.Shape) > 0 {
		return nil, fmt.Errorf("sparsity parameters without a traversal_order")
	}
	var dm schema.DimensionMetadata
	for i := range p.Levels {
		sp.DimMetadata(&dm, i)
		l := &p.Levels[i]
		switch dm.Format() {
		case schema.DimensionTypeDENSE:
			l.Format = sparse.Dense
		case schema.DimensionTypeSPARSE_CSR:
			l.Format = sparse.SparseCSR
		default:
			return nil, fmt.Errorf("sparsity dimension %d has unknown format %d", i, dm.Format())
		}
		l.DenseSize = int(dm.DenseSize())
		if l.Format == sparse.Dense {
			continue
		}
		var err error
		var tab flatbuffers.Table
		if !dm.ArraySegments(&tab) {
			return nil, fmt.Errorf("sparsity dimension %d is compressed but has no array_segments", i)
		}
		if l.Segments, err = indexVector(dm.ArraySegmentsType(), tab); err != nil {
			return nil, fmt.Errorf("sparsity dimension %d: array_segments: %w", i, err)
		}
		if !dm.ArrayIndices(&tab) {
			return nil, fmt.Errorf("sparsity dimension %d is compressed but has no array_indices", i)
		}
		if l.Indices, err = indexVector(dm.ArrayIndicesType(), tab); err != nil {
			return nil, fmt.Errorf("sparsity dimension %d: array_indices: %w", i, err)
		}
	}
	return p, nil
}

// indexVector reads one SparseIndexVector union member as ints.
func indexVector(typ schema.SparseIndexVector, tab flatbuffers.Table) ([]int, error) {
	switch typ {
	case schema.SparseIndexVectorInt32Vector:
		var v schema.Int32Vector
		v.Init(tab.Bytes, tab.Pos)
		return intList(v.ValuesLength(), v.Values), nil
	case schema.SparseIndexVectorUint16Vector:
		var v schema.Uint16Vector
		v.Init(tab.Bytes, tab.Pos)
		out := make([]int, v.ValuesLength())
		for i := range out {
			out[i] = int(v.Values(i))
		}
		return out, nil
	case schema.SparseIndexVectorUint8Vector:
		var v schema.Uint8Vector
		v.Init(tab.Bytes, tab.Pos)
		out := make([]int, v.ValuesLength())
		for i := range out {
			out[i] = int(v.Values(i))
		}
		return out, nil
	}
	return nil, fmt.Errorf("index vector type %d is not Int32Vector, Uint16Vector or Uint8Vector", typ)
}

// intList copies a flatbuffer int vector of n elements (n is bounded by the
// file's size: each element takes at least two bytes of it).
func intList(n int, get func(int) int32) []int {
	l := make([]int, n)
	for i := range l {
		l[i] = int(get(i))
	}
	return l
}
