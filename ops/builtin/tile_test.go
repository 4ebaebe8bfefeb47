package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of TILE and BROADCAST_TO: TFLite's vectors (tile_test.cc,
// broadcast_to_test.cc), index references over random shapes, and errors.

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
