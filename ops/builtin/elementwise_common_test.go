package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of the one-input element-wise kernels: TFLite's test vectors
// (elementwise_test.cc, neg_test.cc, exp_test.cc, floor_test.cc,
// ceil_test.cc, round_test.cc, sign_test.cc), float64 references on a
// sweep including ±0, ±Inf and NaN, the quantised ABS/EXP/LOG paths, and
// type errors.

func unaryRun(t *testing.T, k ops.Kernel, in *ops.Tensor, out *ops.Tensor) *ops.Tensor {
	t.Helper()
	n := node(nil, []*ops.Tensor{in}, out)
	run(t, k, n)
	noAllocs(t, k, n)
	wantShape(t, n.Outputs[0].Shape, in.Shape)
	return n.Outputs[0]
}

func unaryF32(t *testing.T, k ops.Kernel, v ...float32) []float32 {
	t.Helper()
	return unaryRun(t, k, tensorOf(ops.Float32, []int{1, 1, len(v), 1}, v), outTensor(ops.Float32)).Float32s()
}

// sameBits reports whether got equals want bit for bit, treating all NaNs
// alike.
func sameBits(got, want float32) bool {
	if math.IsNaN(float64(got)) || math.IsNaN(float64(want)) {
		return math.IsNaN(float64(got)) && math.IsNaN(float64(want))
	}
	return math.Float32bits(got) == math.Float32bits(want)
}

func TestUnaryTFLiteVectors(t *testing.T) {
	nearFloats(t, "Sin", unaryF32(t, NewSin(), 0, 3.1415926, -3.1415926, 1), []float64{0, 0, 0, 0.84147}, 1e-5)
	nearFloats(t, "Cos", unaryF32(t, NewCos(), 0, 3.1415926, -3.1415926, 1), []float64{1, -1, -1, 0.54030}, 1e-5)
	nearFloats(t, "Log", unaryF32(t, NewLog(), 1, 3.1415926, 1, 1), []float64{0, 1.14473, 0, 0}, 1e-5)
	nearFloats(t, "Abs", unaryF32(t, NewAbs(), 0, -6.2, 2, 4, 3, -2, 10, 1), []float64{0, 6.2, 2, 4, 3, 2, 10, 1}, 1e-6)
	nearFloats(t, "Sqrt", unaryF32(t, NewSqrt(), 0, 1, 2, 4), []float64{0, 1, 1.41421, 2}, 1e-5)
	nearFloats(t, "Rsqrt", unaryF32(t, NewRsqrt(), 1, 2, 4, 9), []float64{1, 0.7071, 0.5, 0.33333}, 1e-4)
	nearFloats(t, "Square", unaryF32(t, NewSquare(), 1, 2, 0.5, -3), []float64{1, 4, 0.25, 9}, 0)
	nearFloats(t, "Neg", unaryF32(t, NewNeg(), -2, -1, 0, 1, 2, 3), []float64{2, 1, 0, -1, -2, -3}, 0)
	nearFloats(t, "Exp", unaryF32(t, NewExp(), 0, 1, -1, 0.01, -0.01), []float64{1, math.E, 1 / math.E, 1.01005, 0.99005}, 1e-5)
	if got := unaryF32(t, NewExp(), 100, -100); !math.IsInf(float64(got[0]), 1) || math.Abs(float64(got[1])-3.72e-44) > 2e-45 {
		t.Fatalf("Exp overflow/underflow: %v, want [+Inf 3.7e-44 (subnormal)]", got)
	}
	in := []float32{0.0001, 8.0001, 0.9999, 9.9999, 0.5, -0.0001, -8.0001, -0.9999, -9.9999, -0.5}
	nearFloats(t, "Floor", unaryF32(t, NewFloor(), in...), []float64{0, 8, 0, 9, 0, -1, -9, -1, -10, -1}, 0)
	nearFloats(t, "Ceil", unaryF32(t, NewCeil(), in...), []float64{1, 9, 1, 10, 1, 0, -8, 0, -9, 0}, 0)
	nearFloats(t, "Round", unaryF32(t, NewRound(), append(in, -2.5, 1.5, 2.5, 8.5)...), []float64{0, 8, 1, 10, 0, 0, -8, -1, -10, 0, -2, 2, 2, 8}, 0)
	nearFloats(t, "Sign", unaryF32(t, NewSign(), -2, -0.5, 0, 0.5, 7), []float64{-1, -1, 0, 1, 1}, 0)
	i32 := func(v ...int32) *ops.Tensor { return tensorOf(ops.Int32, []int{len(v)}, v) }
	equalInts(t, "Neg int32", unaryRun(t, NewNeg(), i32(-2, -1, 0, 1, math.MinInt32), outTensor(ops.Int32)).Int32s(), []int{2, 1, 0, -1, math.MinInt32})
	equalInts(t, "Abs int32", unaryRun(t, NewAbs(), i32(-2, 5, 0, math.MinInt32), outTensor(ops.Int32)).Int32s(), []int{2, 5, 0, math.MinInt32})
	equalInts(t, "Sign int32", unaryRun(t, NewSign(), i32(-20, 0, 3), outTensor(ops.Int32)).Int32s(), []int{-1, 0, 1})
	equalInts(t, "Neg int64", unaryRun(t, NewNeg(), tensorOf(ops.Int64, []int{3}, []int64{-2, 1 << 40, 0}), outTensor(ops.Int64)).Int64s(), []int64{2, -1 << 40, 0})
	equalInts(t, "Neg int8", unaryRun(t, NewNeg(), tensorOf(ops.Int8, []int{3}, []int8{-128, 5, 127}), outTensor(ops.Int8)).Int8s(), []int{-128, -5, -127})
	equalInts(t, "Abs int16", unaryRun(t, NewAbs(), tensorOf(ops.Int16, []int{3}, []int16{-32768, -5, 7}), outTensor(ops.Int16)).Int16s(), []int{-32768, 5, 7})
	f64 := unaryRun(t, NewSign(), tensorOf(ops.Float64, []int{3}, []float64{-0.1, 0, 1e300}), outTensor(ops.Float64)).Float64s()
	if f64[0] != -1 || f64[1] != 0 || f64[2] != 1 {
		t.Fatalf("Sign float64: %v", f64)
	}
	b := unaryRun(t, NewLogicalNot(), tensorOf(ops.Bool, []int{4}, []bool{true, false, true, false}), outTensor(ops.Bool)).Bools()
	if b[0] || !b[1] || b[2] || !b[3] {
		t.Fatalf("LogicalNot: %v", b)
	}
}

// TestUnaryFloatReference compares every float32 operator with its float64
// definition on a sweep that includes signed zeros, infinities, NaN and
// half-way values, bit for bit after rounding the float64 result.
func TestUnaryFloatReference(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	xs := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.75, -1e-30, 1e30, -7e-39,
		float32(inf), float32(-inf), float32(nan), 1e-45, 123.456, -98.6, 0.1, 16777215.5, 8388608.5}
	r := lcg(11)
	for i := 0; i < 200; i++ {
		xs = append(xs, r.float(-50, 50))
	}
	ref := map[string]struct {
		k ops.Kernel
		f func(x float64) float64
	}{
		"ABS":    {NewAbs(), math.Abs},
		"NEG":    {NewNeg(), func(x float64) float64 { return -x }},
		"SQRT":   {NewSqrt(), math.Sqrt},
		"EXP":    {NewExp(), math.Exp},
		"LOG":    {NewLog(), math.Log},
		"SIN":    {NewSin(), math.Sin},
		"COS":    {NewCos(), math.Cos},
		"FLOOR":  {NewFloor(), math.Floor},
		"CEIL":   {NewCeil(), math.Ceil},
		"SQUARE": {NewSquare(), nil},
		"RSQRT":  {NewRsqrt(), nil},
		"ROUND":  {NewRound(), nil},
		"SIGN":   {NewSign(), nil},
	}
	for name, c := range ref {
		got := unaryRun(t, c.k, tensorOf(ops.Float32, []int{len(xs)}, xs), outTensor(ops.Float32)).Float32s()
		for i, x := range xs {
			var want float32
			switch name {
			case "SQUARE":
				want = x * x
			case "RSQRT":
				want = 1 / float32(math.Sqrt(float64(x)))
			case "ROUND":
				want = float32(math.RoundToEven(float64(x)))
				if want == 0 {
					want = 0 // TFLite's floor-based rounding gives +0 from below
				}
				if x == 0 {
					want = x
				}
			case "SIGN":
				switch {
				case x > 0:
					want = 1
				case x < 0:
					want = -1
				case x == 0:
					want = 0
				default:
					want = x
				}
			default:
				want = float32(c.f(float64(x)))
			}
			if !sameBits(got[i], want) {
				t.Errorf("%s(%v) = %v (%#x), want %v (%#x)", name, x, got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
			}
		}
	}
}

func TestUnaryQuantized(t *testing.T) {
	// ABS int8 (elementwise_test.cc AbsInt8): input and output quantised
	// over [-142, 113] and [0, 142]; the dequantised output within one
	// output step of |x|.
	data := []float32{15, 46, 78, -142, -1, -17, -49, 113}
	in := quantTensor(ops.Int8, []int{1, 8}, data, -142, 113)
	out := unaryRun(t, NewAbs(), in, quantOut(ops.Int8, 0, 142))
	step := float64(out.Scale())
	for i, v := range out.Int8s() {
		got := float64(int32(v)-out.ZeroPoint()) * step
		if math.Abs(got-math.Abs(float64(data[i]))) > step+float64(in.Scale()) {
			t.Errorf("ABS int8 element %d: %v, want %v", i, got, math.Abs(float64(data[i])))
		}
	}
	// Equal scales: no rescale, |q − zp| + zp exactly.
	in = q(tensorOf(ops.Int8, []int{4}, []int8{-128, -3, 10, 127}), 0.5, -3)
	out = unaryRun(t, NewAbs(), in, q(outTensor(ops.Int8), 0.5, -100))
	equalInts(t, "ABS int8 same scale", out.Int8s(), []int{25, -100, -87, 30})
	// Quantised int16 ABS needs zero points 0.
	wantPrepareError(t, NewAbs(), node(nil, []*ops.Tensor{q(tensorOf(ops.Int16, []int{1}, []int16{1}), 0.5, 3)}, q(outTensor(ops.Int16), 0.5, 0)), "zero points 0")
	out = unaryRun(t, NewAbs(), q(tensorOf(ops.Int16, []int{3}, []int16{-32768, -300, 9}), 0.5, 0), q(outTensor(ops.Int16), 0.25, 0))
	equalInts(t, "ABS int16 rescaled", out.Int16s(), []int{32767, 600, 18})
	// EXP and LOG int8 through TFLite's table: each output within half an
	// output step (plus float32 slack) of f(dequantised input), and LOG
	// of inputs ≤ 0 at the lowest code.
	for _, tc := range []struct {
		name       string
		k          ops.Kernel
		imin, imax float64
		omin, omax float64
		f          func(float64) float64
	}{
		{"EXP", NewExp(), -3, 2, 0, 7.5, math.Exp},
		{"LOG", NewLog(), -1, 8, -4, 2.5, math.Log},
	} {
		codes := make([]int8, 256)
		for i := range codes {
			codes[i] = int8(i - 128)
		}
		s, zp := tfliteQuantParams(tc.imin, tc.imax, ops.Int8)
		in := q(tensorOf(ops.Int8, []int{256}, codes), s, zp)
		out := unaryRun(t, tc.k, in, quantOut(ops.Int8, tc.omin, tc.omax))
		os, oz := float64(out.Scale()), float64(out.ZeroPoint())
		for i, v := range out.Int8s() {
			x := float64(s) * float64(int32(codes[i])-int32(zp))
			if tc.name == "LOG" && x <= 0 {
				if v != -128 {
					t.Errorf("LOG int8 of %v: code %d, want -128", x, v)
				}
				continue
			}
			want := math.Round(tc.f(x)/os + oz)
			want = math.Max(-128, math.Min(127, want))
			if math.Abs(float64(v)-want) > 1 {
				t.Errorf("%s int8 of %v: code %d, want %v", tc.name, x, v, want)
			}
		}
	}
}

func TestUnaryErrors(t *testing.T) {
	f := tensorOf(ops.Float32, []int{2}, []float32{1, 2})
	wantPrepareError(t, NewLogicalNot(), node(nil, []*ops.Tensor{f}, outTensor(ops.Bool)), "output 0", "differs")
	wantPrepareError(t, NewLogicalNot(), node(nil, []*ops.Tensor{f}, outTensor(ops.Float32)), "LOGICAL_NOT")
	wantPrepareError(t, NewSqrt(), node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{1}, []int32{4})}, outTensor(ops.Int32)), "SQRT")
	wantPrepareError(t, NewRsqrt(), node(nil, []*ops.Tensor{quantTensor(ops.Int8, []int{1}, []float32{1}, 0, 2)}, quantOut(ops.Int8, 0, 2)), "RSQRT")
	wantPrepareError(t, NewExp(), node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{1}, []int8{1})}, outTensor(ops.Int8)), "quantization")
	wantPrepareError(t, NewNeg(), node(nil, []*ops.Tensor{tensorOf(ops.Uint8, []int{1}, []uint8{1})}, outTensor(ops.Uint8)), "NEG")
}

// TestUnarySplitOverThreads: the float32 path of a Unary operator on a
// tensor of many splitBlock blocks and a ragged tail gives every element
// its own value, and run's thread sweep requires the same bits on 2, 3
// and 4 threads.
func TestUnarySplitOverThreads(t *testing.T) {
	const cnt = 10*splitBlock + 37
	v := make([]float32, cnt)
	for i := range v {
		v[i] = 0.01 + float32(i)*0.37
	}
	for _, tc := range []struct {
		k ops.Kernel
		f func(float64) float64
	}{{NewLog(), math.Log}, {NewSin(), math.Sin}, {NewSqrt(), math.Sqrt}} {
		got := unaryF32(t, tc.k, v...)
		for i, x := range v {
			if want := float32(tc.f(float64(x))); !sameBits(got[i], want) {
				t.Fatalf("%T element %d: %v, want %v", tc.k, i, got[i], want)
			}
		}
	}
}
