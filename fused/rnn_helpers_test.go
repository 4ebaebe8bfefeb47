package fused

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Test helpers of the RNN, SVDF and GRU kernels: tensors, weights and an
// independent float64 model of the RNN cell.

// actTensor makes a non-constant tensor (an activation) with zeroed data.
func actTensor(typ ops.DataType, shape ...int) *ops.Tensor {
	t := &ops.Tensor{Type: typ, Shape: shape, Kind: ops.ArenaTensor}
	t.Data = alignedBytes(t.Bytes())
	return t
}

// outTensor makes an output tensor whose shape Prepare sets.
func outTensor(typ ops.DataType) *ops.Tensor { return &ops.Tensor{Type: typ} }

// uniform returns n values uniform in [-a, a).
func uniform(r *rand.Rand, n int, a float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((r.Float64()*2 - 1) * a)
	}
	return v
}

// symQuant quantises w symmetrically per tensor as TFLite's converter does
// for hybrid weights: scale max|w|/127, q = round(w/scale).
func symQuant(w []float32) ([]int8, float32) {
	m := 0.0
	for _, x := range w {
		m = math.Max(m, math.Abs(float64(x)))
	}
	scale := float32(m / 127)
	q := make([]int8, len(w))
	for i, x := range w {
		q[i] = int8(math.Round(float64(x) / float64(scale)))
	}
	return q, scale
}

// weightTensor returns w as a float32 constant, or, when hybrid, as an
// int8 symmetric constant together with the dequantised values the
// float64 reference must use.
func weightTensor(shape []int, w []float32, hybrid bool) (*ops.Tensor, []float64) {
	if !hybrid {
		return f32(shape, w), f64s(w)
	}
	q, s := symQuant(w)
	deq := make([]float64, len(q))
	for i, v := range q {
		deq[i] = float64(v) * float64(s)
	}
	return quant(constTensor(ops.Int8, shape, q), s, 0), deq
}

func f64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// refActivation is a fused activation in float64.
func refActivation(act ops.Activation, x float64) float64 {
	switch act {
	case ops.ActRelu:
		return math.Max(0, x)
	case ops.ActReluN1To1:
		return math.Max(-1, math.Min(1, x))
	case ops.ActRelu6:
		return math.Max(0, math.Min(6, x))
	case ops.ActTanh:
		return math.Tanh(x)
	case ops.ActSignBit:
		if math.Signbit(x) {
			return 1
		}
		return 0
	}
	return x
}

// refCell is a float64 RNN cell: out = act(b + W·x + Waux·aux + R·h).
type refCell struct {
	units, nIn, nAux int
	w, aux, rec, b   []float64
	act              ops.Activation
}

// step returns the new state for one row.
func (c *refCell) step(x, aux, h []float64) []float64 {
	out := make([]float64, c.units)
	for u := range out {
		s := c.b[u]
		for i := 0; i < c.nIn; i++ {
			s += c.w[u*c.nIn+i] * x[i]
		}
		for i := 0; i < c.nAux; i++ {
			s += c.aux[u*c.nAux+i] * aux[i]
		}
		for i := 0; i < c.units; i++ {
			s += c.rec[u*c.units+i] * h[i]
		}
		out[u] = refActivation(c.act, s)
	}
	return out
}

// checkClose fails when got and want differ by more than tol·(1+|want|)
// anywhere.
func checkClose(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		d := math.Abs(float64(got[i]) - want[i])
		if !(d <= tol*(1+math.Abs(want[i]))) {
			t.Fatalf("%s: element %d = %v, want %v (|diff| %.3g > tol %.3g)", what, i, got[i], want[i], d, tol)
		}
	}
}

// maxDiff is the largest |a[i]-b[i]|.
func maxDiff(a []float32, b []float64) float64 {
	m := 0.0
	for i := range b {
		m = math.Max(m, math.Abs(float64(a[i])-b[i]))
	}
	return m
}

// allActivations are the fused activations the RNN kernels accept.
var allActivations = []ops.Activation{ops.ActNone, ops.ActRelu, ops.ActReluN1To1, ops.ActRelu6, ops.ActTanh, ops.ActSignBit}

// evalN runs Eval, failing the test on error.
func evalN(t *testing.T, k ops.Kernel, n *ops.Node) {
	t.Helper()
	if err := k.Eval(n); err != nil {
		t.Fatalf("Eval: %v", err)
	}
}
