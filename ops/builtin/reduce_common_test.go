package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY,
// REDUCE_ALL and ARG_MAX/ARG_MIN: TFLite's vectors (reduce_test.cc,
// arg_min_max_test.cc), a float64 reference over random shapes and axes,
// the quantised SUM, neutral elements of empty reductions, and errors.

func reduceRun(t *testing.T, k ops.Kernel, in *ops.Tensor, axes []int32, keep bool, out *ops.Tensor) *ops.Tensor {
	t.Helper()
	ax := constT(tensorOf(ops.Int32, []int{len(axes)}, axes))
	n := node(&ReducerOptions{KeepDims: keep}, []*ops.Tensor{in, ax}, out)
	run(t, k, n)
	noAllocs(t, k, n)
	return n.Outputs[0]
}

func TestReduceTFLiteVectors(t *testing.T) {
	data := make([]float32, 24)
	for i := range data {
		data[i] = float32(i + 1)
	}
	in := func() *ops.Tensor { return tensorOf(ops.Float32, []int{4, 3, 2}, data) }
	all := []int32{1, 0, -3, -3}
	out := reduceRun(t, NewSum(), in(), all, false, outTensor(ops.Float32))
	wantShape(t, out.Shape, []int{2})
	nearFloats(t, "Sum NotKeepDims", out.Float32s(), []float64{144, 156}, 0)
	out = reduceRun(t, NewSum(), in(), []int32{0, 2}, true, outTensor(ops.Float32))
	wantShape(t, out.Shape, []int{1, 3, 1})
	nearFloats(t, "Sum KeepDims", out.Float32s(), []float64{84, 100, 116}, 0)
	nearFloats(t, "Prod NotKeepDims", reduceRun(t, NewReduceProd(), in(), all, false, outTensor(ops.Float32)).Float32s(),
		[]float64{3.162341376e+11, 1.9619905536e+12}, 2e5)
	nearFloats(t, "Max NotKeepDims", reduceRun(t, NewReduceMax(), in(), all, false, outTensor(ops.Float32)).Float32s(), []float64{23, 24}, 0)
	nearFloats(t, "Max KeepDims", reduceRun(t, NewReduceMax(), in(), []int32{0, 2}, true, outTensor(ops.Float32)).Float32s(), []float64{20, 22, 24}, 0)
	nearFloats(t, "Min NotKeepDims", reduceRun(t, NewReduceMin(), in(), all, false, outTensor(ops.Float32)).Float32s(), []float64{1, 2}, 0)
	nearFloats(t, "Min KeepDims", reduceRun(t, NewReduceMin(), in(), []int32{0, 2}, true, outTensor(ops.Float32)).Float32s(), []float64{1, 3, 5}, 0)
	i32 := tensorOf(ops.Int32, []int{2, 3}, []int32{1, -2, 3, 1 << 30, 1 << 30, 1 << 30})
	equalInts(t, "Sum int32 wraps", reduceRun(t, NewSum(), i32, []int32{1}, false, outTensor(ops.Int32)).Int32s(), []int{2, -1073741824})
	equalInts(t, "Prod int64", reduceRun(t, NewReduceProd(), tensorOf(ops.Int64, []int{3}, []int64{-3, 1 << 20, 5}), []int32{0}, false, outTensor(ops.Int64)).Int64s(), []int{-15 << 20})
	// Quantised MAX/MIN compare raw values with the input's quantisation.
	q8 := q(tensorOf(ops.Int8, []int{2, 2}, []int8{-5, 100, -128, 3}), 0.1, 2)
	equalInts(t, "Max int8", reduceRun(t, NewReduceMax(), q8, []int32{0}, false, q(outTensor(ops.Int8), 0.1, 2)).Int8s(), []int{-5, 100})
	equalInts(t, "Min int8", reduceRun(t, NewReduceMin(), q8, []int32{-1}, false, q(outTensor(ops.Int8), 0.1, 2)).Int8s(), []int{-5, -128})
	// ReduceAny / ReduceAll (reduce_test.cc ConstAnyOpTest / ConstAllOpTest
	// pattern).
	b := tensorOf(ops.Bool, []int{2, 3}, []bool{false, false, true, true, true, true})
	gotB := reduceRun(t, NewReduceAny(), b, []int32{1}, false, outTensor(ops.Bool)).Bools()
	if !gotB[0] || !gotB[1] {
		t.Fatalf("Any: %v", gotB)
	}
	gotB = reduceRun(t, NewReduceAll(), b, []int32{1}, false, outTensor(ops.Bool)).Bools()
	if gotB[0] || !gotB[1] {
		t.Fatalf("All: %v", gotB)
	}
	// Float MAX of all −Inf is −Inf (TFLite's optimised reducer starts from
	// the first element).
	ninf := float32(math.Inf(-1))
	if got := reduceRun(t, NewReduceMax(), tensorOf(ops.Float32, []int{2}, []float32{ninf, ninf}), []int32{0}, false, outTensor(ops.Float32)).Float32s(); got[0] != ninf {
		t.Fatalf("Max of -Inf: %v", got)
	}
	// Empty reductions give the neutral element.
	empty := tensorOf(ops.Float32, []int{0, 2}, []float32{})
	nearFloats(t, "Sum empty", reduceRun(t, NewSum(), empty, []int32{0}, false, outTensor(ops.Float32)).Float32s(), []float64{0, 0}, 0)
	nearFloats(t, "Prod empty", reduceRun(t, NewReduceProd(), tensorOf(ops.Float32, []int{0, 2}, []float32{}), []int32{0}, false, outTensor(ops.Float32)).Float32s(), []float64{1, 1}, 0)
	nearFloats(t, "Max empty", reduceRun(t, NewReduceMax(), tensorOf(ops.Float32, []int{0, 2}, []float32{}), []int32{0}, false, outTensor(ops.Float32)).Float32s(), []float64{-math.MaxFloat32, -math.MaxFloat32}, 0)
}

func TestReduceQuantizedSum(t *testing.T) {
	// ConstInt8SumOpTest.Rescale: input over [-1, 1], output over [-5, 5].
	in := quantTensor(ops.Int8, []int{1, 3, 2}, []float32{0.4, 0.2, 0.3, 0.4, 0.5, 0.3}, -1, 1)
	out := reduceRun(t, NewSum(), in, []int32{1}, false, quantOut(ops.Int8, -5, 5))
	wantShape(t, out.Shape, []int{1, 2})
	step := float64(out.Scale())
	for i, want := range []float64{1.2, 0.9} {
		got := float64(int32(out.Int8s()[i])-out.ZeroPoint()) * step
		if math.Abs(got-want) > 2*10.0/255 {
			t.Errorf("Int8 Sum Rescale %d: %v, want %v", i, got, want)
		}
	}
	// The exact TFLite formula: round(sum·s − zp_in·s·count) + zp_out in
	// float32, saturated.
	u8 := q(tensorOf(ops.Uint8, []int{2, 3}, []uint8{200, 250, 255, 0, 10, 128}), 0.5, 128)
	out = reduceRun(t, NewSum(), u8, []int32{1}, false, q(outTensor(ops.Uint8), 0.75, 100))
	s := float32(0.5) / float32(0.75)
	var want []int
	for _, sum := range []int32{705, 138} {
		v := int32(math.Round(float64(float32(sum)*s+float32(-128)*s*3))) + 100
		want = append(want, int(min(max(v, 0), 255)))
	}
	equalInts(t, "Sum uint8 formula", out.Data, want)
}

// TestReduceFloatReference compares SUM, MAX and MIN with float64 loops on
// random shapes and axis sets.
func TestReduceFloatReference(t *testing.T) {
	r := lcg(3)
	for trial := 0; trial < 40; trial++ {
		rank := r.intn(1, 4)
		shape := make([]int, rank)
		n := 1
		for i := range shape {
			shape[i] = r.intn(1, 5)
			n *= shape[i]
		}
		data := make([]float32, n)
		for i := range data {
			data[i] = r.float(-10, 10)
		}
		var axes []int32
		red := make([]bool, rank)
		for d := 0; d < rank; d++ {
			if r.next()%2 == 0 {
				axes = append(axes, int32(d-rank*int(r.next()%2)))
				red[d] = true
			}
		}
		keep := r.next()%2 == 0
		var outShape []int
		for d := 0; d < rank; d++ {
			if !red[d] {
				outShape = append(outShape, shape[d])
			} else if keep {
				outShape = append(outShape, 1)
			}
		}
		sums, maxs, mins := map[int]float64{}, map[int]float64{}, map[int]float64{}
		forEach(shape, func(idx []int) {
			o := 0
			for d := 0; d < rank; d++ {
				if !red[d] {
					o = o*shape[d] + idx[d]
				}
			}
			v := float64(data[index(shape, idx)])
			if _, ok := sums[o]; !ok {
				sums[o], maxs[o], mins[o] = 0, v, v
			}
			sums[o] += v
			maxs[o] = math.Max(maxs[o], v)
			mins[o] = math.Min(mins[o], v)
		})
		toSlice := func(m map[int]float64) []float64 {
			s := make([]float64, len(m))
			for i := range s {
				s[i] = m[i]
			}
			return s
		}
		for _, c := range []struct {
			k    ops.Kernel
			want map[int]float64
			tol  float64
		}{{NewSum(), sums, 1e-4}, {NewReduceMax(), maxs, 0}, {NewReduceMin(), mins, 0}} {
			out := reduceRun(t, c.k, tensorOf(ops.Float32, shape, data), axes, keep, outTensor(ops.Float32))
			wantShape(t, out.Shape, outShape)
			nearFloats(t, "reduce reference", out.Float32s(), toSlice(c.want), c.tol)
		}
	}
}

func TestReduceErrors(t *testing.T) {
	f := tensorOf(ops.Float32, []int{2, 3}, make([]float32, 6))
	ax := func(v ...int32) *ops.Tensor { return constT(tensorOf(ops.Int32, []int{len(v)}, v)) }
	wantPrepareError(t, NewSum(), node(nil, []*ops.Tensor{f, ax(2)}, outTensor(ops.Float32)), "axis 2")
	wantPrepareError(t, NewReduceMax(), node(nil, []*ops.Tensor{f, tensorOf(ops.Int32, []int{1}, []int32{0})}, outTensor(ops.Float32)), "constant")
	wantPrepareError(t, NewReduceAny(), node(nil, []*ops.Tensor{f, ax(0)}, outTensor(ops.Float32)), "REDUCE_ANY")
	wantPrepareError(t, NewReduceProd(), node(nil, []*ops.Tensor{quantTensor(ops.Uint8, []int{2}, []float32{0, 1}, -1, 1), ax(0)}, quantOut(ops.Uint8, -1, 1)), "REDUCE_PROD")
	wantPrepareError(t, NewReduceMax(), node(nil, []*ops.Tensor{quantTensor(ops.Int8, []int{2}, []float32{0, 1}, -1, 1), ax(0)}, quantOut(ops.Int8, -2, 2)), "must equal")
}

// TestSumEachRow: the interleaved row sums equal the one-row-at-a-time
// sums bit for bit (float32 rounding order), for row counts around the
// interleave width and a reduction whose rounding depends on the order.
func TestSumEachRow(t *testing.T) {
	for _, rows := range []int{1, 7, 8, 9, 17} {
		for _, cols := range []int{1, 5, 1024} {
			in := make([]float32, rows*cols)
			for i := range in {
				in[i] = float32(i%13)*1e7 - float32(i%5)*0.37
			}
			got := make([]float32, rows)
			sumEachRow(in, got, rows, cols)
			for r := range rows {
				var want float32
				for _, v := range in[r*cols : (r+1)*cols] {
					want += v
				}
				if got[r] != want {
					t.Fatalf("%d×%d row %d: %v, want %v", rows, cols, r, got[r], want)
				}
			}
		}
	}
}
