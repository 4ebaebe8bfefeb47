package fused

import (
	"math"
	"slices"
	"testing"
)

// The hybrid quantisation helpers against TFLite's published vectors
// (kernels/internal/tensor_utils_test.cc, uKernels tests).

func TestHybridQuantizeSymmetricTFLiteVectors(t *testing.T) {
	cases := []struct {
		in    []float32
		want  []int8
		scale float64
	}{
		{[]float32{-640, -635.0, -630, 10.0, 2.0, -5.0, -10.0, 0.0, 1000.0},
			[]int8{-81, -81, -80, 1, 0, -1, -1, 0, 127}, 1000 / 127.0},
		{[]float32{0, 0, 0, 0, 0, 0, 0, 0, 0}, []int8{0, 0, 0, 0, 0, 0, 0, 0, 0}, 1},
		{[]float32{-1e-5, 3e-5, -7e-6, -9e-5, 1e-6, 4e-5, 9e-6, 2e-4, 0},
			[]int8{-6, 19, -4, -57, 1, 25, 6, 127, 0}, 1.57e-6},
	}
	for i, c := range cases {
		q := make([]int8, len(c.in))
		s := hybridQuantizeSymmetric(c.in, q)
		if !slices.Equal(q, c.want) {
			t.Errorf("case %d: %v, want %v", i, q, c.want)
		}
		if math.Abs(float64(s)-c.scale) > 1e-6 {
			t.Errorf("case %d: scale %v, want %v", i, s, c.scale)
		}
	}
}

func TestHybridQuantizeAsymmetricTFLiteVectors(t *testing.T) {
	cases := []struct {
		in    []float32
		want  []int8
		scale float64
		zp    int32
	}{
		// Scales and zero points are ChooseQuantizationParams<int8>(min, max)
		// of TFLite's tests: (max-min)/255 and the nudged zero point.
		{[]float32{-640, -635.0, -630, 10.0, 2.0, -5.0, -10.0, 0.0, 1000.0},
			[]int8{-128, -127, -126, -26, -28, -29, -30, -28, 127}, 1640.0 / 255, -28},
		{[]float32{0, 0, 0, 0, 0, 0, 0, 0, 0}, []int8{0, 0, 0, 0, 0, 0, 0, 0, 0}, 1, 0},
		{[]float32{2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000},
			[]int8{127, 127, 127, 127, 127, 127, 127, 127, 127}, 2000.0 / 255, -128},
		{[]float32{-1e-5, 3e-5, -7e-6, -9e-5, 1e-6, 4e-5, 9e-6, 2e-4, 0},
			[]int8{-58, -23, -55, -128, -48, -14, -41, 127, -49}, 2.9e-4 / 255, -49},
	}
	for i, c := range cases {
		q := make([]int8, len(c.in))
		s, zp := hybridQuantizeAsymmetric(c.in, q)
		if !slices.Equal(q, c.want) {
			t.Errorf("case %d: %v, want %v", i, q, c.want)
		}
		if math.Abs(float64(s)-c.scale) > 1e-6 || zp != c.zp {
			t.Errorf("case %d: scale %v zero point %d, want %v, %d", i, s, zp, c.scale, c.zp)
		}
	}
}

// TestHybridMatVecAccTFLiteVector is TFLite's
// HybridMatrixBatchVectorMultiplyAccumulate8x8_16Test: an 8×32 int8 matrix
// times 4 int8 vectors with input offsets 1 and unit scaling factors.
func TestHybridMatVecAccTFLiteVector(t *testing.T) {
	in := []int8{
		4, -41, 5, -41, 22, 17, -30, 24, 13, -47, 18, 9, -11, -30, 16,
		1, -47, 12, 36, -20, 27, -3, 0, -51, -31, 3, -8, -38, 43, 23,
		12, 1, 11, -23, -26, 23, 14, -9, -44, 22, 21, -30, 3, -47, -26,
		-21, -24, 1, -44, 34, -11, -23, -28, 26, -38, 19, 35, 9, 23, 6,
		-42, -25, 28, 1, 4, -41, 5, -41, 22, 17, -30, 24, 13, -47, 18,
		9, -11, -30, 16, 1, -47, 12, 36, -20, 27, -3, 0, -51, -31, 3,
		-8, -38, 43, 23, 12, 1, 11, -23, -26, 23, 14, -9, -44, 22, 21,
		-30, 3, -47, -26, -21, -24, 1, -44, 34, -11, -23, -28, 26, -38, 19,
		35, 9, 23, 6, -42, -25, 28, 1,
	}
	m := []int8{
		-10, -4, -8, 16, 4, -16, -1, 11, 1, 2, -25, 19, 7, 9, 2,
		1, -24, -2, 10, -7, 7, -5, -2, 3, 4, 3, -4, -7, -11, -13,
		-18, 2, 11, 10, 12, -9, 17, -15, -5, 20, -6, -11, 2, -6, -18,
		15, 4, 3, 4, -9, -2, -3, -9, -13, 17, -21, 5, 3, -12, 0,
		-4, 9, -5, 4, 10, -2, 8, 1, -10, -6, 1, -9, 10, 11, -1,
		-5, 4, -7, -4, 5, -4, 4, 12, -7, -5, -9, -19, 6, -4, 12,
		-17, -22, 0, 9, -4, 6, -5, 5, -8, 8, 3, 15, -18, -18, 5,
		3, -12, 5, -10, 7, 7, 7, -9, 17, 2, -11, -25, 3, 19, -6,
		7, 1, 7, 5, -3, 11, 3, 8, 0, -8, 8, -2, -2, -12, 14,
		-5, 7, 8, 16, 20, -16, -5, -5, 9, 1, -10, -6, 14, 10, -12,
		10, -6, 5, 0, 3, 8, -9, -13, -2, 10, 4, 4, -16, -17, -9,
		16, -5, 14, -9, -5, -12, 0, 17, 6, -1, 11, 16, -20, 1, -11,
		-1, -10, -21, 13, 4, -12, -7, 0, -14, -6, 3, 12, -4, 6, -18,
		-3, -1, 14, -8, -6, -15, 5, 12, -3, -10, 4, 6, 13, -5, -20,
		0, 3, -3, -7, 1, 2, -10, 7, -3, 6, 1, -12, 6, 14, -5,
		-20, 0, 3, -3, -7, 1, 2, -10, 7, -3, 6, 1, -12, 6, 15,
		-5, -20, 0, 3, -3, -7, 1, 2, -10, 7, -3, 6, 1, -12, 6,
		16,
	}
	want := []float32{
		-228, 1548, 937, -166, -1164, -1578, -278, 303, 839, -820, 132,
		1733, -1858, 58, -425, -587, -228, 1548, 937, -166, -1164, -1578,
		-278, 303, 839, -820, 132, 1733, -1858, 58, -425, -587,
	}
	const rows, cols, batch = 8, 32, 4
	sums := make([]int32, rows)
	rowSumsOf(sums, m, rows, cols)
	acc := make([]int32, rows)
	out := make([]float32, rows*batch)
	for b := 0; b < batch; b++ {
		hybridMatVecAcc(out[b*rows:], m, rows, cols, in[b*cols:], 1, 1, sums, acc)
	}
	if !slices.Equal(out, want) {
		t.Fatalf("got %v\nwant %v", out, want)
	}
}

func rowSumsOf(dst []int32, m []int8, rows, cols int) {
	for r := 0; r < rows; r++ {
		var s int32
		for _, v := range m[r*cols : r*cols+cols] {
			s += int32(v)
		}
		dst[r] = s
	}
}
