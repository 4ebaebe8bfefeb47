package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// ScatterND is the kernel of TFLite's SCATTER_ND operator: it scatters the
// slices of input 1 (updates) into a zero tensor of the shape held by
// input 2 (shape) at the positions addressed by the rows of input 0
// (indices), adding where rows repeat. With indices of shape [..., nd] and
// shape s, updates must have shape indices.shape[:-1] + s[nd:], and
//
//	out[indices[i..., 0], …, indices[i..., nd-1], :] += updates[i..., :].
//
// Additions wrap for integers (TFLite's WrappingAdd), are a logical OR for
// bool and IEEE sums in update order for float32; quantised int8 and uint8
// codes add as plain integers, as in TFLite. Eval fails when an index is
// negative or at or beyond its output dimension, naming it.
//
// Types, as TFLite's scatter_nd.cc: updates float32, int8, uint8, int32,
// int64 or bool (the output takes that type); indices and shape int32.
// TFLite sizes the output from the values of shape: tflrun needs it
// constant (else the interpreter prepares it at Invoke). Version 1, as TFLite's
// register.cc.
type ScatterND struct {
	typ        ops.DataType
	slices, nd int
	slice      int   // elements per slice
	dims       []int // output dimension sizes of the first nd dimensions
	stride     []int // their element strides
	count      int   // output elements
}

// NewScatterND returns a SCATTER_ND kernel for one node.
func NewScatterND() ops.Kernel { return &ScatterND{} }

func init() {
	register(ops.OpScatterND, NewScatterND, [2]int{1, 1})
}

// Prepare validates the node and sets the output shape from input 2.
func (k *ScatterND) Prepare(n *ops.Node) error {
	*k = ScatterND{}
	if err := n.CheckIO(3, 3, 1); err != nil {
		return err
	}
	idx, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	upd, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	st, err := n.RequireInput(2)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(upd, "input 1 (updates)", ops.Float32, ops.Uint8, ops.Bool, ops.Int8, ops.Int64, ops.Int32); err != nil {
		return err
	}
	if idx.Type != st.Type {
		return fmt.Errorf("input 2 (shape): type %s differs from the indices type %s", st.Type, idx.Type)
	}
	if err := requireType(idx, "input 0 (indices)", ops.Int32); err != nil {
		return err
	}
	if out.Type != upd.Type {
		return fmt.Errorf("output 0: type %s differs from updates type %s", out.Type, upd.Type)
	}
	if _, err := numElementsChecked(idx, "input 0 (indices)"); err != nil {
		return err
	}
	if _, err := numElementsChecked(upd, "input 1 (updates)"); err != nil {
		return err
	}
	shapeVals, err := constInts(st, 2, "shape", false)
	if err != nil {
		return err
	}
	if idx.Rank() < 1 || upd.Rank() < 1 || st.Rank() != 1 {
		return fmt.Errorf("indices (shape %v) and updates (shape %v) need rank ≥ 1 and shape (shape %v) rank 1", idx.Shape, upd.Shape, st.Shape)
	}
	outer := idx.Rank() - 1
	if upd.Rank() < outer {
		return fmt.Errorf("input 1 (updates): shape %v, its leading dimensions must be the indices' %v", upd.Shape, idx.Shape[:outer])
	}
	for i := 0; i < outer; i++ {
		if idx.Shape[i] != upd.Shape[i] {
			return fmt.Errorf("input 1 (updates): dimension %d is %d, indices have %d", i, upd.Shape[i], idx.Shape[i])
		}
	}
	nd := idx.Shape[outer]
	if upd.Rank()-outer != len(shapeVals)-nd {
		return fmt.Errorf("input 1 (updates): rank %d, need %d (indices %v into shape %v)", upd.Rank(), outer+len(shapeVals)-nd, idx.Shape, shapeVals)
	}
	for i := 0; outer+i < upd.Rank(); i++ {
		if int64(upd.Shape[outer+i]) != shapeVals[nd+i] {
			return fmt.Errorf("input 1 (updates): dimension %d is %d, the output's is %d", outer+i, upd.Shape[outer+i], shapeVals[nd+i])
		}
	}
	shape := make([]int, len(shapeVals))
	for i, v := range shapeVals {
		if v < 0 || v > 1<<31-1 {
			return fmt.Errorf("input 2 (shape): entry %d is %d; sizes must be in [0, 2^31)", i, v)
		}
		shape[i] = int(v)
	}
	if k.count, err = ops.ShapeElements(shape, upd.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	k.typ = upd.Type
	k.nd = nd
	k.slices = 1
	for _, d := range idx.Shape[:outer] {
		k.slices *= d
	}
	k.slice = 1
	for _, d := range upd.Shape[outer:] {
		k.slice *= d
	}
	k.dims = make([]int, nd)
	k.stride = make([]int, nd)
	s := k.slice
	for j := nd - 1; j >= 0; j-- {
		k.dims[j] = shape[j]
		k.stride[j] = s
		s *= shape[j]
	}
	return nil
}

// scatterNDIndexError reports an index outside its output dimension; a
// value type, so that returning it does not allocate.
type scatterNDIndexError struct {
	pos, dim int
	value    int32
	size     int
}

func (e scatterNDIndexError) Error() string {
	return fmt.Sprintf("input 0 (indices): element %d is %d, outside [0, %d) of output dimension %d", e.pos, e.value, e.size, e.dim)
}

// Eval zeroes the output and adds every update slice at its position.
func (k *ScatterND) Eval(n *ops.Node) error {
	idx, upd, out := n.Input(0), n.Input(1), n.Output(0)
	if idx == nil || upd == nil || out == nil {
		return errors.New("SCATTER_ND: input or output missing at Eval")
	}
	if err := checkData(idx, upd, out); err != nil {
		return err
	}
	ix := idx.Int32s()[:k.slices*k.nd]
	switch k.typ {
	case ops.Float32:
		return scatterND(k, ix, upd.Float32s(), out.Float32s(), false)
	case ops.Int32:
		return scatterND(k, ix, upd.Int32s(), out.Int32s(), false)
	case ops.Int64:
		return scatterND(k, ix, upd.Int64s(), out.Int64s(), false)
	case ops.Int8:
		return scatterND(k, ix, upd.Int8s(), out.Int8s(), false)
	case ops.Uint8:
		return scatterND(k, ix, upd.Uint8s(), out.Uint8s(), false)
	default: // Bool, as its 0/1 bytes: a sum of bools is their OR
		return scatterND(k, ix, upd.Data, out.Data, true)
	}
}

// scatterND adds the update slices with + (Go's integer + wraps, as
// TFLite's WrappingAdd), or ORs them (bool bytes, or set).
func scatterND[T float32 | int8 | uint8 | int32 | int64](k *ScatterND, idx []int32, upd, out []T, or bool) error {
	out = out[:k.count]
	clear(out)
	for i := 0; i < k.slices; i++ {
		to := 0
		for j, v := range idx[i*k.nd : (i+1)*k.nd] {
			if v < 0 || int(v) >= k.dims[j] {
				// TFLite stops at the first bad row, leaving what it
				// has written so far; the error matters, not the
				// partial output.
				return scatterNDIndexError{pos: i*k.nd + j, dim: j, value: v, size: k.dims[j]}
			}
			to += int(v) * k.stride[j]
		}
		dst := out[to : to+k.slice]
		src := upd[i*k.slice : (i+1)*k.slice]
		if or {
			// Bytes of 0 and 1: their sum is 0, 1 or 2, nonzero where the OR is.
			for e := range dst {
				if src[e] != 0 {
					dst[e] = 1
				}
			}
			continue
		}
		for e := range dst {
			dst[e] += src[e]
		}
	}
	return nil
}
