package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SLICE: TFLite's vectors (slice_test.cc), index references over
// random shapes, and errors.

func TestSlice(t *testing.T) {
	out := runOut(t, NewSlice(), nil, []*ops.Tensor{tensorOf(ops.Float32, []int{4}, []float32{1, 2, 3, 4}), c32(1), c32(2)}, outTensor(ops.Float32))
	wantShape(t, out.Shape, []int{2})
	nearFloats(t, "In1D", out.Float32s(), []float64{2, 3}, 0)
	out = runOut(t, NewSlice(), nil, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 3}, []float32{1, 2, 3, 4, 5, 6}), c32(1, 0), c32(1, 2)}, outTensor(ops.Float32))
	wantShape(t, out.Shape, []int{1, 2})
	nearFloats(t, "In2D", out.Float32s(), []float64{4, 5}, 0)
	in := func() *ops.Tensor {
		return tensorOf(ops.Int32, []int{3, 2, 3, 1}, []int32{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6})
	}
	equalInts(t, "InputInteger1", runOut(t, NewSlice(), nil, []*ops.Tensor{in(), c32(1, 0, 0, 0), c32(1, 1, 3, 1)}, outTensor(ops.Int32)).Int32s(), []int{3, 3, 3})
	equalInts(t, "InputInteger2", runOut(t, NewSlice(), nil, []*ops.Tensor{in(), c32(1, 0, 0, 0), c32(1, 2, 3, 1)}, outTensor(ops.Int32)).Int32s(), []int{3, 3, 3, 4, 4, 4})
	equalInts(t, "InputInteger3", runOut(t, NewSlice(), nil, []*ops.Tensor{in(), c32(1, 0, 0, 0), c32(2, 1, 3, 1)}, outTensor(ops.Int32)).Int32s(), []int{3, 3, 3, 5, 5, 5})
	equalInts(t, "SizeMinus1", runOut(t, NewSlice(), nil, []*ops.Tensor{in(), c32(1, 0, 0, 0), c32(2, 1, -1, 1)}, outTensor(ops.Int32)).Int32s(), []int{3, 3, 3, 5, 5, 5})
	equalInts(t, "BeginNonZeroSizeMinus1Axis1", runOut(t, NewSlice(), nil, []*ops.Tensor{in(), c32(1, 1, 0, 0), c32(2, -1, 1, 1)}, outTensor(ops.Int32)).Int32s(), []int{4, 6})
	i64 := func(v ...int64) *ops.Tensor { return constT(tensorOf(ops.Int64, []int{len(v)}, v)) }
	equalInts(t, "IndexInt64", runOut(t, NewSlice(), nil, []*ops.Tensor{in(), i64(1, 0, 0, 0), i64(2, 1, 3, 1)}, outTensor(ops.Int32)).Int32s(), []int{3, 3, 3, 5, 5, 5})
	// Errors.
	f := tensorOf(ops.Float32, []int{4}, []float32{1, 2, 3, 4})
	wantPrepareError(t, NewSlice(), node(nil, []*ops.Tensor{f, c32(3), c32(2)}, outTensor(ops.Float32)), "size")
	wantPrepareError(t, NewSlice(), node(nil, []*ops.Tensor{f, c32(-1), c32(2)}, outTensor(ops.Float32)), "begin")
	wantPrepareError(t, NewSlice(), node(nil, []*ops.Tensor{f, c32(0, 0), c32(1, 1)}, outTensor(ops.Float32)), "elements")
	wantPrepareError(t, NewSlice(), node(nil, []*ops.Tensor{f, tensorOf(ops.Int32, []int{1}, []int32{0}), c32(1)}, outTensor(ops.Float32)), "constant")
}

// TestSliceRandomShapes checks SLICE against an element-by-element index
// computation over random shapes of rank 1 to 5, begins and sizes, for
// 1- and 4-byte elements (rows from 1 to 40 bytes take copyRuns'
// fixed-size moves and its copy loop).
func TestSliceRandomShapes(t *testing.T) {
	r := lcg(77)
	for trial := range 300 {
		rank := 1 + trial%5
		shape, begin, size := make([]int, rank), make([]int32, rank), make([]int32, rank)
		for d := range shape {
			shape[d] = 1 + int(r.next()%6)
			b := int(r.next() % uint32(shape[d]))
			begin[d], size[d] = int32(b), int32(1+int(r.next()%uint32(shape[d]-b)))
		}
		typ := []ops.DataType{ops.Int8, ops.Float32}[trial%2]
		eb := typ.Size()
		data := make([]byte, prod(shape)*eb)
		for i := range data {
			data[i] = byte(i*7 + trial)
		}
		in := &ops.Tensor{Type: typ, Shape: shape, Data: data}
		out := runOut(t, NewSlice(), nil, []*ops.Tensor{in, c32(begin...), c32(size...)}, outTensor(typ))
		osh := make([]int, rank)
		for d := range osh {
			osh[d] = int(size[d])
		}
		var want []byte
		forEach(osh, func(idx []int) {
			off := 0
			for d := range idx {
				off = off*shape[d] + idx[d] + int(begin[d])
			}
			want = append(want, data[off*eb:(off+1)*eb]...)
		})
		if string(out.Data) != string(want) {
			t.Fatalf("trial %d: slice of %v at %v size %v (%s) differs", trial, shape, begin, size, typ)
		}
	}
}
