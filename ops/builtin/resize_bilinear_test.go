package builtin

import (
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func TestResizeBilinear(t *testing.T) {
	f := func(shape []int, v ...float32) *ops.Tensor { return tensorOf(ops.Float32, shape, v) }
	nearFloats(t, "HorizontalResize", resizeRun(t, NewResizeBilinear(), nil, f([]int{1, 1, 2, 1}, 3, 6), 1, 3).Float32s(), []float64{3, 5, 6}, 1e-6)
	nearFloats(t, "VerticalResize", resizeRun(t, NewResizeBilinear(), nil, f([]int{1, 2, 1, 1}, 3, 9), 3, 1).Float32s(), []float64{3, 7, 9}, 1e-6)
	out := resizeRun(t, NewResizeBilinear(), nil, f([]int{1, 2, 2, 1}, 3, 6, 9, 12), 3, 3)
	wantShape(t, out.Shape, []int{1, 3, 3, 1})
	nearFloats(t, "TwoDimensionalResize", out.Float32s(), []float64{3, 5, 6, 7, 9, 10, 9, 11, 12}, 1e-6)
	nearFloats(t, "TwoDimensionalResizeWithTwoBatches", resizeRun(t, NewResizeBilinear(), nil,
		f([]int{2, 2, 2, 1}, 3, 6, 9, 12, 4, 10, 10, 16), 3, 3).Float32s(),
		[]float64{3, 5, 6, 7, 9, 10, 9, 11, 12, 4, 8, 10, 8, 12, 14, 10, 14, 16}, 1e-5)
	nearFloats(t, "ThreeDimensionalResize (depth 2)", resizeRun(t, NewResizeBilinear(), nil,
		f([]int{1, 2, 2, 2}, 3, 4, 6, 10, 9, 10, 12, 16), 3, 3).Float32s(),
		[]float64{3, 4, 5, 8, 6, 10, 7, 8, 9, 12, 10, 14, 9, 10, 11, 14, 12, 16}, 1e-5)
	nearFloats(t, "AlignCorners", resizeRun(t, NewResizeBilinear(), &ResizeOptions{AlignCorners: true}, f([]int{1, 2, 2, 1}, 3, 6, 9, 12), 3, 3).Float32s(),
		[]float64{3, 4.5, 6, 6, 7.5, 9, 9, 10.5, 12}, 1e-6)
	nearFloats(t, "HalfPixelCenters", resizeRun(t, NewResizeBilinear(), &ResizeOptions{HalfPixelCenters: true}, f([]int{1, 2, 2, 1}, 1, 2, 3, 4), 3, 3).Float32s(),
		[]float64{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}, 1e-6)
	wantPrepareError(t, NewResizeBilinear(), node(&ResizeOptions{AlignCorners: true, HalfPixelCenters: true}, []*ops.Tensor{f([]int{1, 2, 2, 1}, 1, 2, 3, 4), c32(3, 3)}, outTensor(ops.Float32)), "half_pixel")
	wantPrepareError(t, NewResizeBilinear(), node(nil, []*ops.Tensor{quantTensor(ops.Uint8, []int{1, 1, 2, 1}, []float32{0, 1}, 0, 1), c32(1, 3)}, quantOut(ops.Uint8, 0, 1)), "quantised")
	wantPrepareError(t, NewResizeBilinear(), node(nil, []*ops.Tensor{f([]int{2, 2, 1}, 1, 2, 3, 4), c32(3, 3)}, outTensor(ops.Float32)), "rank 3")
	wantPrepareError(t, NewResizeBilinear(), node(nil, []*ops.Tensor{f([]int{1, 2, 2, 1}, 1, 2, 3, 4), c32(0, 3)}, outTensor(ops.Float32)), "size")
}
