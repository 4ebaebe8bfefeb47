package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// int16 LOGISTIC and TANH on TFLite's fixed-point path: every int16 input
// (the saturated ends included) against float64 (gemmlowp's int16 tanh is
// up to 12 steps off, its logistic a few), the exact value at 0, and the
// refused cases. The bit-exact check against TensorFlow Lite is the
// sweep's recorded cases (testdata/intexact/{logistic,tanh}_int16_pot_*).

func int16Ramp() []int16 {
	v := make([]int16, 1<<16)
	for i := range v {
		v[i] = int16(i - 1<<15)
	}
	return v
}

func TestLogisticTanhInt16(t *testing.T) {
	in := int16Ramp()
	for _, c := range []struct {
		name    string
		k       func() ops.Kernel
		inScale float32
		f       func(float64) float64
		at0     int16
	}{
		{"LOGISTIC 2^-12", NewLogistic, 1.0 / 4096, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, 16384},
		{"TANH 2^-12", NewTanh, 1.0 / 4096, math.Tanh, 0},
		{"TANH 2^-11", NewTanh, 1.0 / 2048, math.Tanh, 0},
		// TFLite's interpolated sigmoid-table path.
		{"LOGISTIC 0.001", NewLogistic, 0.001, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, 16384},
		{"LOGISTIC 2^-11", NewLogistic, 1.0 / 2048, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, 16384},
		{"LOGISTIC 2^-13", NewLogistic, 1.0 / 8192, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, 16384},
		{"TANH 0.001", NewTanh, 0.001, math.Tanh, 0},
		{"TANH 2^-13", NewTanh, 1.0 / 8192, math.Tanh, 0},
	} {
		n := node(nil, []*ops.Tensor{q(tensorOf(ops.Int16, []int{len(in)}, in), c.inScale, 0)}, q(outTensor(ops.Int16), 1.0/32768, 0))
		k := c.k()
		run(t, k, n)
		got := n.Outputs[0].Int16s()
		worst := 0.0
		for i, x := range in {
			want := c.f(float64(x)*float64(c.inScale)) * 32768
			if want > 32767 {
				want = 32767
			}
			worst = max(worst, math.Abs(float64(got[i])-want))
		}
		if worst > 16 {
			t.Errorf("%s: worst error %.1f steps, want at most 16", c.name, worst)
		}
		if g := got[1<<15]; g != c.at0 {
			t.Errorf("%s(0) = %d, want %d", c.name, g, c.at0)
		}
		noAllocs(t, k, n)
	}
}

func TestLogisticTanhInt16Errors(t *testing.T) {
	x := func(scale float32, zp int64) *ops.Tensor {
		return q(tensorOf(ops.Int16, []int{2}, []int16{1, 2}), scale, zp)
	}
	for _, k := range []func() ops.Kernel{NewLogistic, NewTanh} {
		wantPrepareError(t, k(), node(nil, []*ops.Tensor{x(1.0/4096, 3)}, q(outTensor(ops.Int16), 1.0/32768, 0)), "zero points")
		wantPrepareError(t, k(), node(nil, []*ops.Tensor{x(1.0/4096, 0)}, q(outTensor(ops.Int16), 1.0/32768, 1)), "zero points")
		wantPrepareError(t, k(), node(nil, []*ops.Tensor{x(1.0/4096, 0)}, q(outTensor(ops.Int16), 1.0/256, 0)), "output 0", "2^-15")
		// Hostile input scales: an error, never a panic.
		for _, s := range []float32{0, -0.001, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e10, math.MaxFloat32} {
			wantPrepareError(t, k(), node(nil, []*ops.Tensor{x(s, 0)}, q(outTensor(ops.Int16), 1.0/32768, 0)), "input 0")
		}
	}
}
