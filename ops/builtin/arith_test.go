package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Vectors from TFLite's add_test.cc, sub_test.cc and mul_test.cc (float
// NoActivation / ReluN1To1 cases, int32 and quantised [-1, 1] cases with
// their one-step tolerance), broadcasting against a float64 reference,
// and error cases.

func binNode(opts any, a, b *ops.Tensor, out *ops.Tensor) *ops.Node {
	return node(opts, []*ops.Tensor{a, b}, out)
}

func TestArithFloat(t *testing.T) {
	a := []float32{-2.0, 0.2, 0.7, 0.8}
	b := []float32{0.1, 0.2, 0.3, 0.5}
	for _, tc := range []struct {
		name string
		k    ops.Kernel
		opts any
		want []float64
	}{
		{"add", NewAdd(), &AddOptions{}, []float64{-1.9, 0.4, 1.0, 1.3}},
		{"add relu1", NewAdd(), &AddOptions{Activation: ops.ActReluN1To1}, []float64{-1.0, 0.4, 1.0, 1.0}},
		{"sub", NewSub(), &SubOptions{}, []float64{-2.1, 0.0, 0.4, 0.3}},
		{"mul", NewMul(), &MulOptions{}, []float64{-0.2, 0.04, 0.21, 0.4}},
		{"mul relu", NewMul(), &MulOptions{Activation: ops.ActRelu}, []float64{0, 0.04, 0.21, 0.4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := binNode(tc.opts, tensorOf(ops.Float32, []int{1, 2, 2, 1}, a), tensorOf(ops.Float32, []int{1, 2, 2, 1}, b), outTensor(ops.Float32))
			run(t, tc.k, n)
			nearFloats(t, "output", n.Outputs[0].Float32s(), tc.want, 1e-6)
			noAllocs(t, tc.k, n)
		})
	}
}

func TestArithInt(t *testing.T) {
	a := []int32{-20, 2, 7, 8}
	b := []int32{1, 2, 3, 5}
	for _, tc := range []struct {
		k    ops.Kernel
		opts any
		want []int
	}{
		{NewAdd(), &AddOptions{}, []int{-19, 4, 10, 13}},
		{NewSub(), &SubOptions{}, []int{-21, 0, 4, 3}},
		{NewMul(), &MulOptions{}, []int{-20, 4, 21, 40}},
		{NewMul(), &MulOptions{Activation: ops.ActRelu6}, []int{0, 4, 6, 6}},
	} {
		n := binNode(tc.opts, tensorOf(ops.Int32, []int{4}, a), tensorOf(ops.Int32, []int{4}, b), outTensor(ops.Int32))
		run(t, tc.k, n)
		equalInts(t, "int32", n.Outputs[0].Int32s(), tc.want)
		noAllocs(t, tc.k, n)
	}
	n := binNode(&AddOptions{}, tensorOf(ops.Int64, []int{2}, []int64{1 << 40, -3}), tensorOf(ops.Int64, []int{1}, []int64{5}), outTensor(ops.Int64))
	run(t, NewAdd(), n)
	equalInts(t, "int64", n.Outputs[0].Int64s(), []int64{1<<40 + 5, 2})
}

// float64 reference with broadcasting over NumPy rules.
func broadcastRef(sa, sb []int, a, b []float32, f func(x, y float64) float64) ([]int, []float64) {
	rank := max(len(sa), len(sb))
	pad := func(s []int) []int {
		p := make([]int, rank)
		for i := range p {
			p[i] = 1
		}
		copy(p[rank-len(s):], s)
		return p
	}
	pa, pb := pad(sa), pad(sb)
	out := make([]int, rank)
	total := 1
	for i := range out {
		out[i] = max(pa[i], pb[i])
		total *= out[i]
	}
	res := make([]float64, total)
	idx := make([]int, rank)
	for o := 0; o < total; o++ {
		rem := o
		for i := rank - 1; i >= 0; i-- {
			idx[i] = rem % out[i]
			rem /= out[i]
		}
		ia, ib := 0, 0
		for i := 0; i < rank; i++ {
			ia = ia*pa[i] + idx[i]%pa[i]
			ib = ib*pb[i] + idx[i]%pb[i]
		}
		res[o] = f(float64(a[ia]), float64(b[ib]))
	}
	return out, res
}

func TestArithBroadcastFloat(t *testing.T) {
	r := lcg(5)
	shapes := [][2][]int{
		{{2, 3, 4}, {4}}, {{1, 3, 1, 2}, {2, 1, 4, 1}}, {{5}, {3, 1}}, {{2, 1, 2, 1, 2, 3}, {1, 2, 1, 3, 1, 1}},
		{{}, {2, 2}}, {{3, 1}, {3, 1}},
	}
	for _, sh := range shapes {
		sa, sb := sh[0], sh[1]
		na, nb := 1, 1
		for _, d := range sa {
			na *= d
		}
		for _, d := range sb {
			nb *= d
		}
		a, b := make([]float32, na), make([]float32, nb)
		for i := range a {
			a[i] = r.float(-2, 2)
		}
		for i := range b {
			b[i] = r.float(-2, 2)
		}
		for _, op := range []struct {
			k    ops.Kernel
			opts any
			f    func(x, y float64) float64
		}{
			{NewAdd(), &AddOptions{}, func(x, y float64) float64 { return x + y }},
			{NewSub(), &SubOptions{}, func(x, y float64) float64 { return x - y }},
			{NewMul(), &MulOptions{}, func(x, y float64) float64 { return x * y }},
		} {
			n := binNode(op.opts, tensorOf(ops.Float32, sa, a), tensorOf(ops.Float32, sb, b), outTensor(ops.Float32))
			run(t, op.k, n)
			wantS, want := broadcastRef(sa, sb, a, b, op.f)
			wantShape(t, n.Outputs[0].Shape, wantS)
			nearFloats(t, "output", n.Outputs[0].Float32s(), want, 1e-6)
			noAllocs(t, op.k, n)
		}
	}
}

func quantBin(t *testing.T, k ops.Kernel, opts any, typ ops.DataType, a, b []float32, sa, sb []int, f func(x, y float64) float64, want []float64) {
	t.Helper()
	lo, hi, _ := ops.TypeRange(typ)
	const scale = 2.0 / 255
	zp := int64(0)
	if typ == ops.Uint8 {
		zp = 128
	}
	mk := func(v []float32, s []int) *ops.Tensor {
		qv := quantizeTo(v, scale, int32(zp), lo, hi)
		if typ == ops.Int8 {
			return q(tensorOf(ops.Int8, s, toInt8(qv)), scale, zp)
		}
		return q(tensorOf(ops.Uint8, s, toUint8(qv)), scale, zp)
	}
	n := binNode(opts, mk(a, sa), mk(b, sb), q(outTensor(typ), scale, zp))
	run(t, k, n)
	var got []float64
	for i := 0; i < n.Outputs[0].NumElements(); i++ {
		var v int64
		if typ == ops.Int8 {
			v = int64(n.Outputs[0].Int8s()[i])
		} else {
			v = int64(n.Outputs[0].Uint8s()[i])
		}
		got = append(got, float64(v-zp)*scale)
	}
	// TFLite's tolerance for these tests: about one quantisation step.
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1.01*scale+1e-6 {
			t.Fatalf("element %d: %v, want %v ± one step (all %v)", i, got[i], want[i], got)
		}
	}
	noAllocs(t, k, n)
}

func TestArithQuantized(t *testing.T) {
	in1 := [][]float32{{0.1, 0.2, 0.3, 0.4}, {-0.8, 0.2, 0.4, 0.7}, {-0.8, 0.2, 0.7, 0.3}}
	in2 := [][]float32{{0.6, 0.4, 0.3, 0.1}, {0.6, 0.4, 0.5, -0.8}, {0.6, 0.4, -0.8, 0.5}}
	addWant := [][]float64{{0.7, 0.6, 0.6, 0.5}, {-0.2, 0.6, 0.9, -0.1}, {-0.2, 0.6, -0.1, 0.8}}
	for _, typ := range []ops.DataType{ops.Uint8, ops.Int8} {
		for i := range in1 {
			s := []int{1, 2, 2, 1}
			quantBin(t, NewAdd(), &AddOptions{}, typ, in1[i], in2[i], s, s, nil, addWant[i])
			sub := make([]float64, 4)
			for j := range sub {
				sub[j] = math.Max(-1, math.Min(1, float64(in1[i][j])-float64(in2[i][j])))
			}
			quantBin(t, NewSub(), &SubOptions{}, typ, in1[i], in2[i], s, s, nil, sub)
		}
		s := []int{1, 2, 2, 1}
		quantBin(t, NewMul(), &MulOptions{}, typ, []float32{-0.8, 0.2, 0.9, 0.7}, []float32{0.6, 0.4, 0.9, 0.8}, s, s, nil, []float64{-0.48, 0.08, 0.81, 0.56})
		// Broadcast: [2, 3] + [3].
		quantBin(t, NewAdd(), &AddOptions{Activation: ops.ActRelu}, typ, []float32{0.1, -0.5, 0.3, 0.4, 0.2, -0.9}, []float32{0.2, 0.1, -0.5}, []int{2, 3}, []int{3}, nil,
			[]float64{0.3, 0, 0, 0.6, 0.3, 0})
	}
}

// Exact values of TFLite's 8-bit ADD arithmetic, worked by hand: with
// equal scales s, the inputs are rescaled by 1/2 after a shift of 20, the
// output by 2^-20·2 = 2^-19, so out = round(a + b) exactly for integer q.
func TestAddInt8Exact(t *testing.T) {
	n := binNode(&AddOptions{}, q(tensorOf(ops.Int8, []int{4}, []int8{1, -5, 100, -100}), 0.5, 0),
		q(tensorOf(ops.Int8, []int{4}, []int8{2, 3, 100, -100}), 0.5, 0), q(outTensor(ops.Int8), 0.5, 0))
	run(t, NewAdd(), n)
	equalInts(t, "output", n.Outputs[0].Int8s(), []int{3, -2, 127, -128})
	// Output scale twice the input: (1+2)/2 = 1.5 → 2, (-5+3)/2 = -1.
	n = binNode(&AddOptions{}, q(tensorOf(ops.Int8, []int{2}, []int8{1, -5}), 0.5, 0),
		q(tensorOf(ops.Int8, []int{2}, []int8{2, 3}), 0.5, 0), q(outTensor(ops.Int8), 1, 0))
	run(t, NewAdd(), n)
	equalInts(t, "output", n.Outputs[0].Int8s(), []int{2, -1})
}

func TestArithInt16(t *testing.T) {
	const s = 1.0 / 4096
	// Power-of-two path: input 1 has half the output scale, so it is
	// shifted right by one with gemmlowp rounding (-1.5 → -2, 2.5 → 3).
	a := q(tensorOf(ops.Int16, []int{4}, []int16{100, 32000, -7, 3}), s, 0)
	b := q(tensorOf(ops.Int16, []int{4}, []int16{5, 2000, -3, -3}), s/2, 0)
	n := binNode(&AddOptions{PotScaleInt16: true}, a, b, q(outTensor(ops.Int16), s, 0))
	k := NewAdd()
	run(t, k, n)
	equalInts(t, "pot add", n.Outputs[0].Int16s(), []int{103, 32767, -9, 1})
	noAllocs(t, k, n)
	n = binNode(&SubOptions{PotScaleInt16: true}, a, b, q(outTensor(ops.Int16), s, 0))
	run(t, NewSub(), n)
	equalInts(t, "pot sub", n.Outputs[0].Int16s(), []int{97, 31000, -5, 5})
	// General path (left shift 15) with equal scales: exact sums.
	n = binNode(&AddOptions{PotScaleInt16: false}, q(tensorOf(ops.Int16, []int{3}, []int16{100, -200, 30000}), 0.01, 0),
		q(tensorOf(ops.Int16, []int{3}, []int16{1, 50, 30000}), 0.01, 0), q(outTensor(ops.Int16), 0.01, 0))
	run(t, NewAdd(), n)
	equalInts(t, "general add", n.Outputs[0].Int16s(), []int{101, -150, 32767})
	n = binNode(&MulOptions{}, q(tensorOf(ops.Int16, []int{3}, []int16{100, -200, 30000}), 0.01, 0),
		q(tensorOf(ops.Int16, []int{3}, []int16{100, 50, 2}), 0.01, 0), q(outTensor(ops.Int16), 0.01, 0))
	run(t, NewMul(), n)
	equalInts(t, "mul", n.Outputs[0].Int16s(), []int{100, -100, 600})
}

func TestArithErrors(t *testing.T) {
	f := func(s ...int) *ops.Tensor {
		n := 1
		for _, d := range s {
			n *= d
		}
		return tensorOf(ops.Float32, s, make([]float32, n))
	}
	wantPrepareError(t, NewAdd(), binNode(nil, f(2, 3), f(2, 4), outTensor(ops.Float32)), "not broadcastable")
	wantPrepareError(t, NewSub(), binNode(nil, f(2), tensorOf(ops.Int32, []int{2}, []int32{1, 2}), outTensor(ops.Float32)), "input 1", "int32")
	// Seven alternating broadcast dimensions cannot be merged into six.
	wantPrepareError(t, NewMul(), binNode(nil, f(2, 1, 2, 1, 2, 1, 2), f(1, 2, 1, 2, 1, 2, 1), outTensor(ops.Float32)), "more than 6")
	wantPrepareError(t, NewMul(), binNode(nil, tensorOf(ops.Bool, []int{1}, []bool{true}), tensorOf(ops.Bool, []int{1}, []bool{true}), outTensor(ops.Bool)), "bool")
	wantPrepareError(t, NewAdd(), binNode(nil, q(tensorOf(ops.Int8, []int{1}, []int8{1}), 1, 0), tensorOf(ops.Int8, []int{1}, []int8{1}), q(outTensor(ops.Int8), 1, 0)), "input 1", "quantization")
	wantPrepareError(t, NewAdd(), binNode(&AddOptions{PotScaleInt16: true}, q(tensorOf(ops.Int16, []int{2}, []int16{1, 1}), 1, 0), q(tensorOf(ops.Int16, []int{1}, []int16{1}), 1, 0), q(outTensor(ops.Int16), 1, 0)), "does not broadcast")
	wantPrepareError(t, NewMul(), binNode(nil, q(tensorOf(ops.Int16, []int{1}, []int16{1}), 1, 1), q(tensorOf(ops.Int16, []int{1}, []int16{1}), 1, 0), q(outTensor(ops.Int16), 1, 0)), "zero points")
}
