package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// EmbeddingLookupSparse is the kernel of TFLite's EMBEDDING_LOOKUP_SPARSE
// operator (TensorFlow's embedding_lookup_sparse): a sparse tensor of ids
// with weights selects rows of an embedding table, and the weighted rows
// that fall in one output position are combined.
//
// Inputs: 0 ids (1-D int32, N lookups), 1 indices (int32 [N, R]: the
// position of each lookup in the sparse tensor, rows in order), 2
// dense_shape (int32 [R]), 3 weights (float32 [N]), 4 the table (float32,
// rank ≥ 2, rows along dimension 0). Output 0 (float32) has shape
// dense_shape[:R-1] + table.shape[1:]: every lookup adds weight·row into
// the output position given by its first R-1 indices, then each position
// is divided by the sum of its weights (combiner MEAN) or the square root
// of the sum of their squares (SQRTN), or kept (SUM); positions no lookup
// reaches are 0. The arithmetic is TFLite's embedding_lookup_sparse.cc in
// float32: products rounded then added in lookup order, the divisor
// float32 too. Like TFLite, a position is closed when the next lookup
// goes to another one, so lookups of one position must be consecutive (as
// a SparseTensor's ordered indices are); a later lookup returning to a
// closed position is added after its division, as there.
//
// The output is dynamic unless dense_shape is constant. Errors: an id
// outside the table's rows (as TFLite), and, where TFLite skips or writes
// out of bounds, an index outside dense_shape or a negative dense_shape
// entry. Version 1, as TFLite's register.cc.
type EmbeddingLookupSparse struct {
	combiner schema.CombinerType
	rank     int // R
	shape    []int
}

// EmbeddingLookupSparseOptions is TFLite's EmbeddingLookupSparseOptions.
type EmbeddingLookupSparseOptions struct {
	// Combiner is SUM (0), MEAN (1) or SQRTN (2).
	Combiner schema.CombinerType
}

// NewEmbeddingLookupSparse returns an EMBEDDING_LOOKUP_SPARSE kernel for
// one node.
func NewEmbeddingLookupSparse() ops.Kernel { return &EmbeddingLookupSparse{} }

func init() {
	register(ops.OpEmbeddingLookupSparse, NewEmbeddingLookupSparse, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsEmbeddingLookupSparseOptions, decodeEmbeddingLookupSparseOptions)
}

// decodeEmbeddingLookupSparseOptions decodes TFLite's
// EmbeddingLookupSparseOptions table.
func decodeEmbeddingLookupSparseOptions(t ops.OptionsTable) (any, error) {
	var o schema.EmbeddingLookupSparseOptions
	initTable(&o, t)
	return &EmbeddingLookupSparseOptions{Combiner: o.Combiner()}, nil
}

// Prepare checks the types and ranks and, for a constant dense_shape,
// sets the output shape.
func (k *EmbeddingLookupSparse) Prepare(n *ops.Node) error {
	*k = EmbeddingLookupSparse{}
	if o, ok := n.Options.(*EmbeddingLookupSparseOptions); ok && o != nil {
		k.combiner = o.Combiner
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *EmbeddingLookupSparseOptions", n.Options)
	}
	if k.combiner < schema.CombinerTypeSUM || k.combiner > schema.CombinerTypeSQRTN {
		return fmt.Errorf("options: combiner %d is not SUM, MEAN or SQRTN", k.combiner)
	}
	if err := n.CheckIO(5, 5, 1); err != nil {
		return err
	}
	var in [5]*ops.Tensor
	for i, want := range []struct {
		role string
		typ  ops.DataType
		rank int // -2: at least 2
	}{{"ids", ops.Int32, 1}, {"indices", ops.Int32, 2}, {"dense_shape", ops.Int32, 1}, {"weights", ops.Float32, 1}, {"value", ops.Float32, -2}} {
		t, err := n.RequireInput(i)
		if err != nil {
			return err
		}
		label := ioLabel("input", i, want.role)
		if t.Type != want.typ {
			return fmt.Errorf("%s: type %s, need %s", label, t.Type, want.typ)
		}
		if want.rank >= 0 && t.Rank() != want.rank || want.rank == -2 && t.Rank() < 2 {
			return fmt.Errorf("%s: shape %v has the wrong rank", label, t.Shape)
		}
		in[i] = t
	}
	ids, indices, dense, weights, value := in[0], in[1], in[2], in[3], in[4]
	if indices.Shape[0] != ids.Shape[0] || weights.Shape[0] != ids.Shape[0] {
		return fmt.Errorf("inputs: %d ids, %d index rows and %d weights; they must agree", ids.Shape[0], indices.Shape[0], weights.Shape[0])
	}
	k.rank = indices.Shape[1]
	if k.rank < 1 {
		return fmt.Errorf("input 1 (indices): shape %v, need at least one index per lookup", indices.Shape)
	}
	if dense.Shape[0] != k.rank {
		return fmt.Errorf("input 2 (dense_shape): %d entries, indices have %d", dense.Shape[0], k.rank)
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if out.Type != ops.Float32 {
		return fmt.Errorf("output 0: type %s, need float32", out.Type)
	}
	k.shape = make([]int, k.rank-1+value.Rank()-1)
	if !dense.IsConstant() {
		return n.SetOutputDynamic(0)
	}
	if err := k.outShape(dense, value); err != nil {
		return err
	}
	out.Shape = copyShape(k.shape)
	return nil
}

// outShape fills k.shape from dense_shape and the table.
func (k *EmbeddingLookupSparse) outShape(dense, value *ops.Tensor) error {
	if len(dense.Data) < 4*k.rank {
		return errShortData
	}
	for i, d := range dense.Int32s()[:k.rank-1] {
		if d < 0 {
			return fmt.Errorf("input 2 (dense_shape): entry %d is %d", i, d)
		}
		k.shape[i] = int(d)
	}
	copy(k.shape[k.rank-1:], value.Shape[1:])
	if _, err := ops.ShapeElements(k.shape, 4); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	return nil
}

// Eval sums the weighted rows into their positions.
func (k *EmbeddingLookupSparse) Eval(n *ops.Node) error {
	ids, indices, dense, weights, value, out := n.Input(0), n.Input(1), n.Input(2), n.Input(3), n.Input(4), n.Output(0)
	if ids == nil || indices == nil || dense == nil || weights == nil || value == nil || out == nil {
		return errors.New("EMBEDDING_LOOKUP_SPARSE: input or output missing at Eval")
	}
	if out.Kind == ops.DynamicTensor {
		if err := k.outShape(dense, value); err != nil {
			return err
		}
		if err := n.ResizeOutput(0, k.shape); err != nil {
			return err
		}
	}
	if err := checkData(ids, indices, dense, weights, value, out); err != nil {
		return err
	}
	rows := value.Shape[0]
	embed := 1
	for _, d := range value.Shape[1:] {
		embed *= d
	}
	o := out.Float32s()[:out.NumElements()]
	clear(o)
	table, w := value.Float32s(), weights.Float32s()
	idx, ds := indices.Int32s(), dense.Int32s()
	cur, count := 0, 0
	var total, squares float32
	for i, id := range ids.Int32s()[:ids.Shape[0]] {
		if id < 0 || int(id) >= rows {
			return fmt.Errorf("input 0 (ids): id %d of lookup %d is outside the table's %d rows", id, i, rows)
		}
		bucket, stride := 0, 1
		for d := k.rank - 2; d >= 0; d-- {
			v := idx[i*k.rank+d]
			if v < 0 || v >= ds[d] {
				return fmt.Errorf("input 1 (indices): lookup %d has index %d in dimension %d, outside dense_shape %d", i, v, d, ds[d])
			}
			bucket += int(v) * stride
			stride *= int(ds[d])
		}
		off := bucket * embed
		if off != cur {
			k.finish(o[cur:cur+embed], count, total, squares)
			cur, count, total, squares = off, 0, 0, 0
		}
		count++
		wi := w[i]
		squares += float32(wi * wi)
		total += wi
		row := table[int(id)*embed : (int(id)+1)*embed]
		dst := o[off : off+embed]
		for j, v := range row {
			dst[j] += float32(v * wi) // rounded before the add, as TFLite's
		}
	}
	if len(o) > 0 {
		k.finish(o[cur:cur+embed], count, total, squares)
	}
	return nil
}

// finish divides one position's sum by the combiner's divisor
// (TFLite's FinalizeAggregation).
func (k *EmbeddingLookupSparse) finish(dst []float32, count int, total, squares float32) {
	if k.combiner == schema.CombinerTypeSUM || count == 0 {
		return
	}
	div := total
	if k.combiner == schema.CombinerTypeSQRTN {
		div = float32(math.Sqrt(float64(squares)))
	}
	for j := range dst {
		dst[j] /= div
	}
}
