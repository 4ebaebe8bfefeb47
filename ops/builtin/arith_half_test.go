package builtin

import (
	"math"
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Tests of the ADD and MUL paths TFLite added in later versions:
// non-quantised int16 (wrapping, then the activation's bounds), float16
// (float32 arithmetic rounded to half, then clamped to the half range),
// and MUL's uint32 and complex64.

func half(f float32) uint16 { return float32ToHalf(f) }

func TestAddMulInt16Plain(t *testing.T) {
	a := tensorOf(ops.Int16, []int{4}, []int16{30000, -30000, 7, -3})
	b := tensorOf(ops.Int16, []int{4}, []int16{10000, -10000, 8, 2})
	out := binRun(t, NewAdd(), &AddOptions{}, a, b, ops.Int16)
	equalInts(t, "ADD int16 wraps", out.Int16s(), []int{int(int16(-25536)), 25536, 15, -1})
	out = binRun(t, NewAdd(), &AddOptions{Activation: ops.ActRelu6}, a, b, ops.Int16)
	equalInts(t, "ADD int16 relu6", out.Int16s(), []int{0, 6, 6, 0})
	out = binRun(t, NewMul(), &MulOptions{}, a, b, ops.Int16)
	p := int32(30000) * 10000 // 300000000 wraps to -17920 in int16
	equalInts(t, "MUL int16 wraps", out.Int16s(), []int{int(int16(p)), int(int16(p)), 56, -6})
	out = binRun(t, NewMul(), &MulOptions{Activation: ops.ActReluN1To1}, a, tensorOf(ops.Int16, []int{1}, []int16{1}), ops.Int16)
	equalInts(t, "MUL int16 broadcast relu_n1_to_1", out.Int16s(), []int{1, -1, 1, -1})
}

func TestAddMulFloat16(t *testing.T) {
	xs := []float32{1, -2.5, 60000, 0.1, float32(math.NaN()), 3}
	ys := []float32{2, 0.25, 60000, 0.2, 1, float32(math.Inf(1))}
	a := tensorOf(ops.Float16, []int{6}, func() []uint16 {
		v := make([]uint16, len(xs))
		for i, x := range xs {
			v[i] = half(x)
		}
		return v
	}())
	b := tensorOf(ops.Float16, []int{6}, func() []uint16 {
		v := make([]uint16, len(ys))
		for i, y := range ys {
			v[i] = half(y)
		}
		return v
	}())
	check := func(name string, got []uint16, op func(x, y float32) float32, lo, hi float32) {
		t.Helper()
		for i := range got {
			x, y := halfToFloat32(a.Uint16s()[i]), halfToFloat32(b.Uint16s()[i])
			r := halfToFloat32(half(op(x, y)))
			var w uint16
			switch {
			case r < lo:
				w = half(lo)
			case hi < r:
				w = half(hi)
			default:
				w = half(r)
			}
			if got[i] != w {
				t.Errorf("%s: element %d is %#x (%v), want %#x (%v)", name, i, got[i], halfToFloat32(got[i]), w, halfToFloat32(w))
			}
		}
	}
	out := binRun(t, NewAdd(), &AddOptions{}, a, b, ops.Float16)
	check("ADD", out.Uint16s(), func(x, y float32) float32 { return x + y }, -65504, 65504)
	// 60000+60000 overflows half to +Inf, which the NONE clamp turns into
	// 65504; NaN stays NaN.
	if got := out.Uint16s(); got[2] != 0x7bff || got[4]&0x7c00 != 0x7c00 || got[4]&0x3ff == 0 {
		t.Errorf("ADD float16 overflow/NaN: %#x %#x", got[2], got[4])
	}
	out = binRun(t, NewMul(), &MulOptions{Activation: ops.ActRelu}, a, b, ops.Float16)
	check("MUL relu", out.Uint16s(), func(x, y float32) float32 { return x * y }, 0, 65504)
	// Broadcast a scalar.
	out = binRun(t, NewAdd(), &AddOptions{Activation: ops.ActRelu6}, a, tensorOf(ops.Float16, []int{1}, []uint16{half(1)}), ops.Float16)
	if got, want := halfToFloat32(out.Uint16s()[1]), float32(0); got != want {
		t.Errorf("ADD relu6 broadcast: %v, want %v", got, want)
	}
}

func TestMulUint32Complex64(t *testing.T) {
	a := tensorOf(ops.Uint32, []int{3}, []uint32{1 << 31, 3, 5})
	b := tensorOf(ops.Uint32, []int{3}, []uint32{2, 2, 0})
	out := binRun(t, NewMul(), &MulOptions{}, a, b, ops.Uint32)
	equalInts(t, "MUL uint32 wraps", out.Uint32s(), []int{0, 6, 0})
	out = binRun(t, NewMul(), &MulOptions{Activation: ops.ActRelu6}, a, b, ops.Uint32)
	equalInts(t, "MUL uint32 relu6", out.Uint32s(), []int{0, 6, 0})
	// RELU_N1_TO_1's lower bound −1 is uint32's maximum in TFLite, so
	// every product clamps to 1.
	out = binRun(t, NewMul(), &MulOptions{Activation: ops.ActReluN1To1}, a, b, ops.Uint32)
	equalInts(t, "MUL uint32 relu_n1_to_1", out.Uint32s(), []int{1, 1, 1})

	inf := float32(math.Inf(1))
	x := tensorOf(ops.Complex64, []int{4}, []float32{1, 2, 3, -1, inf, float32(math.NaN()), 1e30, 1e30})
	y := tensorOf(ops.Complex64, []int{4}, []float32{3, 4, 0, 2, 1, 0, 1e30, 1e30})
	out = binRun(t, NewMul(), &MulOptions{}, x, y, ops.Complex64)
	got := ops.View[float32](out.Data) // (re, im) pairs
	// (1+2i)(3+4i) = -5+10i; (3-i)(2i) = 2+6i.
	if !slices.Equal(got[:4], []float32{-5, 10, 2, 6}) {
		t.Errorf("complex64: %v", got[:4])
	}
	// (Inf+NaN i)·1 is NaN+NaN i in the schoolbook formula; Annex G
	// recovers an infinite result.
	if !cmulIsInf(got[4]) && !cmulIsInf(got[5]) {
		t.Errorf("complex64 infinity recovery: %v %v", got[4], got[5])
	}
	// (1e30+1e30i)² = 0 + 2e60 i: the real part is Inf-Inf = NaN, the
	// imaginary part +Inf; only one is NaN, so no recovery.
	if !cmulIsNaN(got[6]) || !cmulIsInf(got[7]) {
		t.Errorf("complex64 overflow: %v %v", got[6], got[7])
	}
	wantPrepareError(t, NewMul(), binNode(&MulOptions{Activation: ops.ActRelu}, x, y, outTensor(ops.Complex64)), "complex64")
	wantPrepareError(t, NewAdd(), binNode(&AddOptions{}, x, y, outTensor(ops.Complex64)), "complex64")
}
