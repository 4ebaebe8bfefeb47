package builtin

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Gather is the kernel of TFLite's GATHER operator: it picks slices of
// input 0 (params) along GatherOptions.Axis at the positions held in
// input 1 (indices).
//
// With batch_dims b (negative counts from the rank of indices) and axis a
// (negative counts from the rank of params), b ≤ a, the first b dimensions
// of params and indices must match, and the output shape is
// params.shape[:a] + indices.shape[b:] + params.shape[a+1:]. Element
// [batch, outer, i, inner] of the output is params[batch, outer,
// indices[batch, i], inner].
//
// Params may be of any fixed-size element type (float32, float16, int8,
// uint8, int16, int32, int64, bool, …; strings and int4 are not
// supported); indices are int16, int32 or int64; the output has the params
// type. An index outside [0, params.shape[a]) makes Eval fail with an error
// naming it, as TFLite's kernel returns kTfLiteError ("gather index out of
// bounds"). Matches TFLite's gather.cc / reference Gather.
type Gather struct {
	batch, outer, axisSize, coords, inner int // element counts
	elem                                  int // bytes per element
}

// NewGather returns a GATHER kernel for one node.
func NewGather() ops.Kernel { return &Gather{} }

// GatherOptions is TFLite's GatherOptions. The field name Axis is read by
// reflection in package bench; keep it.
type GatherOptions struct {
	Axis      int
	BatchDims int
}

func init() {
	// Data movement and selection kernels: the version ranges TFLite
	// registers; Prepare refuses the types (int4, strings) they lack.
	register(ops.OpGather, NewGather, [2]int{1, 8})
	registerOptions(schema.BuiltinOptionsGatherOptions, decodeGatherOptions)
}

// decodeGatherOptions decodes TFLite's GatherOptions table.
func decodeGatherOptions(t ops.OptionsTable) (any, error) {
	var o schema.GatherOptions
	initTable(&o, t)
	return &GatherOptions{Axis: int(o.Axis()), BatchDims: int(o.BatchDims())}, nil
}

// Prepare validates the node and sets the output shape.
func (k *Gather) Prepare(n *ops.Node) error {
	*k = Gather{}
	var opts GatherOptions
	if o, ok := n.Options.(*GatherOptions); ok && o != nil {
		opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *GatherOptions", n.Options)
	}
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
	if err := requireType(idx, "input 1 (indices)", ops.Int32, ops.Int64, ops.Int16); err != nil {
		return err
	}
	k.elem = params.Type.Size()
	if k.elem == 0 || params.Type == ops.Int4 {
		return fmt.Errorf("input 0 (params): type %s is not supported by GATHER", params.Type)
	}
	if out.Type != params.Type {
		return fmt.Errorf("output 0: type %s differs from params type %s", out.Type, params.Type)
	}
	if _, err := numElementsChecked(params, "input 0 (params)"); err != nil {
		return err
	}
	if _, err := numElementsChecked(idx, "input 1 (indices)"); err != nil {
		return err
	}
	axis, batchDims := opts.Axis, opts.BatchDims
	if axis < 0 {
		axis += params.Rank()
	}
	if axis < 0 || axis >= params.Rank() {
		return fmt.Errorf("options: axis %d is outside params of rank %d", opts.Axis, params.Rank())
	}
	if batchDims < 0 {
		batchDims += idx.Rank()
	}
	if batchDims < 0 || batchDims > axis || batchDims > idx.Rank() {
		return fmt.Errorf("options: batch_dims %d must lie in [0, min(axis %d, indices rank %d)]", opts.BatchDims, axis, idx.Rank())
	}
	for i := 0; i < batchDims; i++ {
		if params.Shape[i] != idx.Shape[i] {
			return fmt.Errorf("input 1 (indices): batch dimension %d is %d, params has %d", i, idx.Shape[i], params.Shape[i])
		}
	}
	outShape := make([]int, 0, params.Rank()+idx.Rank()-1-batchDims)
	outShape = append(outShape, params.Shape[:axis]...)
	outShape = append(outShape, idx.Shape[batchDims:]...)
	outShape = append(outShape, params.Shape[axis+1:]...)
	if _, err := ops.ShapeElements(outShape, k.elem); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = outShape
	k.batch, k.outer, k.inner, k.coords = 1, 1, 1, 1
	for i, d := range params.Shape {
		switch {
		case i < batchDims:
			k.batch *= d
		case i < axis:
			k.outer *= d
		case i > axis:
			k.inner *= d
		}
	}
	for _, d := range idx.Shape[batchDims:] {
		k.coords *= d
	}
	k.axisSize = params.Shape[axis]
	return nil
}

// gatherIndexError is returned when an index is out of range. It is a
// value type so that reporting it does not allocate.
type gatherIndexError struct {
	pos   int
	value int64
	size  int
}

func (e gatherIndexError) Error() string {
	return fmt.Sprintf("input 1 (indices): index %d at position %d is outside [0, %d)", e.value, e.pos, e.size)
}

// Eval copies the selected slices.
func (k *Gather) Eval(n *ops.Node) error {
	params, idx, out := n.Input(0), n.Input(1), n.Output(0)
	if params == nil || idx == nil || out == nil {
		return errors.New("GATHER: input or output missing at Eval")
	}
	if err := checkData(params, idx, out); err != nil {
		return err
	}
	switch idx.Type {
	case ops.Int32:
		return gatherBytes(k, params.Data, idx.Int32s(), out.Data)
	case ops.Int64:
		return gatherBytes(k, params.Data, idx.Int64s(), out.Data)
	default:
		return gatherBytes(k, params.Data, idx.Int16s(), out.Data)
	}
}

func gatherBytes[I int16 | int32 | int64](k *Gather, src []byte, idx []I, dst []byte) error {
	// TFLite first rejects any negative index, then (in the copy loop) any
	// index at or beyond the axis size; report the same first offender.
	idx = idx[:k.batch*k.coords]
	for i, v := range idx {
		if v < 0 {
			return gatherIndexError{i, int64(v), k.axisSize}
		}
	}
	row := k.inner * k.elem
	for b := 0; b < k.batch; b++ {
		for o := 0; o < k.outer; o++ {
			base := (b*k.outer + o) * k.axisSize
			var err error
			d := (b*k.outer + o) * k.coords * row
			bi := idx[b*k.coords : (b+1)*k.coords]
			switch row {
			// An embedding row is a few dozen bytes: a copy of a fixed
			// size is a few moves, where copy's memmove call costs more
			// than the row.
			case 16:
				err = gatherFixed[I, [16]byte](k, src, bi, dst[d:], base, b*k.coords)
			case 32:
				err = gatherFixed[I, [32]byte](k, src, bi, dst[d:], base, b*k.coords)
			case 64:
				err = gatherFixed[I, [64]byte](k, src, bi, dst[d:], base, b*k.coords)
			case 128:
				err = gatherFixed[I, [128]byte](k, src, bi, dst[d:], base, b*k.coords)
			default:
				for i, v := range bi {
					if int64(v) >= int64(k.axisSize) {
						return gatherIndexError{b*k.coords + i, int64(v), k.axisSize}
					}
					s := (base + int(v)) * row
					copy(dst[d+i*row:d+(i+1)*row], src[s:s+row])
				}
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// gatherFixed is gatherBytes' inner loop for rows of exactly the size of
// R, a byte array: the rows idx (at position first on of the indices)
// of the slab starting at row base are copied to dst in turn.
func gatherFixed[I int16 | int32 | int64, R any](k *Gather, src []byte, idx []I, dst []byte, base, first int) error {
	var r R
	row := int(unsafe.Sizeof(r))
	for i, v := range idx {
		if int64(v) >= int64(k.axisSize) {
			return gatherIndexError{first + i, int64(v), k.axisSize}
		}
		s := (base + int(v)) * row
		*(*R)(unsafe.Pointer(&dst[i*row : (i+1)*row][0])) = *(*R)(unsafe.Pointer(&src[s : s+row][0]))
	}
	return nil
}
