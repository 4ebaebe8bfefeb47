package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR, LEAKY_RELU, PRELU,
// HARD_SWISH, ELU, LOG_SOFTMAX, ADD_N, LOGICAL_AND/OR and MIRROR_PAD:
// TFLite's vectors (resize_bilinear_test.cc,
// resize_nearest_neighbor_test.cc, leaky_relu_test.cc, elu_test.cc,
// log_softmax_test.cc, add_n_test.cc, logical_test.cc,
// mirror_pad_test.cc), float64 references and errors.

func resizeRun(t *testing.T, k ops.Kernel, opts *ops.ResizeOptions, in *ops.Tensor, h, w int32) *ops.Tensor {
	t.Helper()
	return runOut(t, k, opts, []*ops.Tensor{in, c32(h, w)}, outTensor(in.Type))
}

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
	nearFloats(t, "AlignCorners", resizeRun(t, NewResizeBilinear(), &ops.ResizeOptions{AlignCorners: true}, f([]int{1, 2, 2, 1}, 3, 6, 9, 12), 3, 3).Float32s(),
		[]float64{3, 4.5, 6, 6, 7.5, 9, 9, 10.5, 12}, 1e-6)
	nearFloats(t, "HalfPixelCenters", resizeRun(t, NewResizeBilinear(), &ops.ResizeOptions{HalfPixelCenters: true}, f([]int{1, 2, 2, 1}, 1, 2, 3, 4), 3, 3).Float32s(),
		[]float64{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}, 1e-6)
	wantPrepareError(t, NewResizeBilinear(), node(&ops.ResizeOptions{AlignCorners: true, HalfPixelCenters: true}, []*ops.Tensor{f([]int{1, 2, 2, 1}, 1, 2, 3, 4), c32(3, 3)}, outTensor(ops.Float32)), "half_pixel")
	wantPrepareError(t, NewResizeBilinear(), node(nil, []*ops.Tensor{quantTensor(ops.Uint8, []int{1, 1, 2, 1}, []float32{0, 1}, 0, 1), c32(1, 3)}, quantOut(ops.Uint8, 0, 1)), "quantised")
	wantPrepareError(t, NewResizeBilinear(), node(nil, []*ops.Tensor{f([]int{2, 2, 1}, 1, 2, 3, 4), c32(3, 3)}, outTensor(ops.Float32)), "rank 3")
	wantPrepareError(t, NewResizeBilinear(), node(nil, []*ops.Tensor{f([]int{1, 2, 2, 1}, 1, 2, 3, 4), c32(0, 3)}, outTensor(ops.Float32)), "size")
}

func TestResizeNearestNeighbor(t *testing.T) {
	f := func(shape []int, v ...float32) *ops.Tensor { return tensorOf(ops.Float32, shape, v) }
	nearFloats(t, "HorizontalResize", resizeRun(t, NewResizeNearestNeighbor(), nil, f([]int{1, 1, 2, 1}, 3, 6), 1, 3).Float32s(), []float64{3, 3, 6}, 0)
	nearFloats(t, "VerticalResize", resizeRun(t, NewResizeNearestNeighbor(), nil, f([]int{1, 2, 1, 1}, 3, 9), 3, 1).Float32s(), []float64{3, 3, 9}, 0)
	sq := func() *ops.Tensor { return f([]int{1, 2, 2, 1}, 3, 6, 9, 12) }
	nearFloats(t, "TwoDimensionalResize", resizeRun(t, NewResizeNearestNeighbor(), nil, sq(), 3, 3).Float32s(), []float64{3, 3, 6, 3, 3, 6, 9, 9, 12}, 0)
	nearFloats(t, "AlignCorners", resizeRun(t, NewResizeNearestNeighbor(), &ops.ResizeOptions{AlignCorners: true}, sq(), 3, 3).Float32s(), []float64{3, 6, 6, 9, 12, 12, 9, 12, 12}, 0)
	nearFloats(t, "HalfPixelCenters", resizeRun(t, NewResizeNearestNeighbor(), &ops.ResizeOptions{HalfPixelCenters: true}, sq(), 3, 3).Float32s(), []float64{3, 6, 6, 9, 12, 12, 9, 12, 12}, 0)
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

func TestLeakyReluPreluHardSwishElu(t *testing.T) {
	f := func(v ...float32) *ops.Tensor { return tensorOf(ops.Float32, []int{len(v)}, v) }
	nearFloats(t, "LeakyRelu", runOut(t, NewLeakyRelu(), &ops.LeakyReluOptions{Alpha: 0.5}, []*ops.Tensor{f(0, 1, 3, 1, -1, -2)}, outTensor(ops.Float32)).Float32s(),
		[]float64{0, 1, 3, 1, -0.5, -1}, 0)
	nearFloats(t, "LeakyRelu alpha > 1", runOut(t, NewLeakyRelu(), &ops.LeakyReluOptions{Alpha: 2}, []*ops.Tensor{f(-3, 4)}, outTensor(ops.Float32)).Float32s(), []float64{-6, 4}, 0)
	// Quantised: within one output step of the float result.
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8} {
		data := []float32{0, -8, -4, 1, 3, -1, 7.5, -7.9}
		in := quantTensor(typ, []int{8}, data, -8, 8)
		out := runOut(t, NewLeakyRelu(), &ops.LeakyReluOptions{Alpha: 0.5}, []*ops.Tensor{in}, quantOut(typ, -4, 8))
		step := float64(out.Scale())
		for i, x := range data {
			var code int32
			if typ == ops.Int8 {
				code = int32(out.Int8s()[i])
			} else {
				code = int32(out.Data[i])
			}
			got := float64(code-out.ZeroPoint()) * step
			want := float64(x)
			if x < 0 {
				want *= 0.5
			}
			if math.Abs(got-want) > step+float64(in.Scale()) {
				t.Errorf("LeakyRelu %s of %v: %v, want %v", typ, x, got, want)
			}
		}
	}
	// Negative alpha keeps its sign through the integer path.
	in := q(tensorOf(ops.Int8, []int{2}, []int8{-10, 10}), 0.1, 0)
	equalInts(t, "LeakyRelu negative alpha", runOut(t, NewLeakyRelu(), &ops.LeakyReluOptions{Alpha: -0.5}, []*ops.Tensor{in}, q(outTensor(ops.Int8), 0.1, 0)).Int8s(), []int{5, 10})

	// PRELU: alpha broadcast over the channel dimension.
	x := tensorOf(ops.Float32, []int{1, 2, 2, 3}, []float32{0, 0, 0, 1, 1, 1, -1, -1, -1, -2, -2, -2})
	alpha := tensorOf(ops.Float32, []int{1, 1, 3}, []float32{0, 1, 2})
	nearFloats(t, "PRelu", runOut(t, NewPRelu(), nil, []*ops.Tensor{x, alpha}, outTensor(ops.Float32)).Float32s(),
		[]float64{0, 0, 0, 1, 1, 1, 0, -1, -2, 0, -2, -4}, 0)

	hs := []float32{-5, -3, -2.5, -1, 0, 0.5, 2.9, 3, 10, float32(math.Inf(1))}
	got := runOut(t, NewHardSwish(), nil, []*ops.Tensor{f(hs...)}, outTensor(ops.Float32)).Float32s()
	for i, v := range hs {
		want := float64(v) * math.Min(6, math.Max(0, float64(v)+3)) / 6
		if math.IsInf(want, 0) != math.IsInf(float64(got[i]), 0) || !math.IsInf(want, 0) && math.Abs(float64(got[i])-want) > 1e-6 {
			t.Errorf("HardSwish(%v) = %v, want %v", v, got[i], want)
		}
	}

	nearFloats(t, "Elu", runOut(t, NewElu(), nil, []*ops.Tensor{f(0, -6, 2, -4, 3, -2, 10, -0.1)}, outTensor(ops.Float32)).Float32s(),
		[]float64{0, -0.997521, 2, -0.981684, 3, -0.864665, 10, -0.0951626}, 1e-5)
	ein := quantTensor(ops.Int8, []int{4}, []float32{-6, -1, 0, 2}, -6, 6)
	eout := runOut(t, NewElu(), nil, []*ops.Tensor{ein}, quantOut(ops.Int8, -1, 6))
	for i, want := range []float64{math.Expm1(-6), math.Expm1(-1), 0, 2} {
		got := float64(int32(eout.Int8s()[i])-eout.ZeroPoint()) * float64(eout.Scale())
		if math.Abs(got-want) > float64(eout.Scale())+float64(ein.Scale()) {
			t.Errorf("Elu int8 %d: %v, want %v", i, got, want)
		}
	}
	wantPrepareError(t, NewHardSwish(), node(nil, []*ops.Tensor{quantTensor(ops.Int8, []int{1}, []float32{0}, -1, 1)}, quantOut(ops.Int8, -1, 1)), "HARD_SWISH")
	wantPrepareError(t, NewPRelu(), node(nil, []*ops.Tensor{quantTensor(ops.Int8, []int{1}, []float32{0}, -1, 1), quantTensor(ops.Int8, []int{1}, []float32{0}, -1, 1)}, quantOut(ops.Int8, -1, 1)), "PRELU")
}

func TestLogSoftmaxAddNLogical(t *testing.T) {
	in := tensorOf(ops.Float32, []int{2, 4}, []float32{0, -6, 2, 4, 3, -2, 10, 1})
	nearFloats(t, "LogSoftmax", runOut(t, NewLogSoftmax(), nil, []*ops.Tensor{in}, outTensor(ops.Float32)).Float32s(),
		[]float64{-4.14297, -10.14297, -2.14297, -0.142971, -7.00104, -12.00104, -0.00104087, -9.00104}, 1e-5)
	f := func(v ...float32) *ops.Tensor { return tensorOf(ops.Float32, []int{1, 2, 2, 1}, v) }
	nearFloats(t, "AddN", runOut(t, NewAddN(), nil, []*ops.Tensor{f(-2, 0.2, 0.7, 0.8), f(0.1, 0.2, 0.3, 0.5), f(0.5, 0.1, 0.1, 0.2)}, outTensor(ops.Float32)).Float32s(),
		[]float64{-1.4, 0.5, 1.1, 1.5}, 1e-6)
	i := func(v ...int32) *ops.Tensor { return tensorOf(ops.Int32, []int{4}, v) }
	equalInts(t, "AddN int32", runOut(t, NewAddN(), nil, []*ops.Tensor{i(-2, 2, -15, 8), i(5, -2, -3, 5), i(1, 1, 1, math.MaxInt32)}, outTensor(ops.Int32)).Int32s(),
		[]int{4, 1, -17, math.MinInt32 + 12})
	wantPrepareError(t, NewAddN(), node(nil, []*ops.Tensor{i(1, 2, 3, 4), tensorOf(ops.Int32, []int{2}, []int32{1, 2})}, outTensor(ops.Int32)), "shape")
	wantPrepareError(t, NewAddN(), node(nil, []*ops.Tensor{i(1, 2, 3, 4)}, outTensor(ops.Int32)), "at least 2")

	T, F := true, false
	b := func(v ...bool) *ops.Tensor { return tensorOf(ops.Bool, []int{1, 1, 1, 4}, v) }
	wantBools(t, "LogicalOr", runOut(t, NewLogicalOr(), nil, []*ops.Tensor{b(T, F, F, T), b(T, F, T, F)}, outTensor(ops.Bool)).Bools(), T, F, T, T)
	wantBools(t, "LogicalAnd", runOut(t, NewLogicalAnd(), nil, []*ops.Tensor{b(T, F, F, T), b(T, F, T, F)}, outTensor(ops.Bool)).Bools(), T, F, F, F)
	wantBools(t, "LogicalOr broadcast", runOut(t, NewLogicalOr(), nil, []*ops.Tensor{b(T, F, F, T), tensorOf(ops.Bool, []int{1, 1, 1, 1}, []bool{F})}, outTensor(ops.Bool)).Bools(), T, F, F, T)
	wantBools(t, "LogicalAnd broadcast", runOut(t, NewLogicalAnd(), nil, []*ops.Tensor{b(T, F, F, T), tensorOf(ops.Bool, []int{1, 1, 1, 1}, []bool{T})}, outTensor(ops.Bool)).Bools(), T, F, F, T)
	wantPrepareError(t, NewLogicalAnd(), node(nil, []*ops.Tensor{f(1, 2, 3, 4), f(1, 2, 3, 4)}, outTensor(ops.Float32)), "bool")
}

// mirrorIndex is np.pad's reflect/symmetric index arithmetic for pads no
// larger than the dimension.
func mirrorIndex(i, dim int, symmetric bool) int {
	if i < 0 {
		if symmetric {
			return -i - 1
		}
		return -i
	}
	if i >= dim {
		if symmetric {
			return 2*dim - 1 - i
		}
		return 2*dim - 2 - i
	}
	return i
}

func TestMirrorPad(t *testing.T) {
	in := tensorOf(ops.Int32, []int{2, 3}, []int32{1, 2, 3, 4, 5, 6})
	pads := constT(tensorOf(ops.Int32, []int{2, 2}, []int32{1, 1, 1, 1}))
	out := runOut(t, NewMirrorPad(), &ops.MirrorPadOptions{Mode: ops.MirrorPadReflect}, []*ops.Tensor{in, pads}, outTensor(ops.Int32))
	wantShape(t, out.Shape, []int{4, 5})
	equalInts(t, "PadBothSides_Reflect", out.Int32s(), []int{5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5, 2, 1, 2, 3, 2})
	out = runOut(t, NewMirrorPad(), &ops.MirrorPadOptions{Mode: ops.MirrorPadSymmetric}, []*ops.Tensor{in, pads}, outTensor(ops.Int32))
	equalInts(t, "PadBothSides_Symmetric", out.Int32s(), []int{1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6})
	// Random shapes against the np.pad index arithmetic.
	r := lcg(9)
	for trial := 0; trial < 30; trial++ {
		rank := r.intn(1, 3)
		sym := r.next()%2 == 0
		shape := make([]int, rank)
		var pv []int64
		outShape := make([]int, rank)
		n := 1
		for d := range shape {
			shape[d] = r.intn(1, 4)
			limit := shape[d]
			if !sym {
				limit--
			}
			lo, hi := r.intn(0, limit), r.intn(0, limit)
			pv = append(pv, int64(lo), int64(hi))
			outShape[d] = shape[d] + lo + hi
			n *= shape[d]
		}
		data := f32Seq(n)
		mode := ops.MirrorPadReflect
		if sym {
			mode = ops.MirrorPadSymmetric
		}
		got := runOut(t, NewMirrorPad(), &ops.MirrorPadOptions{Mode: mode}, []*ops.Tensor{tensorOf(ops.Float32, shape, data), constT(tensorOf(ops.Int64, []int{rank, 2}, pv))}, outTensor(ops.Float32))
		wantShape(t, got.Shape, outShape)
		var want []float64
		forEach(outShape, func(idx []int) {
			src := make([]int, rank)
			for d := range idx {
				src[d] = mirrorIndex(idx[d]-int(pv[2*d]), shape[d], sym)
			}
			want = append(want, float64(data[index(shape, src)]))
		})
		nearFloats(t, "mirror pad reference", got.Float32s(), want, 0)
	}
	wantPrepareError(t, NewMirrorPad(), node(&ops.MirrorPadOptions{Mode: ops.MirrorPadReflect}, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{2, 2}, []int32{2, 0, 0, 0}))}, outTensor(ops.Int32)), "REFLECT")
	wantPrepareError(t, NewMirrorPad(), node(&ops.MirrorPadOptions{Mode: ops.MirrorPadSymmetric}, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{2, 2}, []int32{0, 0, 0, 4}))}, outTensor(ops.Int32)), "SYMMETRIC")
	wantPrepareError(t, NewMirrorPad(), node(nil, []*ops.Tensor{in, constT(tensorOf(ops.Int32, []int{1, 2}, []int32{0, 0}))}, outTensor(ops.Int32)), "shape")
}
