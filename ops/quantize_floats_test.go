package ops

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tflrun/tflrun/arch"
)

var nan32 = float32(math.NaN())

// sameFloat32 is equality that takes two NaNs as equal.
func sameFloat32(a, b float32) bool { return a == b || (a != a && b != b) }

// The quantisers against TFLite's published vectors
// (kernels/internal/tensor_utils_test.cc, uKernels tests).
func TestQuantizeFloatsTFLiteVectors(t *testing.T) {
	in := [][]float32{
		{-640, -635.0, -630, 10.0, 2.0, -5.0, -10.0, 0.0, 1000.0},
		{0, 0, 0, 0, 0, 0, 0, 0, 0},
		{-1e-5, 3e-5, -7e-6, -9e-5, 1e-6, 4e-5, 9e-6, 2e-4, 0},
		{2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000},
	}
	sym := []struct {
		want  []int8
		scale float64
	}{
		{[]int8{-81, -81, -80, 1, 0, -1, -1, 0, 127}, 1000 / 127.0},
		{[]int8{0, 0, 0, 0, 0, 0, 0, 0, 0}, 1},
		{[]int8{-6, 19, -4, -57, 1, 25, 6, 127, 0}, 2e-4 / 127},
	}
	for i, c := range sym {
		q := make([]int8, 9)
		s := SymmetricQuantizeFloats(in[i], q)
		if !slices.Equal(q, c.want) || math.Abs(float64(s)-c.scale) > 1e-6*c.scale {
			t.Errorf("symmetric %d: %v scale %g, want %v scale %g", i, q, s, c.want, c.scale)
		}
	}
	asym := []struct {
		in    int
		want  []int8
		scale float64
		zp    int32
	}{
		// Scales and zero points are ChooseQuantizationParams<int8>(min, max)
		// of TFLite's tests: (max-min)/255 and the nudged zero point.
		{0, []int8{-128, -127, -126, -26, -28, -29, -30, -28, 127}, 1640.0 / 255, -28},
		{1, []int8{0, 0, 0, 0, 0, 0, 0, 0, 0}, 1, 0},
		{3, []int8{127, 127, 127, 127, 127, 127, 127, 127, 127}, 2000.0 / 255, -128},
		{2, []int8{-58, -23, -55, -128, -48, -14, -41, 127, -49}, 2.9e-4 / 255, -49},
	}
	for i, c := range asym {
		q := make([]int8, 9)
		s, zp := AsymmetricQuantizeFloats(in[c.in], q)
		if !slices.Equal(q, c.want) || math.Abs(float64(s)-c.scale) > 1e-6*c.scale || zp != c.zp {
			t.Errorf("asymmetric %d: %v scale %g zp %d, want %v scale %g zp %d", i, q, s, zp, c.want, c.scale, c.zp)
		}
	}
}

// The edge cases: empty, all-equal and zero ranges, and NaN, whose result
// depends on which elements std::minmax_element compares and on
// std::min/std::max keeping their first argument when a comparison with NaN
// fails. The cases marked "scan" fail for a forward scan that takes the
// last maximum with !(v < max); those marked "go" fail for a scan with
// v > max and Go's NaN-propagating min/max (the two versions this one
// replaced).
func TestQuantizeFloatsEdgeCases(t *testing.T) {
	sym := []struct {
		name  string
		in    []float32
		want  []int8
		scale float32
	}{
		{"empty", nil, []int8{}, 1},
		{"all zero", []float32{0, 0, 0}, []int8{0, 0, 0}, 1},
		{"negative zero", []float32{float32(math.Copysign(0, -1)), 0}, []int8{0, 0}, 1},
		{"all equal", []float32{-4, -4}, []int8{-127, -127}, float32(4) / 127},
		// scan: the pair (NaN, 1) tries only the NaN for the minimum and
		// only 1 for the maximum, so the range stays [5, 6]; a scan ends
		// with 1 as both.
		{"NaN inside", []float32{5, 6, nan32, 1}, []int8{106, 127, -127, 21}, float32(6) / 127},
		// A NaN first element stays the minimum; std::max(|NaN|, 2) is NaN,
		// so is the scale, and every value casts to INT_MIN, clamped to -127.
		{"NaN first", []float32{nan32, 1, 2}, []int8{-127, -127, -127}, nan32},
		// go: the maximum is the NaN (0, the last element, is tried for the
		// minimum only) and std::max(|0|, |NaN|) is 0: an empty range.
		{"NaN maximum", []float32{1, nan32, 0}, []int8{0, 0, 0}, 1},
	}
	for _, c := range sym {
		q := []int8{9, 9, 9, 9, 9, 9}
		s := SymmetricQuantizeFloats(c.in, q)
		if !slices.Equal(q[:len(c.in)], c.want) || !sameFloat32(s, c.scale) {
			t.Errorf("symmetric %s: %v scale %v, want %v scale %v", c.name, q[:len(c.in)], s, c.want, c.scale)
		}
		if q[len(c.in)] != 9 {
			t.Errorf("symmetric %s: wrote past len(x): %v", c.name, q)
		}
	}
	asym := []struct {
		name  string
		in    []float32
		want  []int8
		scale float32
		zp    int32
	}{
		{"empty", nil, []int8{}, 1, 0},
		{"all zero", []float32{0, 0, 0}, []int8{0, 0, 0}, 1, 0},
		// [-2, 0]: the zero point from the maximum wins, 127; each value is
		// round(127 + -2·(1/(2/255))) = round(-127.99998).
		{"all equal negative", []float32{-2, -2, -2}, []int8{-128, -128, -128}, float32(2.0 / 255), 127},
		// scan, go: the minimum is 1 and the maximum the NaN (1, the last
		// element, is tried for the minimum only): std::min(0, 1) and
		// std::max(0, NaN) are both 0, an empty range.
		{"NaN maximum", []float32{2, nan32, 1}, []int8{0, 0, 0}, 1, 0},
		// std::max(0, NaN) is 0, not NaN: range [-1, 0]; NaN quantises to
		// INT_MIN, clamped to -128.
		{"NaN with negative", []float32{-1, nan32}, []int8{-128, -128}, float32(1.0 / 255), 127},
		// go: the NaN stays the minimum and std::min(0, NaN) is 0: range
		// [0, 2], zero point -128.
		{"NaN first", []float32{nan32, -1, 2}, []int8{-128, -128, 127}, float32(2.0 / 255), -128},
	}
	for _, c := range asym {
		q := []int8{9, 9, 9, 9, 9, 9}
		s, zp := AsymmetricQuantizeFloats(c.in, q)
		if !slices.Equal(q[:len(c.in)], c.want) || !sameFloat32(s, c.scale) || zp != c.zp {
			t.Errorf("asymmetric %s: %v scale %v zp %d, want %v scale %v zp %d",
				c.name, q[:len(c.in)], s, zp, c.want, c.scale, c.zp)
		}
		if q[len(c.in)] != 9 {
			t.Errorf("asymmetric %s: wrote past len(x): %v", c.name, q)
		}
	}
}

// minMaxElement against libstdc++'s std::minmax_element traced by hand on
// NaN placements, and against slices.Min/Max without NaN.
func TestMinMaxElement(t *testing.T) {
	cases := []struct {
		in     []float32
		lo, hi float32
	}{
		{nil, 0, 0},
		{[]float32{3}, 3, 3},
		{[]float32{nan32}, nan32, nan32},
		{[]float32{1, nan32}, 1, nan32},
		{[]float32{nan32, 1}, nan32, 1},
		{[]float32{1, nan32, 0}, 0, nan32},
		{[]float32{1, nan32, 2}, 1, 2},
		{[]float32{0, nan32, 5, 1}, 0, 5},
		{[]float32{0, nan32, 1, 5}, 0, 5},
		{[]float32{5, 6, nan32, 1}, 5, 6},
		// -1 is the pair's second element, so only tried for the maximum.
		{[]float32{4, 3, nan32, -1}, 3, 4},
		{[]float32{4, 3, -1, nan32}, -1, nan32},
	}
	for _, c := range cases {
		lo, hi := minMaxElement(c.in)
		if !sameFloat32(lo, c.lo) || !sameFloat32(hi, c.hi) {
			t.Errorf("minMaxElement(%v) = %v, %v, want %v, %v", c.in, lo, hi, c.lo, c.hi)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 12; n++ {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.IntN(7) - 3)
		}
		lo, hi := minMaxElement(x)
		if lo != slices.Min(x) || hi != slices.Max(x) {
			t.Errorf("minMaxElement(%v) = %v, %v", x, lo, hi)
		}
	}
}

// TestRoundClampInt8 compares the quantisers' rounding (arch.ScaleRoundInt8
// at the level in use, unit scale) with the float64 form of TFLite's
// over random values, every half-integer and its
// float32 neighbours in range, the bounds, ±0, ±Inf and NaN.
func TestRoundClampInt8(t *testing.T) {
	ref := func(y float32, lo, hi int32) int8 {
		return int8(ClampInt32(f32ToInt32(roundf(y)), lo, hi))
	}
	var ys []float32
	for h := -140.0; h <= 140; h += 0.5 {
		f := float32(h)
		ys = append(ys, f, math.Nextafter32(f, 1000), math.Nextafter32(f, -1000))
	}
	ys = append(ys, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		0.49999997, -0.49999997, 1e-40, 3e9, -3e9, 8388607.5, -8388608, 2147483520, 2147483648, -2147483648, -2147483904)
	r := lcg(99)
	for i := 0; i < 200000; i++ {
		ys = append(ys, r.float(-150, 150))
	}
	got := make([]int8, len(ys))
	for _, b := range [][2]int32{{-128, 127}, {-127, 127}} {
		arch.ScaleRoundInt8(got, ys, 1, 0, b[0], b[1])
		for i, y := range ys {
			if want := ref(y, b[0], b[1]); got[i] != want {
				t.Fatalf("y = %v (%#x), bounds %v, %s: got %d, want %d", y, math.Float32bits(y), b, arch.Current(), got[i], want)
			}
		}
	}
}
