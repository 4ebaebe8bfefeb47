package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of RANGE: lengths and values against the definition for every
// type, constant and run-time inputs, and the refusals.

func scalarOf[E any](typ ops.DataType, v E) *ops.Tensor { return tensorOf(typ, []int{}, []E{v}) }

// runDynamic is run followed by one more Eval, which sizes the dynamic
// outputs again (run ends with a Prepare, which leaves them unsized).
func runDynamic(t *testing.T, k ops.Kernel, n *ops.Node) {
	t.Helper()
	run(t, k, n)
	if err := k.Eval(n); err != nil {
		t.Fatalf("Eval: %v", err)
	}
}

func TestRangeInt(t *testing.T) {
	for _, tc := range []struct{ s, l, d int64 }{
		{0, 5, 1}, {0, 5, 2}, {5, 0, -2}, {3, 3, 1}, {-7, 8, 3}, {10, -10, -7}, {0, 1, 100},
		{math.MinInt32, math.MaxInt32, 1 << 30}, {math.MaxInt32, math.MinInt32, -(1 << 30)},
	} {
		// The length by the definition: the values s + i·d on start's side of l.
		var want []int64
		for v := tc.s; tc.d > 0 && v < tc.l || tc.d < 0 && v > tc.l; v += tc.d {
			want = append(want, v)
		}
		for _, typ := range []ops.DataType{ops.Int32, ops.Int64} {
			for _, constant := range []bool{true, false} {
				var in []*ops.Tensor
				if typ == ops.Int32 {
					in = []*ops.Tensor{scalarOf(typ, int32(tc.s)), scalarOf(typ, int32(tc.l)), scalarOf(typ, int32(tc.d))}
				} else {
					in = []*ops.Tensor{scalarOf(typ, tc.s), scalarOf(typ, tc.l), scalarOf(typ, tc.d)}
				}
				if constant {
					for _, x := range in {
						constT(x)
					}
				}
				n := node(nil, in, outTensor(typ))
				k := NewRange()
				runDynamic(t, k, n)
				out := n.Outputs[0]
				wantShape(t, out.Shape, []int{len(want)})
				if typ == ops.Int32 {
					equalInts(t, "range", out.Int32s()[:len(want)], want)
				} else {
					equalInts(t, "range", out.Int64s()[:len(want)], want)
				}
				if (out.Kind == ops.DynamicTensor) == constant {
					t.Fatalf("%v constant=%v: output kind %v", tc, constant, out.Kind)
				}
				noAllocs(t, k, n)
			}
		}
	}
	// int64 extremes: the length needs the full unsigned difference.
	n := node(nil, []*ops.Tensor{scalarOf(ops.Int64, int64(math.MinInt64)), scalarOf(ops.Int64, int64(math.MaxInt64)), scalarOf(ops.Int64, int64(1<<62))}, outTensor(ops.Int64))
	runDynamic(t, NewRange(), n)
	equalInts(t, "int64 extremes", n.Outputs[0].Int64s()[:4], []int64{math.MinInt64, -1 << 62, 0, 1 << 62})
}

func TestRangeFloat(t *testing.T) {
	for _, tc := range []struct{ s, l, d float32 }{
		{0, 1, 0.1}, {1, 0, -0.3}, {-2.5, 2.5, 0.5}, {0, 0, 1}, {0.1, 100, 0.7}, {0, 1, float32(math.Inf(1))},
	} {
		n := node(nil, []*ops.Tensor{scalarOf(ops.Float32, tc.s), scalarOf(ops.Float32, tc.l), scalarOf(ops.Float32, tc.d)}, outTensor(ops.Float32))
		runDynamic(t, NewRange(), n)
		// The length is computed in float32, the values accumulated in float32.
		want := int(math.Ceil(math.Abs(float64((tc.l - tc.s) / tc.d))))
		wantShape(t, n.Outputs[0].Shape, []int{want})
		v := tc.s
		for i, g := range n.Outputs[0].Float32s()[:want] {
			if g != v {
				t.Fatalf("%v: element %d is %g, want %g", tc, i, g, v)
			}
			v += tc.d
		}
	}
}

func TestRangeErrors(t *testing.T) {
	i32 := func(v int32) *ops.Tensor { return scalarOf(ops.Int32, v) }
	f32 := func(v float32) *ops.Tensor { return scalarOf(ops.Float32, v) }
	for _, tc := range []struct {
		name  string
		in    []*ops.Tensor
		out   ops.DataType
		frags []string
	}{
		{"zero delta", []*ops.Tensor{constT(i32(0)), constT(i32(4)), constT(i32(0))}, ops.Int32, []string{"delta", "0"}},
		{"wrong direction", []*ops.Tensor{constT(i32(0)), constT(i32(4)), constT(i32(-1))}, ops.Int32, []string{"does not lead"}},
		{"float wrong direction", []*ops.Tensor{constT(f32(4)), constT(f32(0)), constT(f32(1))}, ops.Float32, []string{"does not lead"}},
		{"nan", []*ops.Tensor{constT(f32(float32(math.NaN()))), constT(f32(0)), constT(f32(1))}, ops.Float32, []string{"does not lead"}},
		{"too long", []*ops.Tensor{constT(f32(0)), constT(f32(1e10)), constT(f32(1))}, ops.Float32, []string{"2^31-1"}},
		{"vector", []*ops.Tensor{tensorOf(ops.Int32, []int{1}, []int32{0}), i32(4), i32(1)}, ops.Int32, []string{"input 0 (start)", "scalar"}},
		{"mixed types", []*ops.Tensor{i32(0), scalarOf(ops.Int64, int64(4)), i32(1)}, ops.Int32, []string{"input 1 (limit)", "int64"}},
		{"output type", []*ops.Tensor{i32(0), i32(4), i32(1)}, ops.Float32, []string{"output 0", "float32"}},
		{"int8", []*ops.Tensor{scalarOf(ops.Int8, int8(0)), scalarOf(ops.Int8, int8(4)), scalarOf(ops.Int8, int8(1))}, ops.Int8, []string{"int8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantPrepareError(t, NewRange(), node(nil, tc.in, outTensor(tc.out)), tc.frags...)
		})
	}
	// Run-time inputs fail at Eval, naming the values.
	n := node(nil, []*ops.Tensor{i32(0), i32(4), i32(0)}, outTensor(ops.Int32))
	k := NewRange()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil {
		t.Fatal("Eval with delta 0 succeeded")
	}
}
