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
}

// TestHardSwishQuantized: int8 and uint8 within TFLite's own test
// tolerance of the float function (activations_test.cc allows about
// 1.5 output steps plus the input step), every input value; the
// output-multiplier check; and the three rounding stages on values
// worked out by hand.
func TestHardSwishQuantized(t *testing.T) {
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8} {
		for _, r := range [][4]float64{{-4, 4, -1, 4}, {-10, 7, -3, 8}, {-2, 2, -0.5, 2}} {
			lo, hi, _ := ops.TypeRange(typ)
			inS, inZP := tfliteQuantParams(r[0], r[1], typ)
			vals := make([]int32, 0, 256)
			for v := lo; v <= hi; v++ {
				vals = append(vals, v)
			}
			var in *ops.Tensor
			if typ == ops.Int8 {
				in = tensorOf(typ, []int{len(vals)}, toInt8(vals))
			} else {
				in = tensorOf(typ, []int{len(vals)}, toUint8(vals))
			}
			q(in, inS, inZP)
			out := runOut(t, NewHardSwish(), nil, []*ops.Tensor{in}, quantOut(typ, r[2], r[3]))
			outS, outZP := float64(out.Scale()), out.ZeroPoint()
			for i, v := range vals {
				x := float64(inS) * float64(v-int32(inZP))
				want := x * math.Min(6, math.Max(0, x+3)) / 6
				var code int32
				if typ == ops.Int8 {
					code = int32(out.Int8s()[i])
				} else {
					code = int32(out.Data[i])
				}
				got := float64(code-outZP) * outS
				if want >= r[2] && want <= r[3] && math.Abs(got-want) > 1.5*outS+float64(inS) {
					t.Errorf("HardSwish %s range %v: x=%v: %v, want %v", typ, r, x, got, want)
				}
			}
		}
	}
	// An output scale below input_scale/128 makes the output multiplier
	// 1 or more, which TFLite refuses.
	wantPrepareError(t, NewHardSwish(), node(nil, []*ops.Tensor{q(tensorOf(ops.Int8, []int{1}, []int8{0}), 1, 0)}, q(outTensor(ops.Int8), 1.0/256, 0)), "output 0", "scale")

	// Input scale 1/16, output scale 1/32, zero points 0: output multiplier
	// 2^-6 (Q0.15 16384, exponent -5), reluish multiplier 32768/6144
	// (Q0.15 21845, exponent 3). For q = -3: hires −384, preshift −192;
	// reluish −384·4 = −1536 → ·21845/2^15 rounded −1024 → ·2 −2048 →
	// (−2048 + 2^15)/2 = 15360; 15360·(−192)/2^15 = −90 (truncated);
	// −90/32 rounded away = −3. For 48 the reluish factor saturates at
	// 32767 (96, not 97); for −48 it reaches 0.
	in := q(tensorOf(ops.Int8, []int{6}, []int8{0, 3, -3, 48, -24, -48}), 1.0/16, 0)
	out := runOut(t, NewHardSwish(), nil, []*ops.Tensor{in}, q(outTensor(ops.Int8), 1.0/32, 0))
	equalInts(t, "HardSwish by hand", out.Int8s(), []int{0, 3, -3, 96, -12, 0})
}

// TestPReluQuantized: the tabulated int8/uint8 PRELU equals the arithmetic
// written out (TFLite's reference Prelu) for every broadcast element, the
// int16 path (int8 alpha) likewise, and both stay within a step of the
// real function.
func TestPReluQuantized(t *testing.T) {
	r := lcg(31)
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8, ops.Int16} {
		lo, hi, _ := ops.TypeRange(typ)
		x := randInts(&r, 2*3*4*5, int(lo), int(hi))
		alphaType := typ
		if typ == ops.Int16 {
			alphaType = ops.Int8
		}
		alo, ahi, _ := ops.TypeRange(alphaType)
		a := randInts(&r, 5, int(alo), int(ahi))
		mk := func(typ ops.DataType, shape []int, v []int32) *ops.Tensor {
			switch typ {
			case ops.Int8:
				return tensorOf(typ, shape, toInt8(v))
			case ops.Uint8:
				return tensorOf(typ, shape, toUint8(v))
			}
			return tensorOf(typ, shape, toInt16(v))
		}
		inS, inZP := float32(0.05), int64(lo+hi+1)/2+3
		aS, aZP := float32(0.01), int64(alo+ahi+1)/2-7
		outS, outZP := float32(0.04), int64(lo+hi+1)/2-5
		if typ == ops.Int16 {
			inZP, outZP = 0, 0
		}
		xt := q(mk(typ, []int{2, 3, 4, 5}, x), inS, inZP)
		at := q(mk(alphaType, []int{1, 1, 5}, a), aS, aZP)
		out := runOut(t, NewPRelu(), nil, []*ops.Tensor{xt, at}, q(outTensor(typ), outS, outZP))
		m1, s1 := ops.QuantizeMultiplier(float64(inS / outS))
		m2, s2 := ops.QuantizeMultiplier(float64(float32(inS*aS) / outS))
		for i, v := range x {
			xv := v - int32(inZP)
			var y int32
			if xv >= 0 {
				y = ops.MultiplyByQuantizedMultiplier(xv, m1, s1)
			} else {
				y = ops.MultiplyByQuantizedMultiplier(xv*(a[i%5]-int32(aZP)), m2, s2)
			}
			want := min(max(y+int32(outZP), lo), hi)
			var got int32
			switch typ {
			case ops.Int8:
				got = int32(out.Int8s()[i])
			case ops.Uint8:
				got = int32(out.Data[i])
			default:
				got = int32(out.Int16s()[i])
			}
			if got != want {
				t.Fatalf("PRELU %s [%d]: x %d alpha %d: %d, want %d", typ, i, v, a[i%5], got, want)
			}
			real := float64(inS) * float64(xv)
			if real < 0 {
				real *= float64(aS) * float64(a[i%5]-int32(aZP))
			}
			if want > lo && want < hi && math.Abs(float64(got-int32(outZP))*float64(outS)-real) > float64(outS) {
				t.Errorf("PRELU %s [%d]: %v, real %v", typ, i, float64(got-int32(outZP))*float64(outS), real)
			}
		}
	}
	f := func(shape []int, v ...float32) *ops.Tensor { return tensorOf(ops.Float32, shape, v) }
	wantPrepareError(t, NewPRelu(), node(nil, []*ops.Tensor{f([]int{1, 2}, 1, 2), f([]int{3, 1, 2}, 1, 2, 3, 4, 5, 6)}, outTensor(ops.Float32)), "input 1 (alpha)", "shape")
	wantPrepareError(t, NewPRelu(), node(nil, []*ops.Tensor{q(tensorOf(ops.Int16, []int{2}, []int16{1, 2}), 1, 0), q(tensorOf(ops.Int16, []int{2}, []int16{1, 2}), 1, 0)}, q(outTensor(ops.Int16), 1, 0)), "input 1 (alpha)", "int8")
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
