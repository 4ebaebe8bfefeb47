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

func TestLeakyReluPreluHardSwishElu(t *testing.T) {
	f := func(v ...float32) *ops.Tensor { return tensorOf(ops.Float32, []int{len(v)}, v) }
	nearFloats(t, "LeakyRelu", runOut(t, NewLeakyRelu(), &LeakyReluOptions{Alpha: 0.5}, []*ops.Tensor{f(0, 1, 3, 1, -1, -2)}, outTensor(ops.Float32)).Float32s(),
		[]float64{0, 1, 3, 1, -0.5, -1}, 0)
	nearFloats(t, "LeakyRelu alpha > 1", runOut(t, NewLeakyRelu(), &LeakyReluOptions{Alpha: 2}, []*ops.Tensor{f(-3, 4)}, outTensor(ops.Float32)).Float32s(), []float64{-6, 4}, 0)
	// Quantised: within one output step of the float result.
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8} {
		data := []float32{0, -8, -4, 1, 3, -1, 7.5, -7.9}
		in := quantTensor(typ, []int{8}, data, -8, 8)
		out := runOut(t, NewLeakyRelu(), &LeakyReluOptions{Alpha: 0.5}, []*ops.Tensor{in}, quantOut(typ, -4, 8))
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
	equalInts(t, "LeakyRelu negative alpha", runOut(t, NewLeakyRelu(), &LeakyReluOptions{Alpha: -0.5}, []*ops.Tensor{in}, q(outTensor(ops.Int8), 0.1, 0)).Int8s(), []int{5, 10})

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
