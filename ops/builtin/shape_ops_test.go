package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SLICE, TILE, BROADCAST_TO, FILL, SHAPE, ZEROS_LIKE, SELECT and
// SELECT_V2: TFLite's vectors (slice_test.cc, tile_test.cc,
// broadcast_to_test.cc, fill_test.cc, shape_test.cc, zeros_like_test.cc,
// select_test.cc), index references over random shapes, and errors.

func c32(v ...int32) *ops.Tensor { return constT(tensorOf(ops.Int32, []int{len(v)}, v)) }

func runOut(t *testing.T, k ops.Kernel, opts any, ins []*ops.Tensor, out *ops.Tensor) *ops.Tensor {
	t.Helper()
	n := node(opts, ins, out)
	run(t, k, n)
	noAllocs(t, k, n)
	return n.Outputs[0]
}

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

// tileReference computes TILE / BROADCAST_TO by index arithmetic.
func tileReference(in []float32, inShape, outShape []int) []float64 {
	var out []float64
	forEach(outShape, func(idx []int) {
		src := make([]int, len(idx))
		for d := range idx {
			src[d] = idx[d] % inShape[d]
		}
		out = append(out, float64(in[index(inShape, src)]))
	})
	return out
}

func TestTileAndBroadcastTo(t *testing.T) {
	out := runOut(t, NewTile(), nil, []*ops.Tensor{tensorOf(ops.Float32, []int{3}, []float32{1, 2, 3}), c32(2)}, outTensor(ops.Float32))
	nearFloats(t, "Float32Vector", out.Float32s(), []float64{1, 2, 3, 1, 2, 3}, 0)
	m := []float32{11, 12, 13, 21, 22, 23}
	out = runOut(t, NewTile(), nil, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 3}, m), c32(2, 1)}, outTensor(ops.Float32))
	wantShape(t, out.Shape, []int{4, 3})
	nearFloats(t, "Float32Matrix", out.Float32s(), []float64{11, 12, 13, 21, 22, 23, 11, 12, 13, 21, 22, 23}, 0)
	out = runOut(t, NewTile(), nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 3}, m), constT(tensorOf(ops.Int64, []int{3}, []int64{2, 3, 1}))}, outTensor(ops.Float32))
	wantShape(t, out.Shape, []int{2, 6, 3})
	nearFloats(t, "Float32HighDimension", out.Float32s(), tileReference(m, []int{1, 2, 3}, []int{2, 6, 3}), 0)
	r := lcg(5)
	for trial := 0; trial < 20; trial++ {
		rank := r.intn(1, 4)
		inShape, mult, outShape := make([]int, rank), make([]int32, rank), make([]int, rank)
		n := 1
		for d := range inShape {
			inShape[d], mult[d] = r.intn(1, 3), int32(r.intn(0, 3))
			outShape[d] = inShape[d] * int(mult[d])
			n *= inShape[d]
		}
		data := f32Seq(n)
		full := make([]int, rank)
		copy(full, inShape)
		out := runOut(t, NewTile(), nil, []*ops.Tensor{tensorOf(ops.Float32, inShape, data), c32(mult...)}, outTensor(ops.Float32))
		wantShape(t, out.Shape, outShape)
		nearFloats(t, "tile reference", out.Float32s(), tileReference(data, full, outShape), 0)
	}
	equalInts(t, "Tile bool/int8", runOut(t, NewTile(), nil, []*ops.Tensor{tensorOf(ops.Int8, []int{2}, []int8{-1, 7}), c32(3)}, outTensor(ops.Int8)).Int8s(), []int{-1, 7, -1, 7, -1, 7})
	// BROADCAST_TO (broadcast_to_test.cc SimpleBroadcast patterns).
	out = runOut(t, NewBroadcastTo(), nil, []*ops.Tensor{tensorOf(ops.Float32, []int{3}, []float32{1, 2, 3}), c32(2, 3)}, outTensor(ops.Float32))
	wantShape(t, out.Shape, []int{2, 3})
	nearFloats(t, "BroadcastTo [3]→[2,3]", out.Float32s(), []float64{1, 2, 3, 1, 2, 3}, 0)
	out = runOut(t, NewBroadcastTo(), nil, []*ops.Tensor{tensorOf(ops.Int32, []int{2, 1}, []int32{4, 5}), c32(2, 2, 3)}, outTensor(ops.Int32))
	wantShape(t, out.Shape, []int{2, 2, 3})
	equalInts(t, "BroadcastTo [2,1]→[2,2,3]", out.Int32s(), []int{4, 4, 4, 5, 5, 5, 4, 4, 4, 5, 5, 5})
	out = runOut(t, NewBroadcastTo(), nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 1, 1, 1, 1, 1, 2, 1}, []float32{1, 2}), c32(1, 1, 1, 1, 1, 1, 2, 2)}, outTensor(ops.Float32))
	nearFloats(t, "BroadcastTo 8-D", out.Float32s(), []float64{1, 1, 2, 2}, 0)
	wantPrepareError(t, NewBroadcastTo(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{3}, []float32{1, 2, 3}), c32(2, 4)}, outTensor(ops.Float32)), "cannot broadcast")
	wantPrepareError(t, NewBroadcastTo(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 3}, []float32{1, 2, 3}), c32(3)}, outTensor(ops.Float32)), "rank")
	wantPrepareError(t, NewTile(), node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{3}, []float32{1, 2, 3}), c32(-1)}, outTensor(ops.Float32)), "multiples")
}

func TestFillShapeZerosLike(t *testing.T) {
	out := runOut(t, NewFill(), nil, []*ops.Tensor{c32(2, 3), tensorOf(ops.Int32, []int{}, []int32{-11})}, outTensor(ops.Int32))
	wantShape(t, out.Shape, []int{2, 3})
	equalInts(t, "FillInt32", out.Int32s(), []int{-11, -11, -11, -11, -11, -11})
	out = runOut(t, NewFill(), nil, []*ops.Tensor{constT(tensorOf(ops.Int64, []int{3}, []int64{2, 2, 2})), tensorOf(ops.Float32, []int{}, []float32{4})}, outTensor(ops.Float32))
	nearFloats(t, "FillFloat", out.Float32s(), []float64{4, 4, 4, 4, 4, 4, 4, 4}, 0)
	out = runOut(t, NewFill(), nil, []*ops.Tensor{c32(), tensorOf(ops.Bool, []int{}, []bool{true})}, outTensor(ops.Bool))
	if len(out.Shape) != 0 || !out.Bools()[0] {
		t.Fatalf("Fill scalar bool: shape %v %v", out.Shape, out.Bools())
	}
	wantPrepareError(t, NewFill(), node(nil, []*ops.Tensor{c32(2, -1), tensorOf(ops.Int32, []int{}, []int32{1})}, outTensor(ops.Int32)), "entry 1")
	wantPrepareError(t, NewFill(), node(nil, []*ops.Tensor{c32(2), tensorOf(ops.Int32, []int{1}, []int32{1})}, outTensor(ops.Int32)), "scalar")
	wantPrepareError(t, NewFill(), node(nil, []*ops.Tensor{c32(2), q(tensorOf(ops.Int8, []int{}, []int8{1}), 0.5, 0)}, q(outTensor(ops.Int8), 0.25, 0)), "quantization")

	in := tensorOf(ops.Float32, []int{1, 3, 1, 2}, make([]float32, 6))
	out = runOut(t, NewShape(), &ops.ShapeOptions{OutType: ops.Int32}, []*ops.Tensor{in}, outTensor(ops.Int32))
	wantShape(t, out.Shape, []int{4})
	equalInts(t, "Shape int32", out.Int32s(), []int{1, 3, 1, 2})
	equalInts(t, "Shape int64", runOut(t, NewShape(), &ops.ShapeOptions{OutType: ops.Int64}, []*ops.Tensor{in}, outTensor(ops.Int64)).Int64s(), []int{1, 3, 1, 2})
	wantPrepareError(t, NewShape(), node(&ops.ShapeOptions{OutType: ops.Int32}, []*ops.Tensor{in}, outTensor(ops.Int64)), "options")

	zl := runOut(t, NewZerosLike(), nil, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 2}, []float32{-2, 5, 1e9, 3})}, outTensor(ops.Float32))
	nearFloats(t, "ZerosLike", zl.Float32s(), []float64{0, 0, 0, 0}, 0)
	equalInts(t, "ZerosLike int64", runOut(t, NewZerosLike(), nil, []*ops.Tensor{tensorOf(ops.Int64, []int{2}, []int64{4, -4})}, outTensor(ops.Int64)).Int64s(), []int{0, 0})
	wantPrepareError(t, NewZerosLike(), node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{1}, []int8{1})}, outTensor(ops.Int8)), "int8")
}

func TestSelect(t *testing.T) {
	T, F := true, false
	b := func(shape []int, v ...bool) *ops.Tensor { return tensorOf(ops.Bool, shape, v) }
	sh := []int{1, 1, 1, 4}
	fx := tensorOf(ops.Float32, sh, []float32{0.1, 0.2, 0.3, 0.4})
	fy := tensorOf(ops.Float32, sh, []float32{0.5, 0.6, 0.7, 0.8})
	for _, k := range []ops.Kernel{NewSelect(), NewSelectV2()} {
		nearFloats(t, "SelectFloat", runOut(t, k, nil, []*ops.Tensor{b(sh, T, F, T, F), fx, fy}, outTensor(ops.Float32)).Float32s(), []float64{0.1, 0.6, 0.3, 0.8}, 1e-7)
	}
	bx, by := b([]int{5}, F, T, F, T, F), b([]int{5}, T, F, T, T, F)
	got := runOut(t, NewSelect(), nil, []*ops.Tensor{b([]int{5}, T, F, T, F, T), bx, by}, outTensor(ops.Bool)).Bools()
	for i, w := range []bool{F, F, F, T, F} {
		if got[i] != w {
			t.Fatalf("SelectBool: %v", got)
		}
	}
	// RankOneSelectInt32 (SELECT): the condition picks whole slices.
	x := tensorOf(ops.Int32, []int{2, 1, 2, 1}, []int32{1, 2, 3, 4})
	y := tensorOf(ops.Int32, []int{2, 1, 2, 1}, []int32{5, 6, 7, 8})
	equalInts(t, "RankOneSelectInt32", runOut(t, NewSelect(), nil, []*ops.Tensor{b([]int{2}, F, T), x, y}, outTensor(ops.Int32)).Int32s(), []int{5, 6, 3, 4})
	equalInts(t, "ScalarSelect", runOut(t, NewSelect(), nil, []*ops.Tensor{b([]int{}, T), x, y}, outTensor(ops.Int32)).Int32s(), []int{1, 2, 3, 4})
	// SELECT_V2 broadcasts all three (select_test.cc
	// SelectInt32OneDimensionConditionWithBroadcast).
	out := runOut(t, NewSelectV2(), nil, []*ops.Tensor{b([]int{2}, F, T), x, y}, outTensor(ops.Int32))
	wantShape(t, out.Shape, []int{2, 1, 2, 2})
	equalInts(t, "SelectV2 broadcast", out.Int32s(), []int{5, 1, 6, 2, 7, 3, 8, 4})
	out = runOut(t, NewSelectV2(), nil, []*ops.Tensor{b([]int{2, 1}, T, F), tensorOf(ops.Int8, []int{3}, []int8{1, 2, 3}), tensorOf(ops.Int8, []int{}, []int8{-9})}, outTensor(ops.Int8))
	wantShape(t, out.Shape, []int{2, 3})
	equalInts(t, "SelectV2 three-way", out.Int8s(), []int{1, 2, 3, -9, -9, -9})
	out = runOut(t, NewSelectV2(), nil, []*ops.Tensor{b([]int{1, 1}, T), tensorOf(ops.Int64, []int{1}, []int64{1 << 40}), tensorOf(ops.Int64, []int{1, 1}, []int64{2})}, tensorOf(ops.Int64, []int{1}, []int64{0}))
	wantShape(t, out.Shape, []int{1})
	equalInts(t, "one element keeps the model's output shape", out.Int64s(), []int64{1 << 40})
	// Errors.
	wantPrepareError(t, NewSelect(), node(nil, []*ops.Tensor{b([]int{3}, T, F, T), x, y}, outTensor(ops.Int32)), "condition")
	wantPrepareError(t, NewSelectV2(), node(nil, []*ops.Tensor{b([]int{3}, T, F, T), fx, fy}, outTensor(ops.Float32)), "broadcastable")
	wantPrepareError(t, NewSelect(), node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{2}, []int32{1, 0}), x, y}, outTensor(ops.Int32)), "bool")
	wantPrepareError(t, NewSelectV2(), node(nil, []*ops.Tensor{b([]int{4}, T, T, T, T), fx, tensorOf(ops.Int32, sh, []int32{1, 2, 3, 4})}, outTensor(ops.Float32)), "differs")
}
