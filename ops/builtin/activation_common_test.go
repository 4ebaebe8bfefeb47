package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestClampRowF32 checks the branch-free row clamps against clampF32 (TFLite's
// ActivationFunctionWithMinMax order) bit for bit, on specials and random
// values, for the RELU bounds (integer form) and the others (min/max).
func TestClampRowF32(t *testing.T) {
	xs := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 1e-45, -1e-45, 6, 6.5, -6.5, 1e38,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0xFFC00001),
		math.MaxFloat32, -math.MaxFloat32, 0.999, -1.0001}
	r := lcg(17)
	for i := 0; i < 500; i++ {
		xs = append(xs, r.float(-10, 10))
	}
	for _, act := range []ops.Activation{ops.ActRelu, ops.ActRelu6, ops.ActReluN1To1, ops.ActNone} {
		lo, hi := ActivationRangeFloat(act)
		got := append([]float32(nil), xs...)
		clampRowF32(got, lo, hi)
		for i, x := range xs {
			want := clampF32(x, lo, hi)
			same := math.Float32bits(got[i]) == math.Float32bits(want) ||
				math.IsNaN(float64(want)) && math.IsNaN(float64(got[i]))
			if act != ops.ActRelu && got[i] == 0 && want == 0 {
				same = true // min/max may give +0 where TFLite keeps -0
			}
			if !same {
				t.Errorf("activation %d: clamp(%v) = %v (%#x), want %v (%#x)", act, x, got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
			}
		}
	}
}
