package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// SparseToDense is the kernel of TFLite's SPARSE_TO_DENSE operator: an
// output of the shape held by input 1 (output_shape, at most 4 sizes)
// filled with input 3 (default_value, one element), then, for every row of
// input 0 (sparse_indices), the element that row addresses set to the
// matching element of input 2 (values) — or to its only element when
// values is a scalar. Later rows overwrite earlier ones. sparse_indices is
// a scalar or vector of positions when the output has rank 1, or a matrix
// [count, rank] of coordinates. As TFLite's reference SparseToDense, Eval
// fails on an index outside the output (having written the rows before
// it); validate_indices is ignored, as in TFLite.
//
// Types, as TFLite's sparse_to_dense.cc: values and default_value float32,
// int32, int64, int8 or uint8 (the output takes their type); indices and
// output_shape int32 or int64. TFLite sizes the output from output_shape's
// values: tflrun needs it constant (dynamic tensors are not supported
// yet). Versions 1-3, as TFLite's register.cc (2: int64 values, 3: int8
// and uint8).
type SparseToDense struct {
	count      int    // output elements
	rows, rank int    // index rows and coordinates per row
	dims       [4]int // output shape (rank entries)
	scalar     bool   // values is a scalar
	elem       int
	idx64      bool
}

// SparseToDenseOptions is TFLite's SparseToDenseOptions (validate_indices
// is not used by TFLite's kernel).
type SparseToDenseOptions struct {
	ValidateIndices bool
}

// NewSparseToDense returns a SPARSE_TO_DENSE kernel for one node.
func NewSparseToDense() ops.Kernel { return &SparseToDense{} }

func init() {
	register(ops.OpSparseToDense, NewSparseToDense, [2]int{1, 3})
	registerOptions(schema.BuiltinOptionsSparseToDenseOptions, decodeSparseToDenseOptions)
}

// decodeSparseToDenseOptions decodes TFLite's SparseToDenseOptions table.
func decodeSparseToDenseOptions(t ops.OptionsTable) (any, error) {
	var o schema.SparseToDenseOptions
	initTable(&o, t)
	return &SparseToDenseOptions{ValidateIndices: o.ValidateIndices()}, nil
}

// Prepare validates the node and sets the output shape from input 1.
func (k *SparseToDense) Prepare(n *ops.Node) error {
	*k = SparseToDense{}
	if o, ok := n.Options.(*SparseToDenseOptions); !ok && n.Options != nil || ok && o == nil {
		return fmt.Errorf("options: have %T, need *SparseToDenseOptions", n.Options)
	}
	if err := n.CheckIO(4, 4, 1); err != nil {
		return err
	}
	var ts [4]*ops.Tensor
	for i := range ts {
		t, err := n.RequireInput(i)
		if err != nil {
			return err
		}
		ts[i] = t
	}
	idx, shp, vals, def := ts[0], ts[1], ts[2], ts[3]
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if idx.Rank() > 2 {
		return fmt.Errorf("input 0 (sparse_indices): rank %d, need at most 2", idx.Rank())
	}
	if shp.Rank() != 1 {
		return fmt.Errorf("input 1 (output_shape): shape %v, need a vector", shp.Shape)
	}
	if vals.Rank() > 1 {
		return fmt.Errorf("input 2 (values): rank %d, need at most 1", vals.Rank())
	}
	if def.NumElements() != 1 {
		return fmt.Errorf("input 3 (default_value): shape %v, need one element", def.Shape)
	}
	if err := requireType(idx, "input 0 (sparse_indices)", ops.Int32, ops.Int64); err != nil {
		return err
	}
	if err := requireType(shp, "input 1 (output_shape)", ops.Int32, ops.Int64); err != nil {
		return err
	}
	if err := requireType(vals, "input 2 (values)", ops.Int32, ops.Int64, ops.Int8, ops.Uint8, ops.Float32); err != nil {
		return err
	}
	if def.Type != vals.Type {
		return fmt.Errorf("input 3 (default_value): type %s differs from values type %s", def.Type, vals.Type)
	}
	if out.Type != vals.Type {
		return fmt.Errorf("output 0: type %s differs from values type %s", out.Type, vals.Type)
	}
	ni, err := numElementsChecked(idx, "input 0 (sparse_indices)")
	if err != nil {
		return err
	}
	nv, err := numElementsChecked(vals, "input 2 (values)")
	if err != nil {
		return err
	}
	outRank := shp.Shape[0]
	if idx.Rank() < 2 {
		if vals.Rank() != 0 && ni != nv {
			return fmt.Errorf("input 2 (values): %d values for %d indices", nv, ni)
		}
		if outRank != 1 {
			return fmt.Errorf("input 1 (output_shape): %d sizes, need 1 for indices of rank %d", outRank, idx.Rank())
		}
		k.rows, k.rank = ni, 1
	} else {
		if idx.Shape[1] != outRank {
			return fmt.Errorf("input 0 (sparse_indices): rows of %d coordinates for an output of rank %d", idx.Shape[1], outRank)
		}
		if vals.Rank() != 0 && idx.Shape[0] != nv {
			return fmt.Errorf("input 2 (values): %d values for %d indices", nv, idx.Shape[0])
		}
		k.rows, k.rank = idx.Shape[0], idx.Shape[1]
	}
	sv, err := constInts(shp, 1, "output_shape", true)
	if err != nil {
		return err
	}
	// TFLite's reference kernel views the output as 4-D.
	if len(sv) > 4 {
		return fmt.Errorf("input 1 (output_shape): %d sizes, at most 4 are supported", len(sv))
	}
	shape := make([]int, len(sv))
	for i, d := range sv {
		if d < 0 || d > 1<<31-1 {
			return fmt.Errorf("input 1 (output_shape): entry %d is %d; sizes must be in [0, 2^31)", i, d)
		}
		shape[i] = int(d)
		k.dims[i] = int(d)
	}
	if k.count, err = ops.ShapeElements(shape, vals.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	k.scalar = vals.Rank() == 0
	k.elem = vals.Type.Size()
	k.idx64 = idx.Type == ops.Int64
	return nil
}

// sparseToDenseIndexError reports an index row outside the output; a value
// type, so that returning it does not allocate.
type sparseToDenseIndexError struct {
	row, coord int
	value      int64
	size       int
}

func (e sparseToDenseIndexError) Error() string {
	return fmt.Sprintf("input 0 (sparse_indices): row %d coordinate %d is %d, outside [0, %d)", e.row, e.coord, e.value, e.size)
}

// Eval fills the default and writes the values.
func (k *SparseToDense) Eval(n *ops.Node) error {
	idx, vals, def, out := n.Input(0), n.Input(2), n.Input(3), n.Output(0)
	if idx == nil || vals == nil || def == nil || out == nil {
		return errors.New("SPARSE_TO_DENSE: input or output missing at Eval")
	}
	if err := checkData(idx, vals, def, out); err != nil {
		return err
	}
	e := k.elem
	dst := out.Data[:k.count*e]
	dv := def.Data[:e]
	for o := 0; o < len(dst); o += e {
		copy(dst[o:o+e], dv)
	}
	for r := 0; r < k.rows; r++ {
		at := 0
		for c := 0; c < k.rank; c++ {
			var v int64
			if k.idx64 {
				v = idx.Int64s()[r*k.rank+c]
			} else {
				v = int64(idx.Int32s()[r*k.rank+c])
			}
			if v < 0 || v >= int64(k.dims[c]) {
				return sparseToDenseIndexError{r, c, v, k.dims[c]}
			}
			at = at*k.dims[c] + int(v)
		}
		src := 0
		if !k.scalar {
			src = r * e
		}
		copy(dst[at*e:at*e+e], vals.Data[src:src+e])
	}
	return nil
}
