package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Test vectors from TFLite's cast_test.cc (CastFloatToInt32, CastInt32ToFloat,
// CastFloatToUInt8, CastUInt8ToFloat, CastBoolToFloat, CastFloatToBool,
// CastInt16ToBool, CastComplex64ToFloat, CastFloatToComplex64, the
// saturating float→integer cases and NaN), plus exhaustive float16
// round-trips against an independent conversion.

func castRun(t *testing.T, in *ops.Tensor, out ops.DataType) *ops.Tensor {
	t.Helper()
	n := node(&CastOptions{}, []*ops.Tensor{in}, outTensor(out))
	k := NewCast()
	run(t, k, n)
	noAllocs(t, k, n)
	return n.Outputs[0]
}

func TestCastTFLiteVectors(t *testing.T) {
	f := tensorOf(ops.Float32, []int{3, 2}, []float32{100, 1, 0, 0.4, 1.999, 1.1})
	equalInts(t, "CastFloatToInt32", castRun(t, f, ops.Int32).Int32s(), []int{100, 1, 0, 0, 1, 1})
	i := tensorOf(ops.Int32, []int{3, 2}, []int32{100, 200, 300, 400, 500, 600})
	nearFloats(t, "CastInt32ToFloat", castRun(t, i, ops.Float32).Float32s(), []float64{100, 200, 300, 400, 500, 600}, 0)
	u := tensorOf(ops.Uint8, []int{6}, []uint8{123, 0, 1, 2, 3, 4})
	nearFloats(t, "CastUInt8ToFloat", castRun(t, u, ops.Float32).Float32s(), []float64{123, 0, 1, 2, 3, 4}, 0)
	fu := tensorOf(ops.Float32, []int{6}, []float32{100, 1, 0, 0.4, 1.999, 1.1})
	equalInts(t, "CastFloatToUInt8", castRun(t, fu, ops.Uint8).Uint8s(), []int{100, 1, 0, 0, 1, 1})
	b := tensorOf(ops.Bool, []int{6}, []bool{true, true, false, true, false, true})
	nearFloats(t, "CastBoolToFloat", castRun(t, b, ops.Float32).Float32s(), []float64{1, 1, 0, 1, 0, 1}, 0)
	fb := tensorOf(ops.Float32, []int{6}, []float32{100, -1, 0, 0.4, 0.001, float32(math.NaN())})
	equalInts(t, "CastFloatToBool", castRun(t, fb, ops.Bool).Data, []int{1, 1, 0, 1, 1, 1})
	i16 := tensorOf(ops.Int16, []int{6}, []int16{100, -1, 0, 5, 0, 32767})
	equalInts(t, "CastInt16ToBool", castRun(t, i16, ops.Bool).Data, []int{1, 1, 0, 1, 0, 1})
	c := tensorOf(ops.Float32, []int{3}, []float32{1, 11, 2, 12, 3, 13}) // complex64 pairs
	c.Type = ops.Complex64
	nearFloats(t, "CastComplex64ToFloat", castRun(t, c, ops.Float32).Float32s(), []float64{1, 2, 3}, 0)
	fc := castRun(t, tensorOf(ops.Float32, []int{2}, []float32{1, -2.5}), ops.Complex64)
	nearFloats(t, "CastFloatToComplex64", ops.View[float32](fc.Data), []float64{1, 0, -2.5, 0}, 0)
}

func TestCastSaturationAndWrap(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	f := tensorOf(ops.Float32, []int{7}, []float32{nan, inf, -inf, 3e9, -3e9, 2147483520, -2.9})
	equalInts(t, "float→int32", castRun(t, f, ops.Int32).Int32s(), []int{math.MaxInt32, math.MaxInt32, math.MinInt32, math.MaxInt32, math.MinInt32, 2147483520, -2})
	equalInts(t, "float→int8", castRun(t, f, ops.Int8).Int8s(), []int{127, 127, -128, 127, -128, 127, -2})
	equalInts(t, "float→uint8", castRun(t, f, ops.Uint8).Uint8s(), []int{255, 255, 0, 255, 0, 255, 0})
	equalInts(t, "float→int64", castRun(t, tensorOf(ops.Float32, []int{3}, []float32{nan, 1e19, -1e19}), ops.Int64).Int64s(), []int64{math.MaxInt64, math.MaxInt64, math.MinInt64})
	d := tensorOf(ops.Float64, []int{3}, []float64{2147483647.5, -2147483648.9, 1e300})
	equalInts(t, "double→int32", castRun(t, d, ops.Int32).Int32s(), []int{math.MaxInt32, math.MinInt32, math.MaxInt32})
	// Integer narrowing wraps modulo 2^bits, as static_cast does.
	i := tensorOf(ops.Int32, []int{4}, []int32{300, -129, 65535, -1})
	equalInts(t, "int32→int8", castRun(t, i, ops.Int8).Int8s(), []int{44, 127, -1, -1})
	equalInts(t, "int32→uint8", castRun(t, i, ops.Uint8).Uint8s(), []int{44, 127, 255, 255})
	equalInts(t, "int32→int16", castRun(t, i, ops.Int16).Int16s(), []int{300, -129, -1, -1})
	u32 := castRun(t, i, ops.Uint32).Uint32s()
	if u32[3] != math.MaxUint32 {
		t.Fatalf("int32 -1 → uint32 %d", u32[3])
	}
	// int64 → float32 rounds once (not through float64).
	big := int64(1)<<62 + 1<<38 + 1
	got := castRun(t, tensorOf(ops.Int64, []int{1}, []int64{big}), ops.Float32).Float32s()[0]
	if got != float32(big) {
		t.Fatalf("int64 %d → float32 %v, want %v", big, got, float32(big))
	}
}

// halfRef is an independent float32 → binary16 conversion: it finds the
// nearest representable half by comparing against neighbours in float64,
// ties to the even pattern.
func halfRef(f float32) uint16 {
	if f != f {
		return uint16(math.Float32bits(f)>>16)&0x8000 | 0x7e00
	}
	sign := uint16(0)
	x := float64(f)
	if math.Signbit(x) {
		sign, x = 0x8000, -x
	}
	best, bestD := uint16(0), math.Inf(1)
	for h := uint16(0); h <= 0x7c00; h++ {
		v := float64(halfToFloat32(h))
		d := math.Abs(v - x)
		if d < bestD || d == bestD && h&1 == 0 {
			best, bestD = h, d
		}
	}
	// Values beyond the largest finite half by at least half an ulp go to
	// Inf (65520 and up).
	if x >= 65520 {
		best = 0x7c00
	}
	return sign | best
}

func TestFloat16Conversion(t *testing.T) {
	// Every half round-trips.
	for h := 0; h < 1<<16; h++ {
		f := halfToFloat32(uint16(h))
		if f != f {
			continue
		}
		if got := float32ToHalf(f); got != uint16(h) {
			t.Fatalf("half %#04x → %v → %#04x", h, f, got)
		}
	}
	// Midpoints and random values against the brute-force reference.
	r := lcg(99)
	var vals []float32
	for h := uint16(1); h < 0x7c00; h += 97 {
		a, b := halfToFloat32(h-1), halfToFloat32(h)
		vals = append(vals, float32((float64(a)+float64(b))/2), -float32((float64(a)+float64(b))/2))
	}
	for i := 0; i < 200; i++ {
		vals = append(vals, r.float(-70000, 70000), r.float(-1e-4, 1e-4))
	}
	vals = append(vals, 65519, 65520, 1e-8, float32(math.Inf(-1)))
	for _, v := range vals {
		if got, want := float32ToHalf(v), halfRef(v); got != want {
			t.Fatalf("float32ToHalf(%g) = %#04x, want %#04x", v, got, want)
		}
	}
	out := castRun(t, tensorOf(ops.Float32, []int{2}, []float32{1.5, -0.1}), ops.Float16)
	equalInts(t, "float→float16", out.Uint16s(), []int{0x3e00, int(float32ToHalf(-0.1))})
	bf := castRun(t, tensorOf(ops.Float32, []int{3}, []float32{1, 1.00390625, 1.01171875}), ops.BFloat16)
	equalInts(t, "float→bfloat16 (ties to even)", bf.Uint16s(), []int{0x3f80, 0x3f80, 0x3f82})
	back := castRun(t, out, ops.Float32)
	nearFloats(t, "float16→float", back.Float32s(), []float64{1.5, float64(halfToFloat32(float32ToHalf(-0.1)))}, 0)
}

func TestCastErrors(t *testing.T) {
	wantPrepareError(t, NewCast(), node(nil, []*ops.Tensor{{Type: ops.String, Shape: []int{1}}}, outTensor(ops.Float32)), "string")
	wantPrepareError(t, NewCast(), node(&SoftmaxOptions{}, []*ops.Tensor{tensorOf(ops.Float32, []int{1}, []float32{1})}, outTensor(ops.Int32)), "CastOptions")
}
