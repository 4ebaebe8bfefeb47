package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// tfliteQuantParams is the scale and zero point TFLite's kernel-test
// harness (test_util.h QuantizationParams) derives from a real range
// [min, max] for an integer type: scale = (max-min)/(qmax-qmin), zero point
// from whichever end has the smaller error, nudged into range and rounded.
func tfliteQuantParams(fmin, fmax float64, typ ops.DataType) (float32, int64) {
	qmin, qmax, _ := ops.TypeRange(typ)
	qn, qx := float64(qmin), float64(qmax)
	scale := (fmax - fmin) / (qx - qn)
	zpMin, zpMax := qn-fmin/scale, qx-fmax/scale
	zp := zpMax
	if math.Abs(qn)+math.Abs(fmin/scale) < math.Abs(qx)+math.Abs(fmax/scale) {
		zp = zpMin
	}
	switch {
	case zp < qn:
		zp = qn
	case zp > qx:
		zp = qx
	default:
		zp = math.Round(zp)
	}
	return float32(scale), int64(zp)
}

// quantTensor quantises reals into a tensor of typ with the test harness's
// parameters for [fmin, fmax].
func quantTensor(typ ops.DataType, shape []int, v []float32, fmin, fmax float64) *ops.Tensor {
	s, zp := tfliteQuantParams(fmin, fmax, typ)
	lo, hi, _ := ops.TypeRange(typ)
	qv := quantizeTo(v, s, int32(zp), lo, hi)
	var t *ops.Tensor
	switch typ {
	case ops.Int8:
		t = tensorOf(ops.Int8, shape, toInt8(qv))
	case ops.Uint8:
		t = tensorOf(ops.Uint8, shape, toUint8(qv))
	case ops.Int16:
		t = tensorOf(ops.Int16, shape, toInt16(qv))
	}
	return q(t, s, zp)
}

// quantOut is an output tensor of typ quantised for [fmin, fmax].
func quantOut(typ ops.DataType, fmin, fmax float64) *ops.Tensor {
	s, zp := tfliteQuantParams(fmin, fmax, typ)
	return q(outTensor(typ), s, zp)
}

func TestWindowGeometry(t *testing.T) {
	for _, tc := range []struct {
		p           ops.Padding
		in, f, s, d int
		out, pad    int
	}{
		{ops.PaddingSame, 5, 3, 1, 1, 5, 1},
		{ops.PaddingSame, 5, 3, 2, 1, 3, 1},
		{ops.PaddingSame, 4, 3, 2, 1, 2, 0}, // total padding 1: the odd pixel trails
		{ops.PaddingValid, 5, 3, 2, 1, 2, 0},
		{ops.PaddingValid, 9, 3, 1, 3, 3, 0},
		{ops.PaddingSame, 3, 2, 1, 2, 3, 1},
		{ops.PaddingValid, 2, 3, 1, 1, 0, 0},
	} {
		w, err := newWindow(tc.p, tc.in, tc.f, tc.s, tc.d, "x")
		if err != nil || w.out != tc.out || w.pad != tc.pad {
			t.Fatalf("%+v: got out %d pad %d err %v", tc, w.out, w.pad, err)
		}
		// span must list exactly the taps inside the input.
		for o := 0; o < w.out; o++ {
			origin, lo, hi := w.span(o)
			for tap := 0; tap < tc.f; tap++ {
				x := origin + tap*tc.d
				inside := x >= 0 && x < tc.in
				if inside != (tap >= lo && tap < hi) {
					t.Fatalf("%+v output %d tap %d: inside=%v but span [%d,%d)", tc, o, tap, inside, lo, hi)
				}
			}
		}
	}
	for _, tc := range []struct {
		p           ops.Padding
		in, f, s, d int
		frag        string
	}{
		{ops.PaddingSame, 5, 3, 0, 1, "stride 0"},
		{ops.PaddingSame, 5, 3, 1, 0, "dilation factor 0"},
		{ops.PaddingSame, 5, 0, 1, 1, "filter size 0"},
		{ops.PaddingValid, 1, 3, 1, 1, "exceeds"},
		{ops.Padding(2), 5, 3, 1, 1, "PADDING(2)"},
		{ops.PaddingSame, 5, 1 << 30, 1, 1 << 30, "overflows"},
	} {
		if _, err := newWindow(tc.p, tc.in, tc.f, tc.s, tc.d, "x"); err == nil || !contains(err.Error(), tc.frag) {
			t.Fatalf("%+v: error %v, want %q", tc, err, tc.frag)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
