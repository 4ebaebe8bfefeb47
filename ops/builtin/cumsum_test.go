package builtin

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of CUMSUM: TFLite's kernel test vectors, every type, axis and flag
// combination against a scalar scan, the -0 start, and the errors.

func cumsumNode(in *ops.Tensor, axis int32, exclusive, reverse bool) *ops.Node {
	return node(&CumsumOptions{Exclusive: exclusive, Reverse: reverse}, []*ops.Tensor{in, tensorOf(ops.Int32, []int{}, []int32{axis})}, outTensor(in.Type))
}

func TestCumsumTFLiteVectors(t *testing.T) {
	in := tensorOf(ops.Int32, []int{2, 4}, []int32{1, 2, 3, 4, 5, 6, 7, 8})
	for _, c := range []struct {
		axis               int32
		exclusive, reverse bool
		want               []int
	}{
		{1, false, false, []int{1, 3, 6, 10, 5, 11, 18, 26}},
		{0, false, false, []int{1, 2, 3, 4, 6, 8, 10, 12}},
		{1, false, true, []int{10, 9, 7, 4, 26, 21, 15, 8}},
		{1, true, false, []int{0, 1, 3, 6, 0, 5, 11, 18}},
		{1, true, true, []int{9, 7, 4, 0, 21, 15, 8, 0}},
		{-1, false, false, []int{1, 3, 6, 10, 5, 11, 18, 26}},
	} {
		n := cumsumNode(in, c.axis, c.exclusive, c.reverse)
		k := NewCumsum()
		run(t, k, n)
		equalInts(t, "cumsum", n.Outputs[0].Int32s(), c.want)
		noAllocs(t, k, n)
	}
}

func TestCumsumAgainstScan(t *testing.T) {
	r := lcg(31)
	for trial := 0; trial < 200; trial++ {
		rank := r.intn(1, 4)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = r.intn(1, 5)
		}
		axis := r.intn(0, rank-1)
		ex, rev := trial%2 == 1, trial%4 >= 2
		cnt := prod(shape)
		outer, size, inner := prod(shape[:axis]), shape[axis], prod(shape[axis+1:])
		// scan computes one lane the way Eigen does: acc from 0.
		scan := func(get func(i int) float64, add func(a, b float64) float64) []float64 {
			out := make([]float64, cnt)
			for o := 0; o < outer; o++ {
				for in := 0; in < inner; in++ {
					acc := 0.0
					for s := 0; s < size; s++ {
						a := s
						if rev {
							a = size - 1 - s
						}
						i := (o*size+a)*inner + in
						if ex {
							out[i] = acc
							acc = add(acc, get(i))
						} else {
							acc = add(acc, get(i))
							out[i] = acc
						}
					}
				}
			}
			return out
		}
		switch trial % 3 {
		case 0:
			v := make([]float32, cnt)
			for i := range v {
				v[i] = r.float(-3, 3)
			}
			n := cumsumNode(tensorOf(ops.Float32, shape, v), int32(axis-rank*(trial%2)), ex, rev)
			run(t, NewCumsum(), n)
			want := scan(func(i int) float64 { return float64(v[i]) }, func(a, b float64) float64 { return float64(float32(a) + float32(b)) })
			for i, g := range n.Outputs[0].Float32s() {
				if g != float32(want[i]) {
					t.Fatalf("float32 %v axis %d ex %v rev %v: element %d = %v, want %v", shape, axis, ex, rev, i, g, want[i])
				}
			}
		case 1:
			v := make([]int32, cnt)
			for i := range v {
				v[i] = int32(r.next())
			}
			n := cumsumNode(tensorOf(ops.Int32, shape, v), int32(axis), ex, rev)
			run(t, NewCumsum(), n)
			want := scan(func(i int) float64 { return float64(v[i]) }, func(a, b float64) float64 { return float64(int32(int64(a)) + int32(int64(b))) })
			equalInts(t, "int32 (wrapping)", n.Outputs[0].Int32s(), func() []int64 {
				w := make([]int64, cnt)
				for i := range w {
					w[i] = int64(want[i])
				}
				return w
			}())
		default:
			v := make([]int64, cnt)
			for i := range v {
				v[i] = int64(r.intn(-1000, 1000))
			}
			n := cumsumNode(tensorOf(ops.Int64, shape, v), int32(axis), ex, rev)
			run(t, NewCumsum(), n)
			want := scan(func(i int) float64 { return float64(v[i]) }, func(a, b float64) float64 { return a + b })
			for i, g := range n.Outputs[0].Int64s() {
				if float64(g) != want[i] {
					t.Fatalf("int64: element %d = %d, want %v", i, g, want[i])
				}
			}
		}
	}
}

func TestCumsumNegativeZero(t *testing.T) {
	// Eigen's scan adds the first element to 0: -0 becomes +0.
	n := cumsumNode(tensorOf(ops.Float32, []int{3}, []float32{float32(math.Copysign(0, -1)), 1, 2}), 0, false, false)
	run(t, NewCumsum(), n)
	if got := n.Outputs[0].Float32s(); math.Signbit(float64(got[0])) || !slices.Equal(got, []float32{0, 1, 3}) {
		t.Fatalf("got %v (sign bit %v)", got, math.Signbit(float64(got[0])))
	}
}

func TestCumsumErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"int8", cumsumNode(tensorOf(ops.Int8, []int{2}, []int8{1, 2}), 0, false, false), []string{"int8"}},
		{"int64 axis", node(&CumsumOptions{}, []*ops.Tensor{f32(2), tensorOf(ops.Int64, []int{}, []int64{0})}, outTensor(ops.Float32)), []string{"axis", "int64"}},
		{"two axes", node(&CumsumOptions{}, []*ops.Tensor{f32(2), tensorOf(ops.Int32, []int{2}, []int32{0, 0})}, outTensor(ops.Float32)), []string{"axis", "one element"}},
		{"scalar", cumsumNode(f32(), 0, false, false), []string{"scalar"}},
		{"output type", node(&CumsumOptions{}, []*ops.Tensor{f32(2), c32(0)}, outTensor(ops.Int32)), []string{"output 0"}},
		{"options", node(&SplitOptions{}, []*ops.Tensor{f32(2), c32(0)}, outTensor(ops.Float32)), []string{"*CumsumOptions"}},
		{"one input", node(&CumsumOptions{}, []*ops.Tensor{f32(2)}, outTensor(ops.Float32)), []string{"1 inputs"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewCumsum(), c.n, c.wants...) })
	}
	// A bad axis fails at Eval (it is read there), except on an empty input.
	for _, c := range []struct {
		shape []int
		axis  int32
		ok    bool
	}{{[]int{2, 3}, 2, false}, {[]int{2, 3}, -3, false}, {[]int{2, 0}, 7, true}} {
		n := cumsumNode(f32(c.shape...), c.axis, false, false)
		k := NewCumsum()
		if err := prepare(k, n); err != nil {
			t.Fatal(err)
		}
		err := k.Eval(n)
		if c.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "axis") {
			t.Errorf("shape %v axis %d: Eval error %v", c.shape, c.axis, err)
		}
	}
}
