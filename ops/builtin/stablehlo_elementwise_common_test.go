package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of the StableHLO element-wise family and STABLEHLO_SHIFT_LEFT:
// integers against 64-bit arithmetic truncated to the type, floats
// against float64 rounded once, std::max/min's operand choice with NaNs
// and zeros, and the refusals.

func TestStablehloIntegers(t *testing.T) {
	r := lcg(11)
	kernels := []func() ops.Kernel{NewStablehloAdd, NewStablehloMultiply, NewStablehloMaximum, NewStablehloMinimum, NewStablehloAnd}
	for _, typ := range []ops.DataType{ops.Int8, ops.Int16, ops.Int32, ops.Int64, ops.Uint8, ops.Uint16, ops.Uint32, ops.Uint64} {
		es := typ.Size()
		signed := typ == ops.Int8 || typ == ops.Int16 || typ == ops.Int32 || typ == ops.Int64
		const cnt = 64
		ra, rb := make([]byte, cnt*es), make([]byte, cnt*es)
		for i := range ra {
			ra[i], rb[i] = byte(r.next()), byte(r.next())
		}
		// val reads element i as an int64 (sign- or zero-extended).
		val := func(b []byte, i int) int64 {
			v := loadBits(b[i*es:], es)
			if signed && es < 8 && v>>(8*es-1)&1 == 1 {
				v |= ^uint64(0) << (8 * es)
			}
			return int64(v)
		}
		for op, nk := range kernels {
			a, b := tensorOf(typ, []int{4, 16}, ra), tensorOf(typ, []int{4, 16}, rb)
			n := node(nil, []*ops.Tensor{a, b}, outTensor(typ))
			run(t, nk(), n)
			for i := range cnt {
				x, y := val(ra, i), val(rb, i)
				var w int64
				switch stablehloOp(op) {
				case stablehloAdd:
					w = x + y
				case stablehloMul:
					w = x * y
				case stablehloMax, stablehloMin:
					less := x < y
					if !signed {
						less = uint64(x) < uint64(y)
					}
					w = x
					if less == (stablehloOp(op) == stablehloMax) {
						w = y
					}
				default:
					w = x & y
				}
				if g := val(n.Outputs[0].Data, i); g != val(tensorOf(ops.Int64, []int{1}, []int64{w}).Data[:es], 0) {
					t.Fatalf("%s %s: element %d of %d, %d is %d, want %d truncated", stablehloNames[op], typ, i, x, y, g, w)
				}
			}
		}
	}
}

func TestStablehloFloats(t *testing.T) {
	nan := math.NaN()
	xs := []float64{1.5, -2.25, 0, math.Copysign(0, -1), nan, 3, 65504, 1e-7, -1}
	ys := []float64{2.5, -2.25, math.Copysign(0, -1), 0, 1, nan, 65504, 3e-8, math.Inf(1)}
	kernels := []func() ops.Kernel{NewStablehloAdd, NewStablehloMultiply, NewStablehloMaximum, NewStablehloMinimum}
	for _, typ := range []ops.DataType{ops.Float16, ops.Float32, ops.Float64} {
		enc := func(v []float64) *ops.Tensor {
			switch typ {
			case ops.Float16:
				h := make([]uint16, len(v))
				for i, f := range v {
					h[i] = float32ToHalf(float32(f))
				}
				return tensorOf(typ, []int{len(v)}, h)
			case ops.Float32:
				f32 := make([]float32, len(v))
				for i, f := range v {
					f32[i] = float32(f)
				}
				return tensorOf(typ, []int{len(v)}, f32)
			}
			return tensorOf(typ, []int{len(v)}, v)
		}
		dec := func(t *ops.Tensor, i int) float64 {
			switch typ {
			case ops.Float16:
				return float64(halfToFloat32(ops.View[uint16](t.Data)[i]))
			case ops.Float32:
				return float64(t.Float32s()[i])
			}
			return t.Float64s()[i]
		}
		a, b := enc(xs), enc(ys)
		for op, nk := range kernels {
			n := node(nil, []*ops.Tensor{a, b}, outTensor(typ))
			run(t, nk(), n)
			for i := range xs {
				x, y, g := dec(a, i), dec(b, i), dec(n.Outputs[0], i)
				var w float64
				switch stablehloOp(op) {
				case stablehloAdd:
					w = x + y // exact for these operands
				case stablehloMul:
					w = x * y
				case stablehloMax:
					w = x
					if x < y {
						w = y
					}
				default:
					w = x
					if y < x {
						w = y
					}
				}
				// Round the exact result once to the type.
				w = dec(enc([]float64{w}), 0)
				if !(g == w && math.Signbit(g) == math.Signbit(w) || math.IsNaN(g) && math.IsNaN(w)) {
					t.Fatalf("%s %s: %g, %g gives %g, want %g", stablehloNames[op], typ, x, y, g, w)
				}
			}
		}
	}
}

func TestStablehloBoolAndErrors(t *testing.T) {
	a := tensorOf(ops.Bool, []int{4}, []bool{false, false, true, true})
	b := tensorOf(ops.Bool, []int{4}, []bool{false, true, false, true})
	for _, tc := range []struct {
		k    func() ops.Kernel
		want []byte
	}{
		{NewStablehloAdd, []byte{0, 1, 1, 1}}, {NewStablehloMultiply, []byte{0, 0, 0, 1}},
		{NewStablehloMaximum, []byte{0, 1, 1, 1}}, {NewStablehloMinimum, []byte{0, 0, 0, 1}}, {NewStablehloAnd, []byte{0, 0, 0, 1}},
	} {
		n := node(nil, []*ops.Tensor{a, b}, outTensor(ops.Bool))
		run(t, tc.k(), n)
		if string(n.Outputs[0].Data[:4]) != string(tc.want) {
			t.Fatalf("bool: got %v, want %v", n.Outputs[0].Data[:4], tc.want)
		}
	}
	f := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	wantPrepareError(t, NewStablehloAnd(), node(nil, []*ops.Tensor{f(2), f(2)}, outTensor(ops.Float32)), "float32")
	wantPrepareError(t, NewStablehloAdd(), node(nil, []*ops.Tensor{f(2, 3), f(3)}, outTensor(ops.Float32)), "does not broadcast")
	wantPrepareError(t, NewStablehloAdd(), node(nil, []*ops.Tensor{f(2), tensorOf(ops.Int32, []int{2}, []int32{1, 2})}, outTensor(ops.Float32)), "input 1")
	wantPrepareError(t, NewStablehloMultiply(), node(nil, []*ops.Tensor{f(2), f(2)}, outTensor(ops.Float64)), "output 0")
	wantPrepareError(t, NewStablehloAdd(), node(nil, []*ops.Tensor{tensorOf(ops.Complex64, []int{1}, []complex64{1}), tensorOf(ops.Complex64, []int{1}, []complex64{1})}, outTensor(ops.Complex64)), "complex64")
}

func TestStablehloShiftLeft(t *testing.T) {
	x := []int32{1, -1, 3, 0x40, -128, 77, 5, 9}
	s := []int32{0, 1, 7, 2, 8, 31, 32, -1}
	for _, typ := range []ops.DataType{ops.Int8, ops.Int16, ops.Int32} {
		var a, b *ops.Tensor
		switch typ {
		case ops.Int8:
			a, b = tensorOf(typ, []int{8}, toInt8(x)), tensorOf(typ, []int{8}, toInt8(s))
		case ops.Int16:
			a, b = tensorOf(typ, []int{8}, toInt16(x)), tensorOf(typ, []int{8}, toInt16(s))
		default:
			a, b = tensorOf(typ, []int{8}, x), tensorOf(typ, []int{8}, s)
		}
		n := node(nil, []*ops.Tensor{a, b}, outTensor(typ))
		run(t, NewStablehloShiftLeft(), n)
		for i := range x {
			xi, si := loadInt(a, i), loadInt(b, i)
			// The value times 2^s in 64 bits, truncated to the type; 0 outside [0, 31].
			var w int64
			if si >= 0 && si <= 31 {
				w = int64(xi) * (int64(1) << si)
			}
			bits := 8 * typ.Size()
			w = w << (64 - bits) >> (64 - bits)
			if g := int64(loadInt(n.Outputs[0], i)); g != w {
				t.Fatalf("%s: %d << %d = %d, want %d", typ, xi, si, g, w)
			}
		}
	}
	f := tensorOf(ops.Float32, []int{1}, []float32{1})
	wantPrepareError(t, NewStablehloShiftLeft(), node(nil, []*ops.Tensor{f, f}, outTensor(ops.Float32)), "float32")
	i := func(n int) *ops.Tensor { return tensorOf(ops.Int32, []int{n}, make([]int32, n)) }
	wantPrepareError(t, NewStablehloShiftLeft(), node(nil, []*ops.Tensor{i(3), i(2)}, outTensor(ops.Int32)), "shape")
}
