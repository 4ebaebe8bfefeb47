package builtin

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of MAXIMUM and MINIMUM: TFLite's kernel test vectors
// (maximum_minimum_test.cc) and float64 references over broadcast shapes.

func TestMaximumMinimumTFLiteVectors(t *testing.T) {
	sh := []int{3, 1, 2}
	f := func(v ...float32) *ops.Tensor { return tensorOf(ops.Float32, sh, v) }
	a, b := f(1, 0, -1, 11, -2, -1.44), f(-1, 0, 1, 12, -3, -1.43)
	nearFloats(t, "FloatTest max", binRun(t, NewMaximum(), nil, a, b, ops.Float32).Float32s(), []float64{1, 0, 1, 12, -2, -1.43}, 1e-7)
	nearFloats(t, "FloatTest min", binRun(t, NewMinimum(), nil, a, b, ops.Float32).Float32s(), []float64{-1, 0, -1, 11, -3, -1.44}, 1e-7)
	u := func(v ...uint8) *ops.Tensor { return tensorOf(ops.Uint8, sh, v) }
	equalInts(t, "Uint8Test max", binRun(t, NewMaximum(), nil, u(1, 0, 2, 11, 2, 23), u(0, 0, 1, 12, 255, 1), ops.Uint8).Data, []int{1, 0, 2, 12, 255, 23})
	equalInts(t, "Uint8Test min", binRun(t, NewMinimum(), nil, u(1, 0, 2, 11, 2, 23), u(0, 0, 1, 12, 255, 1), ops.Uint8).Data, []int{0, 0, 1, 11, 2, 1})
	i16 := func(v ...int16) *ops.Tensor { return tensorOf(ops.Int16, sh, v) }
	equalInts(t, "Int16Test max", binRun(t, NewMaximum(), nil, i16(-32768, 0, 2, 11, 2, 23), i16(0, 0, 1, 32767, 123, 1), ops.Int16).Int16s(), []int{0, 0, 2, 32767, 123, 23})
	// WithBroadcastTest: [3,1,2] against [2].
	a = f(1, 0, -1, -2, -1.44, 11)
	bb := tensorOf(ops.Float32, []int{2}, []float32{0.5, 2})
	nearFloats(t, "WithBroadcastTest max", binRun(t, NewMaximum(), nil, a, bb, ops.Float32).Float32s(), []float64{1, 2, 0.5, 2, 0.5, 11}, 0)
	nearFloats(t, "WithBroadcastTest min", binRun(t, NewMinimum(), nil, a, bb, ops.Float32).Float32s(), []float64{0.5, 0, -1, -2, -1.44, 2}, 1e-7)
	// Int32WithBroadcastTest_ScalarY: a rank-0 operand.
	ai := tensorOf(ops.Int32, sh, []int32{1, 0, -1, -2, 3, 11})
	equalInts(t, "Int32 scalar max", binRun(t, NewMaximum(), nil, ai, tensorOf(ops.Int32, []int{}, []int32{2}), ops.Int32).Int32s(), []int{2, 2, 2, 2, 3, 11})
	equalInts(t, "Int32 scalar min", binRun(t, NewMinimum(), nil, ai, tensorOf(ops.Int32, []int{1}, []int32{2}), ops.Int32).Int32s(), []int{1, 0, -1, -2, 2, 2})
	// Int8Test8D: equal 8-D shapes.
	sh8 := []int{3, 1, 2, 1, 1, 1, 1, 1}
	out := binRun(t, NewMaximum(), nil, tensorOf(ops.Int8, sh8, []int8{1, 0, 2, 11, 2, 23}), tensorOf(ops.Int8, sh8, []int8{0, 0, 1, 12, 123, 1}), ops.Int8)
	equalInts(t, "Int8Test8D", out.Int8s(), []int{1, 0, 2, 12, 123, 23})
	wantShape(t, out.Shape, sh8)
	// NaN: the conditional selects the second operand.
	nan := float32(math.NaN())
	got := binRun(t, NewMaximum(), nil, tensorOf(ops.Float32, []int{2}, []float32{nan, 1}), tensorOf(ops.Float32, []int{2}, []float32{1, nan}), ops.Float32).Float32s()
	if got[0] != 1 || !math.IsNaN(float64(got[1])) {
		t.Fatalf("MAXIMUM with NaN: %v, want [1 NaN]", got)
	}
}

// TestMaximumMinimumIntBroadcast checks the vector int8, uint8 and int16
// paths against an element-by-element reference over every broadcast
// pattern vectorRuns distinguishes (equal shapes, a scalar either side,
// a column, a short row tiled, a general gather) at sizes long enough
// for the vector loops and their tails, and with the output written in
// place over either input.
func TestMaximumMinimumIntBroadcast(t *testing.T) {
	shapes := [][2][]int{
		{{2, 33, 40}, {2, 33, 40}},
		{{1, 57, 57, 7}, {1}},
		{{1}, {3, 101}},
		{{2, 33, 40}, {2, 33, 1}},
		{{5, 9, 3}, {3}},
		{{2, 1, 40}, {2, 33, 1}},
		{{4, 1, 3, 1}, {1, 5, 1, 70}},
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, sh := range shapes {
		var bc broadcast
		if err := bc.prepare(sh[0], sh[1]); err != nil {
			t.Fatal(err)
		}
		count := 1
		for _, d := range bc.outShape {
			count *= d
		}
		// index maps an output element to its two input elements.
		index := func(o int) (ia, ib int) {
			rank := len(bc.outShape)
			for d, sa, sb := rank-1, 1, 1; d >= 0; d-- {
				c := o % bc.outShape[d]
				o /= bc.outShape[d]
				if j := len(sh[0]) - rank + d; j >= 0 {
					if sh[0][j] != 1 {
						ia += c * sa
					}
					sa *= sh[0][j]
				}
				if j := len(sh[1]) - rank + d; j >= 0 {
					if sh[1][j] != 1 {
						ib += c * sb
					}
					sb *= sh[1][j]
				}
			}
			return
		}
		for _, tc := range []struct {
			name string
			k    func() ops.Kernel
			sel  func(x, y int64) int64
		}{
			{"MAXIMUM", NewMaximum, func(x, y int64) int64 { return max(x, y) }},
			{"MINIMUM", NewMinimum, func(x, y int64) int64 { return min(x, y) }},
		} {
			for _, typ := range []ops.DataType{ops.Int8, ops.Uint8, ops.Int16} {
				a, b := randIntTensor(r, typ, sh[0]), randIntTensor(r, typ, sh[1])
				want := make([]int64, count)
				for o := range want {
					ia, ib := index(o)
					want[o] = tc.sel(intAt(a, ia), intAt(b, ib))
				}
				what := fmt.Sprintf("%s %s %v %v", tc.name, typ, sh[0], sh[1])
				check := func(how string, out *ops.Tensor) {
					t.Helper()
					for o, w := range want {
						if g := intAt(out, o); g != w {
							t.Fatalf("%s%s: element %d = %d, want %d", what, how, o, g, w)
						}
					}
				}
				check("", binRun(t, tc.k(), nil, a, b, typ))
				// In place: the output shares the storage of the input
				// of its shape.
				for side, in := range []*ops.Tensor{a, b} {
					if !ops.SameShape(in.Shape, bc.outShape) {
						continue
					}
					x, y := cloneTensor(a), cloneTensor(b)
					out := outTensor(typ)
					if side == 0 {
						out.Data = x.Data
					} else {
						out.Data = y.Data
					}
					k := tc.k()
					n := binNode(nil, x, y, out)
					if err := prepare(k, n); err != nil {
						t.Fatal(err)
					}
					if err := k.Eval(n); err != nil {
						t.Fatal(err)
					}
					check(fmt.Sprintf(" in place over input %d", side), out)
				}
			}
		}
	}
}

func randIntTensor(r *rand.Rand, typ ops.DataType, shape []int) *ops.Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	switch typ {
	case ops.Int8:
		v := make([]int8, n)
		for i := range v {
			v[i] = int8(r.IntN(256) - 128)
		}
		return tensorOf(typ, shape, v)
	case ops.Uint8:
		v := make([]uint8, n)
		for i := range v {
			v[i] = uint8(r.IntN(256))
		}
		return tensorOf(typ, shape, v)
	}
	v := make([]int16, n)
	for i := range v {
		v[i] = int16(r.IntN(65536) - 32768)
	}
	return tensorOf(typ, shape, v)
}

func intAt(t *ops.Tensor, i int) int64 {
	switch t.Type {
	case ops.Int8:
		return int64(t.Int8s()[i])
	case ops.Uint8:
		return int64(t.Data[i])
	}
	return int64(t.Int16s()[i])
}

func cloneTensor(t *ops.Tensor) *ops.Tensor {
	c := &ops.Tensor{Type: t.Type, Shape: append([]int(nil), t.Shape...)}
	c.Data = alignedBytes(len(t.Data))
	copy(c.Data, t.Data)
	return c
}
