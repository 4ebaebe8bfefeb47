package builtin

import (
	"bytes"
	"errors"
	"fmt"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
)

// ArgMinMax is the kernel of TFLite's ARG_MAX and ARG_MIN operators: the
// index of the largest (smallest) element of input 0 along the axis given
// by input 1, a constant int32 or int64 tensor of one element (negative
// counting from the end). The output has the input's shape without that
// axis and the index type of ArgMinMaxOptions.OutputType (int32 or int64).
//
// As TFLite's arg_min_max.cc: input types float32, uint8, int8, int32 and
// bool (false < true); ties give the first index, since an element
// replaces the running best only when strictly greater (smaller); the
// axis must not be empty. The operator's file (arg_max.go, arg_min.go)
// holds its constructor.
type ArgMinMax struct {
	max                    bool
	typ, outType           ops.DataType
	outer, axisSize, inner int
	// in and out are the tensors of the Eval in progress, read by
	// rowsFn (the method value evalUnits, made once) on every thread.
	in, out *ops.Tensor
	rowsFn  func(worker, lo, hi int)
}

func (k *ArgMinMax) name() string {
	if k.max {
		return "ARG_MAX"
	}
	return "ARG_MIN"
}

// Prepare validates the node and sets the output shape.
func (k *ArgMinMax) Prepare(n *ops.Node) error {
	isMax := k.max
	*k = ArgMinMax{max: isMax}
	k.rowsFn = k.evalUnits
	outType := ops.Int64 // the schema default
	if o, ok := n.Options.(*ArgMinMaxOptions); ok && o != nil {
		outType = o.OutputType
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *ArgMinMaxOptions", n.Options)
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	axisT, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Uint8, ops.Int8, ops.Int32, ops.Bool); err != nil {
		return fmt.Errorf("%v for %s", err, k.name())
	}
	if outType != ops.Int32 && outType != ops.Int64 {
		return fmt.Errorf("options: output type %s, need int32 or int64", outType)
	}
	if out.Type != outType {
		return fmt.Errorf("output 0: type %s, the options say %s", out.Type, outType)
	}
	if axisT.NumElements() != 1 || axisT.Type != ops.Int32 && axisT.Type != ops.Int64 {
		return fmt.Errorf("input 1 (axis): %s with %d elements, need one int32 or int64", axisT.Type, axisT.NumElements())
	}
	if axisT.Kind != ops.ConstTensor || len(axisT.Data) < axisT.Type.Size() {
		return ops.NotConstant("input 1 (axis)")
	}
	var ax int64
	if axisT.Type == ops.Int32 {
		ax = int64(axisT.Int32s()[0])
	} else {
		ax = axisT.Int64s()[0]
	}
	rank := int64(in.Rank())
	if ax < 0 {
		ax += rank
	}
	if rank < 1 || ax < 0 || ax >= rank {
		return fmt.Errorf("input 1 (axis): axis %d is outside an input of rank %d", ax, rank)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	a := int(ax)
	if in.Shape[a] == 0 {
		return fmt.Errorf("input 0: dimension %d (the axis) is empty", a)
	}
	k.typ, k.outType = in.Type, outType
	k.outer, k.axisSize, k.inner = 1, in.Shape[a], 1
	shape := make([]int, 0, in.Rank()-1)
	for i, d := range in.Shape {
		switch {
		case i < a:
			k.outer *= d
		case i > a:
			k.inner *= d
		}
		if i != a {
			shape = append(shape, d)
		}
	}
	out.Shape = shape
	return nil
}

// argChunk is how many positions of the inner dimensions (those after
// the axis) one unit of work scans at once, its running bests kept on the
// stack.
const argChunk = 256

// Eval finds the indices. The work is split over threads by output
// rows: one outer index and one chunk of up to argChunk inner positions
// per unit, each unit writing only its own indices.
func (k *ArgMinMax) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New(k.name() + ": input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	if k.rowsFn == nil {
		k.rowsFn = k.evalUnits
	}
	k.in, k.out = in, out
	chunks := (k.inner + argChunk - 1) / argChunk
	n.Parallel(k.outer*chunks, k.outer*k.axisSize*k.inner, k.rowsFn)
	k.in, k.out = nil, nil
	return nil
}

// evalUnits scans the units [lo, hi) (see Eval).
func (k *ArgMinMax) evalUnits(_, lo, hi int) {
	in := k.in
	switch k.typ {
	case ops.Float32:
		argUnits(k, in.Float32s(), lo, hi)
	case ops.Uint8, ops.Bool:
		// bool compares as its 0/1 bytes: false < true.
		argUnits(k, in.Data, lo, hi)
	case ops.Int8:
		argUnits(k, in.Int8s(), lo, hi)
	case ops.Int32:
		argUnits(k, in.Int32s(), lo, hi)
	}
}

// argUnits is arg_min_max.cc's loop, for the units [lo, hi): a position
// takes the first index of its best value, as the running best there is
// replaced only by a strictly greater (smaller) element. Float32 keeps
// that scan as it is, so that a NaN never replaces the best and a NaN
// in front stays the answer; for integers the first index holding the
// row's extreme is the same index, found with branch-free max/min and
// one search.
func argUnits[T float32 | uint8 | int8 | int32](k *ArgMinMax, in []T, lo, hi int) {
	var o32 []int32
	var o64 []int64
	if k.outType == ops.Int32 {
		o32 = k.out.Int32s()
	} else {
		o64 = k.out.Int64s()
	}
	axis, inner := k.axisSize, k.inner
	if inner == 1 {
		for o := lo; o < hi; o++ {
			row := in[o*axis : o*axis+axis]
			var bi int
			if k.max {
				bi = argMaxRow(row)
			} else {
				bi = argMinRow(row)
			}
			if o32 != nil {
				o32[o] = int32(bi)
			} else {
				o64[o] = int64(bi)
			}
		}
		return
	}
	chunks := (inner + argChunk - 1) / argChunk
	var best [argChunk]T
	var idx [argChunk]int32
	for u := lo; u < hi; u++ {
		o, j0 := u/chunks, u%chunks*argChunk
		w := min(argChunk, inner-j0)
		base := o*axis*inner + j0
		b, ix := best[:w], idx[:w]
		copy(b, in[base:base+w])
		clear(ix)
		for i := 1; i < axis; i++ {
			row := in[base+i*inner:][:w]
			if k.max {
				for j, v := range row {
					if v > b[j] {
						b[j], ix[j] = v, int32(i)
					}
				}
			} else {
				for j, v := range row {
					if v < b[j] {
						b[j], ix[j] = v, int32(i)
					}
				}
			}
		}
		at := o*inner + j0
		if o32 != nil {
			copy(o32[at:at+w], ix)
		} else {
			for j, v := range ix {
				o64[at+j] = int64(v)
			}
		}
	}
}

// argMaxRow is the index of the first largest element of a non-empty row
// (for float32, of the first element no later one is greater than).
func argMaxRow[T float32 | uint8 | int8 | int32](row []T) int {
	if isFloat32(row) {
		best, bi := row[0], 0
		for i := 1; i < len(row); i++ {
			if row[i] > best {
				best, bi = row[i], i
			}
		}
		return bi
	}
	m := row[0]
	for _, v := range row[1:] {
		m = max(m, v)
	}
	return firstIndex(row, m)
}

// argMinRow is argMaxRow for the smallest element.
func argMinRow[T float32 | uint8 | int8 | int32](row []T) int {
	if isFloat32(row) {
		best, bi := row[0], 0
		for i := 1; i < len(row); i++ {
			if row[i] < best {
				best, bi = row[i], i
			}
		}
		return bi
	}
	m := row[0]
	for _, v := range row[1:] {
		m = min(m, v)
	}
	return firstIndex(row, m)
}

// isFloat32 reports whether T is float32 (constant per instantiation).
func isFloat32[T float32 | uint8 | int8 | int32](_ []T) bool {
	var z T
	_, ok := any(z).(float32)
	return ok
}

// firstIndex is the index of the first element equal to v, which the row
// holds; byte rows use the vectorised bytes.IndexByte.
func firstIndex[T float32 | uint8 | int8 | int32](row []T, v T) int {
	switch r := any(row).(type) {
	case []uint8:
		return bytes.IndexByte(r, uint8(v))
	case []int8:
		return bytes.IndexByte(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(r))), len(r)), byte(v))
	}
	for i, x := range row {
		if x == v {
			return i
		}
	}
	return 0
}

// ArgMinMaxOptions is TFLite's ArgMaxOptions and ArgMinOptions
// (operators ARG_MAX and ARG_MIN): the type of the index output.
type ArgMinMaxOptions struct {
	OutputType ops.DataType
}
