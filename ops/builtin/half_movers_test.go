package builtin

import (
	"bytes"
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of the float16 and bfloat16 versions of the data-movement
// operators (TRANSPOSE v8-9, SLICE v8, UNPACK v5, CONCATENATION v6): each
// must move the 2-byte elements exactly as it moves int16 ones.

func TestHalfDataMovement(t *testing.T) {
	raw := make([]uint16, 24)
	for i := range raw {
		raw[i] = uint16(0x3c00 + 37*i) // float16 bit patterns, NaNs among them
	}
	type build func(typ ops.DataType) *ops.Node
	x := func(typ ops.DataType) *ops.Tensor { return tensorOf(typ, []int{2, 3, 4}, raw) }
	for _, tc := range []struct {
		name string
		k    func() ops.Kernel
		n    build
	}{
		{"TRANSPOSE", NewTranspose, func(typ ops.DataType) *ops.Node {
			return node(nil, []*ops.Tensor{x(typ), c32(2, 0, 1)}, outTensor(typ))
		}},
		{"SLICE", NewSlice, func(typ ops.DataType) *ops.Node {
			return node(nil, []*ops.Tensor{x(typ), c32(1, 0, 1), c32(1, 2, 3)}, outTensor(typ))
		}},
		{"UNPACK", NewUnpack, func(typ ops.DataType) *ops.Node {
			return node(&UnpackOptions{Num: 3, Axis: 1}, []*ops.Tensor{x(typ)}, outTensor(typ), outTensor(typ), outTensor(typ))
		}},
		{"CONCATENATION", NewConcatenation, func(typ ops.DataType) *ops.Node {
			return node(&ConcatenationOptions{Axis: 2}, []*ops.Tensor{x(typ), x(typ)}, outTensor(typ))
		}},
	} {
		want := tc.n(ops.Int16)
		run(t, tc.k(), want)
		for _, typ := range []ops.DataType{ops.Float16, ops.BFloat16} {
			got := tc.n(typ)
			run(t, tc.k(), got)
			for i := range got.Outputs {
				g, w := got.Outputs[i], want.Outputs[i]
				wantShape(t, g.Shape, w.Shape)
				if !bytes.Equal(g.Data[:g.Bytes()], w.Data[:w.Bytes()]) {
					t.Fatalf("%s %s: output %d differs from the int16 one", tc.name, typ, i)
				}
			}
		}
	}
}

// TestSinCosHalf checks SIN and COS v2 on every float16 value: the result
// is the float16 nearest to the function of the widened value (float64
// reference; a float32 result within an ulp of a rounding boundary may
// round either way, so one float16 step is allowed there), and NaN and
// infinities give NaN.
func TestSinCosHalf(t *testing.T) {
	in := make([]uint16, 1<<16)
	for i := range in {
		in[i] = uint16(i)
	}
	for _, tc := range []struct {
		name string
		k    func() ops.Kernel
		f    func(float64) float64
	}{{"SIN", NewSin, math.Sin}, {"COS", NewCos, math.Cos}} {
		n := node(nil, []*ops.Tensor{tensorOf(ops.Float16, []int{len(in)}, in)}, outTensor(ops.Float16))
		run(t, tc.k(), n)
		out := ops.View[uint16](n.Outputs[0].Data)
		for i, h := range in {
			x := float64(halfToFloat32(h))
			g := float64(halfToFloat32(out[i]))
			w := tc.f(x)
			if math.IsNaN(w) || math.IsInf(x, 0) {
				if !math.IsNaN(g) {
					t.Fatalf("%s(%g) = %g, want NaN", tc.name, x, g)
				}
				continue
			}
			// One float16 step at w's magnitude (subnormal steps below 2^-14).
			step := math.Max(math.Ldexp(1, math.Ilogb(math.Abs(w))-10), math.Ldexp(1, -24))
			if math.Abs(g-w) > step*0.5+1e-12 && math.Abs(g-w) > step {
				t.Fatalf("%s(%g) = %g, want %g (float16 step %g)", tc.name, x, g, w, step)
			}
			if math.Abs(g-w) > step*0.5*(1+1e-6) {
				// Only a value within a float32 ulp of a midpoint may round the other way.
				mid := math.Abs(math.Abs(g-w) - step*0.5)
				if mid > math.Abs(w)*1.2e-7+1e-30 {
					t.Fatalf("%s(%g) = %g, want the nearest float16 to %g", tc.name, x, g, w)
				}
			}
		}
	}
	wantPrepareError(t, NewSin(), node(nil, []*ops.Tensor{tensorOf(ops.BFloat16, []int{1}, []uint16{0})}, outTensor(ops.BFloat16)), "bfloat16")
}
