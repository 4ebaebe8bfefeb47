package fused

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// hybridSpecNode builds a hybrid UNIDIRECTIONAL_SEQUENCE_LSTM node from a
// float spec: gate, peephole and projection weights quantised to int8
// symmetrically per tensor (diagonal recurrent weights stay float32, as
// TFLite reads them), biases and layer-norm coefficients float32. It
// returns the node and the spec with the dequantised weights, the
// reference's model of exactly what the kernel computes with.
func hybridSpecNode(s *lstmSpec, x []float32, asymmetric bool) (*ops.Node, *lstmSpec) {
	n := s.node(x)
	deq := *s
	q := func(w []float32, shape []int) (*ops.Tensor, []float32) {
		wq, sc := quantSym[int8](w, 127)
		return quant(constTensor(ops.Int8, shape, wq), sc, 0), dequant(wq, sc)
	}
	for g := 0; g < numGates; g++ {
		if s.wx[g] == nil {
			continue
		}
		n.Inputs[inputToGateIndex[g]], deq.wx[g] = q(s.wx[g], []int{s.nCell, s.nIn})
		if !s.diag {
			n.Inputs[recurrentToGateIndex[g]], deq.wh[g] = q(s.wh[g], []int{s.nCell, s.nOut})
		}
		if s.wc[g] != nil {
			n.Inputs[cellToGateIndex[g]], deq.wc[g] = q(s.wc[g], []int{s.nCell})
		}
	}
	if s.wp != nil {
		n.Inputs[lstmProjectionWeights], deq.wp = q(s.wp, []int{s.nOut, s.nCell})
	}
	n.Version = 2
	if asymmetric {
		n.Version = 3
	}
	n.Options.(*UnidirectionalSequenceLSTMOptions).AsymmetricQuantizeInputs = asymmetric
	return n, &deq
}

// runNode prepares and evaluates a node and returns a copy of output 0.
func runNode(t *testing.T, k ops.Kernel, n *ops.Node) []float32 {
	t.Helper()
	prepared(t, k, n)
	if err := k.Eval(n); err != nil {
		t.Fatalf("Eval: %v", err)
	}
	return append([]float32(nil), n.Outputs[0].Float32s()...)
}

// TestHybridLSTMAgainstReference runs the hybrid kernel on random LSTMs of
// every variant and compares it with the float64 LSTM of the dequantised
// weights. What remains is the error of quantising the input and the
// previous output (and, with a projection, the hidden state) to int8 each
// step: half a step of max|v|/127 per operand, below 5e-3 after the
// products here (TFLite's own kernel test allows 0.0157651); the bound is
// 0.01. Structural mistakes (a wrong gate, scale, zero point or row sum)
// are errors of order 0.1–1.
func TestHybridLSTMAgainstReference(t *testing.T) {
	cases := []lstmSpec{
		{batch: 1, time: 3, nIn: 5, nCell: 7, nOut: 7},
		{batch: 3, time: 4, nIn: 6, nCell: 8, nOut: 8},
		{batch: 2, time: 5, nIn: 3, nCell: 7, nOut: 7, cifg: true},
		{batch: 2, time: 4, nIn: 6, nCell: 8, nOut: 8, peephole: true},
		{batch: 2, time: 3, nIn: 3, nCell: 7, nOut: 6, proj: true},
		{batch: 2, time: 3, nIn: 8, nCell: 4, nOut: 3, proj: true, projBias: true},
		{batch: 2, time: 2, nIn: 8, nCell: 7, nOut: 7, layerNorm: true},
		{batch: 2, time: 4, nIn: 3, nCell: 9, nOut: 7, layerNorm: true, cifg: true, peephole: true, proj: true, projBias: true},
		{batch: 1, time: 6, nIn: 8, nCell: 6, nOut: 5, proj: true, cellClip: 0.3, projClip: 0.2},
		{batch: 2, time: 3, nIn: 6, nCell: 11, nOut: 11, diag: true},
		{batch: 2, time: 3, nIn: 6, nCell: 8, nOut: 8, diag: true, peephole: true, cifg: true},
		{batch: 1, time: 4, nIn: 6, nCell: 8, nOut: 8, act: ops.ActRelu6, peephole: true},
		// A projection wider than the cell (TFLite's accumulator is too small).
		{batch: 2, time: 4, nIn: 5, nCell: 4, nOut: 9, proj: true, projBias: true},
	}
	rng := rand.New(rand.NewPCG(7, 8))
	worst := 0.0
	for i, c := range cases {
		for _, timeMajor := range []bool{true, false} {
			for _, asym := range []bool{false, true} {
				s := c
				s.timeMajor = timeMajor
				if s.act == ops.ActNone {
					s.act = ops.ActTanh
				}
				t.Run(fmt.Sprintf("case%d/timeMajor=%v/asym=%v", i, timeMajor, asym), func(t *testing.T) {
					s.randomize(rng)
					x := s.randomInput(rng)
					n, deq := hybridSpecNode(&s, x, asym)
					got := runNode(t, NewUnidirectionalSequenceLSTM(), n)
					d, at := maxAbsDiff(got, deq.reference(x))
					worst = math.Max(worst, d)
					if d > 0.01 {
						t.Errorf("max |hybrid - float64 reference| = %g at %d", d, at)
					}
				})
			}
		}
	}
	t.Logf("largest difference %.3g", worst)
}

// TestHybridLSTMZeroOperandsSkipped: an all-zero input and zero state skip
// the products as in TFLite, so the first step is the float path's
// bias-only step with the same (dequantised) weights, to float rounding.
func TestHybridLSTMZeroOperandsSkipped(t *testing.T) {
	s := lstmSpec{batch: 2, time: 1, nIn: 4, nCell: 5, nOut: 5, timeMajor: true, act: ops.ActTanh, peephole: true}
	s.randomize(newTestRand(9))
	x := make([]float32, s.batch*s.time*s.nIn)
	n, deq := hybridSpecNode(&s, x, true)
	got := runNode(t, NewUnidirectionalSequenceLSTM(), n)
	if d, at := maxAbsDiff(got, deq.reference(x)); d > 1e-6 {
		t.Errorf("zero input: max diff %g at %d", d, at)
	}
}

// TestHybridLSTMPrepareErrors: the hybrid path's own refusals.
func TestHybridLSTMPrepareErrors(t *testing.T) {
	node := func(edit func(n *ops.Node)) *ops.Node {
		s := &lstmSpec{batch: 2, time: 3, nIn: 4, nCell: 5, nOut: 5, timeMajor: true, act: ops.ActTanh, peephole: true, proj: true}
		s.randomize(newTestRand(10))
		n, _ := hybridSpecNode(s, s.randomInput(newTestRand(11)), false)
		edit(n)
		return n
	}
	cases := []struct {
		name string
		node *ops.Node
		want string
	}{
		{"per-channel", node(func(n *ops.Node) {
			n.Inputs[3].Quant = &ops.Quantization{Scale: []float32{.1, .1, .1, .1, .1}, ZeroPoint: make([]int64, 5)}
		}), "input 3 (input_to_cell_weights) has 5 scales (per-channel)"},
		{"zero point", node(func(n *ops.Node) { n.Inputs[7].Quant.ZeroPoint = []int64{3} }),
			"input 7 (recurrent_to_cell_weights) has zero point 3"},
		{"unquantised", node(func(n *ops.Node) { n.Inputs[16].Quant = nil }),
			"input 16 (projection_weights) is int8 but not quantised"},
		{"float peephole", node(func(n *ops.Node) { n.Inputs[10] = f32([]int{5}, make([]float32, 5)) }),
			"input 10 (cell_to_forget_weights) is float32, the hybrid path needs int8"},
		{"int8 bias", node(func(n *ops.Node) { n.Inputs[13] = constTensor(ops.Int8, []int{5}, make([]int8, 5)) }),
			"input 13 (forget_gate_bias) is int8, the hybrid path needs float32"},
		{"uint8 weights", node(func(n *ops.Node) {
			n.Inputs[4] = quant(constTensor(ops.Uint8, []int{5, 4}, make([]uint8, 20)), 0.1, 128)
		}), "input 4 (input_to_output_weights) is uint8"},
		{"mixed weights", node(func(n *ops.Node) { n.Inputs[2] = f32([]int{5, 4}, make([]float32, 20)) }),
			"input 2 (input_to_forget_weights) is float32, the hybrid path needs int8"},
		{"activation none", node(func(n *ops.Node) {
			n.Options.(*UnidirectionalSequenceLSTMOptions).Activation = ops.ActNone
		}), "fused activation NONE"},
		{"non-constant weights", node(func(n *ops.Node) { n.Inputs[6].Kind = ops.ArenaTensor }),
			"input 6 (recurrent_to_forget_weights) must be a constant tensor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := NewUnidirectionalSequenceLSTM().Prepare(c.node)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Prepare: %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestHybridLSTMEvalNoAllocs: the hybrid Eval allocates nothing.
func TestHybridLSTMEvalNoAllocs(t *testing.T) {
	s := &lstmSpec{batch: 2, time: 4, nIn: 6, nCell: 8, nOut: 5, timeMajor: false, act: ops.ActTanh,
		peephole: true, proj: true, projBias: true, layerNorm: true}
	s.randomize(newTestRand(12))
	n, _ := hybridSpecNode(s, s.randomInput(newTestRand(13)), true)
	k := NewUnidirectionalSequenceLSTM()
	prepared(t, k, n)
	if a := testing.AllocsPerRun(20, func() {
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Eval allocates %v times per run", a)
	}
}
