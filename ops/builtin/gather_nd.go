package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// GatherND is the kernel of TFLite's GATHER_ND operator: it gathers slices
// of input 0 (params) addressed by the rows of input 1 (indices). With
// indices of shape [..., nd] (nd ≤ rank(params)), the output has shape
// indices.shape[:-1] + params.shape[nd:] and
//
//	out[i..., :] = params[indices[i..., 0], …, indices[i..., nd-1], :].
//
// As TFLite's gather_nd.cc, Eval fails when any index is negative
// (checked over all indices first) or at or beyond its dimension, naming
// the first offender, when params is empty but indices is not, and when
// nd is 0 with slices to gather (TFLite's kernel then finds no index data
// and refuses).
//
// Params types: float32, float16, bfloat16, int8, uint8, int16, int32,
// int64, bool, float8_e4m3fn and float8_e5m2 (copied bit for bit; TFLite's
// builtin kernel accepts float8 only in builds with its extra reference
// kernels); indices int16, int32 or int64; the output has the params
// type. Versions 1 and 3-6 of those TFLite's register.cc lists (1-6):
// version 2 (string params) is not registered.
type GatherND struct {
	slices, nd   int   // number of index rows and their length
	sliceBytes   int   // bytes of one gathered slice
	elem         int   // bytes per element
	dims, stride []int // params dimension sizes and element strides of the first nd dimensions
	paramsEmpty  bool
	noIndexData  bool
}

// NewGatherND returns a GATHER_ND kernel for one node.
func NewGatherND() ops.Kernel { return &GatherND{} }

func init() {
	register(ops.OpGatherND, NewGatherND, [2]int{1, 1}, [2]int{3, 6})
}

// Prepare validates the node and sets the output shape.
func (k *GatherND) Prepare(n *ops.Node) error {
	*k = GatherND{}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	params, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	idx, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(params, "input 0 (params)", ops.Float32, ops.Float16, ops.BFloat16, ops.Uint8, ops.Int8,
		ops.Int16, ops.Int32, ops.Int64, ops.Bool, ops.Float8E4M3FN, ops.Float8E5M2); err != nil {
		return err
	}
	if err := requireType(idx, "input 1 (indices)", ops.Int16, ops.Int32, ops.Int64); err != nil {
		return err
	}
	if out.Type != params.Type {
		return fmt.Errorf("output 0: type %s differs from params type %s", out.Type, params.Type)
	}
	pn, err := numElementsChecked(params, "input 0 (params)")
	if err != nil {
		return err
	}
	in, err := numElementsChecked(idx, "input 1 (indices)")
	if err != nil {
		return err
	}
	if params.Rank() < 1 {
		return errors.New("input 0 (params): must be at least a vector")
	}
	if idx.Rank() < 1 {
		return errors.New("input 1 (indices): must be at least a vector")
	}
	nd := idx.Shape[idx.Rank()-1]
	if nd > params.Rank() {
		return fmt.Errorf("input 1 (indices): innermost dimension %d exceeds the params rank %d", nd, params.Rank())
	}
	shape := make([]int, 0, idx.Rank()-1+params.Rank()-nd)
	shape = append(shape, idx.Shape[:idx.Rank()-1]...)
	shape = append(shape, params.Shape[nd:]...)
	if _, err := ops.ShapeElements(shape, params.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	k.nd = nd
	k.slices = 1
	for _, d := range idx.Shape[:idx.Rank()-1] {
		k.slices *= d
	}
	slice := 1
	for _, d := range params.Shape[nd:] {
		slice *= d
	}
	k.elem = params.Type.Size()
	k.sliceBytes = slice * k.elem
	k.dims = make([]int, nd)
	k.stride = make([]int, nd)
	s := slice
	for j := nd - 1; j >= 0; j-- {
		k.dims[j] = params.Shape[j]
		k.stride[j] = s
		s *= params.Shape[j]
	}
	k.paramsEmpty = pn == 0 && in > 0
	// TFLite's GatherNd fails when there are slices to gather but the
	// indices tensor holds no elements (nd 0): its data pointer is null.
	k.noIndexData = in == 0 && k.slices > 0
	return nil
}

// gatherNDIndexError reports an index outside its dimension; a value type,
// so that returning it does not allocate.
type gatherNDIndexError struct {
	pos, dim int
	value    int64
	size     int
}

func (e gatherNDIndexError) Error() string {
	if e.value < 0 {
		return fmt.Sprintf("input 1 (indices): element %d is %d; indices must not be negative", e.pos, e.value)
	}
	return fmt.Sprintf("input 1 (indices): element %d is %d, outside [0, %d) of params dimension %d", e.pos, e.value, e.size, e.dim)
}

var (
	errGatherNDEmpty     = errors.New("input 0 (params): empty, but indices are not (TFLite refuses this)")
	errGatherNDNoIndices = errors.New("input 1 (indices): rows of 0 coordinates (an empty indices tensor with slices to gather), which TFLite's kernel refuses")
)

// Eval copies the addressed slices.
func (k *GatherND) Eval(n *ops.Node) error {
	params, idx, out := n.Input(0), n.Input(1), n.Output(0)
	if params == nil || idx == nil || out == nil {
		return errors.New("GATHER_ND: input or output missing at Eval")
	}
	if err := checkData(params, idx, out); err != nil {
		return err
	}
	if k.paramsEmpty {
		return errGatherNDEmpty
	}
	if k.noIndexData {
		return errGatherNDNoIndices
	}
	switch idx.Type {
	case ops.Int16:
		return gatherND(k, params.Data, idx.Int16s()[:idx.NumElements()], out.Data)
	case ops.Int32:
		return gatherND(k, params.Data, idx.Int32s()[:idx.NumElements()], out.Data)
	default:
		return gatherND(k, params.Data, idx.Int64s()[:idx.NumElements()], out.Data)
	}
}

func gatherND[I int16 | int32 | int64](k *GatherND, src []byte, idx []I, dst []byte) error {
	// TFLite rejects a negative index anywhere before it gathers anything.
	for i, v := range idx {
		if v < 0 {
			return gatherNDIndexError{pos: i, value: int64(v)}
		}
	}
	for i := 0; i < k.slices; i++ {
		row := idx[i*k.nd : (i+1)*k.nd]
		from := 0
		for j, v := range row {
			if int64(v) >= int64(k.dims[j]) {
				return gatherNDIndexError{pos: i*k.nd + j, dim: j, value: int64(v), size: k.dims[j]}
			}
			from += int(v) * k.stride[j]
		}
		from *= k.elem
		d := i * k.sliceBytes
		copy(dst[d:d+k.sliceBytes], src[from:from+k.sliceBytes])
	}
	return nil
}
