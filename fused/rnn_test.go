package fused

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// testRNNWeights are one direction's float weights.
type testRNNWeights struct {
	units, nIn, nAux int
	w, aux, rec, b   []float32
}

func newRNNWeights(r *rand.Rand, units, nIn, nAux int) testRNNWeights {
	w := testRNNWeights{units: units, nIn: nIn, nAux: nAux}
	w.w = uniform(r, units*nIn, 1/math.Sqrt(float64(nIn)))
	if nAux > 0 {
		w.aux = uniform(r, units*nAux, 1/math.Sqrt(float64(nAux)))
	}
	w.rec = uniform(r, units*units, 0.9/math.Sqrt(float64(units)))
	w.b = uniform(r, units, 0.3)
	return w
}

// tensors returns the weight tensors (int8 when hybrid) and the float64
// cell the reference uses (with the dequantised weights).
func (w testRNNWeights) tensors(hybrid bool, act ops.Activation) (wt, auxt, rect, bt *ops.Tensor, ref *refCell) {
	ref = &refCell{units: w.units, nIn: w.nIn, nAux: w.nAux, act: act, b: f64s(w.b)}
	wt, ref.w = weightTensor([]int{w.units, w.nIn}, w.w, hybrid)
	rect, ref.rec = weightTensor([]int{w.units, w.units}, w.rec, hybrid)
	if w.nAux > 0 {
		auxt, ref.aux = weightTensor([]int{w.units, w.nAux}, w.aux, hybrid)
	}
	bt = f32([]int{w.units}, w.b)
	return
}

// rnnNode builds an RNN node: input [batch, nIn], state [batch, units].
func rnnNode(w testRNNWeights, batch int, act ops.Activation, hybrid, asym bool) (*ops.Node, *refCell) {
	wt, _, rect, bt, ref := w.tensors(hybrid, act)
	n := &ops.Node{OpName: "RNN", Op: ops.OpRNN, Version: 1,
		Inputs:  []*ops.Tensor{actTensor(ops.Float32, batch, w.nIn), wt, rect, bt, varTensor(ops.Float32, []int{batch, w.units})},
		Outputs: []*ops.Tensor{outTensor(ops.Float32)},
		Options: &RNNOptions{Activation: act, AsymmetricQuantizeInputs: asym}}
	return n, ref
}

func TestRNNAgainstReference(t *testing.T) {
	const batch, nIn, units, steps = 3, 5, 7, 6
	for _, hybrid := range []bool{false, true} {
		for _, asym := range []bool{false, true} {
			if asym && !hybrid {
				continue
			}
			for _, act := range allActivations {
				name := fmt.Sprintf("hybrid=%v/asym=%v/%s", hybrid, asym, act)
				t.Run(name, func(t *testing.T) {
					r := newTestRand(uint64(act) + 10)
					w := newRNNWeights(r, units, nIn, 0)
					n, ref := rnnNode(w, batch, act, hybrid, asym)
					k := NewRNN()
					prepared(t, k, n)
					tol := 1e-5
					if hybrid {
						tol = 0.0104 // TFLite's hybrid RNN test tolerance
					}
					h := make([][]float64, batch)
					for b := range h {
						h[b] = make([]float64, units)
					}
					for s := 0; s < steps; s++ {
						x := uniform(r, batch*nIn, 1)
						copy(n.Inputs[0].Float32s(), x)
						evalN(t, k, n)
						var want []float64
						for b := 0; b < batch; b++ {
							h[b] = ref.step(f64s(x[b*nIn:b*nIn+nIn]), nil, h[b])
							want = append(want, h[b]...)
						}
						if act == ops.ActSignBit && hybrid {
							// Sign of values near 0 is not stable under
							// quantisation; compare only the float path.
							continue
						}
						checkClose(t, fmt.Sprintf("step %d", s), n.Outputs[0].Float32s(), want, tol)
						checkClose(t, fmt.Sprintf("step %d state", s), n.Inputs[4].Float32s(), want, tol)
					}
				})
			}
		}
	}
}

// seqNode builds a UNIDIRECTIONAL_SEQUENCE_RNN node.
func seqNode(w testRNNWeights, batch, steps int, timeMajor bool, act ops.Activation, hybrid, asym bool) (*ops.Node, *refCell) {
	wt, _, rect, bt, ref := w.tensors(hybrid, act)
	shape := []int{batch, steps, w.nIn}
	if timeMajor {
		shape = []int{steps, batch, w.nIn}
	}
	n := &ops.Node{OpName: "UNIDIRECTIONAL_SEQUENCE_RNN", Op: ops.OpUnidirectionalSequenceRNN, Version: 1,
		Inputs:  []*ops.Tensor{actTensor(ops.Float32, shape...), wt, rect, bt, varTensor(ops.Float32, []int{batch, w.units})},
		Outputs: []*ops.Tensor{outTensor(ops.Float32)},
		Options: &SequenceRNNOptions{TimeMajor: timeMajor, Activation: act, AsymmetricQuantizeInputs: asym}}
	return n, ref
}

// seqIndex is the flat row index of (batch b, step t).
func seqIndex(timeMajor bool, batch, steps, b, t int) int {
	if timeMajor {
		return t*batch + b
	}
	return b*steps + t
}

func TestRNNFamilyEvalNoAllocs(t *testing.T) {
	r := newTestRand(3)
	w := newRNNWeights(r, 8, 5, 0)
	for _, hybrid := range []bool{false, true} {
		n, _ := rnnNode(w, 2, ops.ActTanh, hybrid, hybrid)
		k := NewRNN()
		prepared(t, k, n)
		copy(n.Inputs[0].Float32s(), uniform(r, 10, 1))
		if a := testing.AllocsPerRun(20, func() { _ = k.Eval(n) }); a != 0 {
			t.Errorf("RNN hybrid=%v: %v allocations per Eval", hybrid, a)
		}
		for _, tm := range []bool{false, true} {
			n, _ := seqNode(w, 2, 3, tm, ops.ActTanh, hybrid, hybrid)
			k := NewUnidirectionalSequenceRNN()
			prepared(t, k, n)
			copy(n.Inputs[0].Float32s(), uniform(r, 30, 1))
			if a := testing.AllocsPerRun(20, func() { _ = k.Eval(n) }); a != 0 {
				t.Errorf("UNIDIRECTIONAL_SEQUENCE_RNN hybrid=%v time_major=%v: %v allocations per Eval", hybrid, tm, a)
			}
		}
	}
}

// TestRNNPrepareErrors checks that bad nodes are refused at Prepare with
// an error naming the input (the interpreter-level hostile table covers
// more).
func TestRNNPrepareErrors(t *testing.T) {
	r := newTestRand(5)
	w := newRNNWeights(r, 4, 3, 0)
	cases := []struct {
		name string
		edit func(n *ops.Node)
		want string
	}{
		{"weights omitted", func(n *ops.Node) { n.Inputs[1] = nil }, "input 1 (weights) is required"},
		{"recurrent weights wrong shape", func(n *ops.Node) { n.Inputs[2].Shape = []int{4, 3} }, "input 2 (recurrent_weights"},
		{"bias wrong size", func(n *ops.Node) { n.Inputs[3].Shape = []int{5} }, "input 3 (bias"},
		{"state not variable", func(n *ops.Node) { n.Inputs[4].Kind = ops.ArenaTensor }, "input 4 (hidden_state"},
		{"state wrong units", func(n *ops.Node) { n.Inputs[4].Shape = []int{2, 5} }, "input 4 (hidden_state"},
		{"int8 input", func(n *ops.Node) { n.Inputs[0].Type = ops.Int8 }, "input 0 (input"},
		{"uint8 weights", func(n *ops.Node) { n.Inputs[1].Type = ops.Uint8 }, "uint8"},
		{"mixed weight types", func(n *ops.Node) {
			n.Inputs[2] = quant(constTensor(ops.Int8, []int{4, 4}, make([]int8, 16)), 0.1, 0)
		}, "input 2 (recurrent_weights"},
		{"activation out of range", func(n *ops.Node) { n.Options = &RNNOptions{Activation: 9} }, "activation"},
		{"wrong options", func(n *ops.Node) { n.Options = &SVDFOptions{} }, "options"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, _ := rnnNode(w, 2, ops.ActNone, false, false)
			c.edit(n)
			err := NewRNN().Prepare(n)
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
	// Hybrid weights need a symmetric per-tensor scale.
	n, _ := rnnNode(w, 2, ops.ActNone, true, false)
	n.Inputs[1].Quant.ZeroPoint = []int64{3}
	if err := NewRNN().Prepare(n); err == nil || !strings.Contains(err.Error(), "zero point 3") {
		t.Fatalf("asymmetric hybrid weights: %v", err)
	}
	n, _ = rnnNode(w, 2, ops.ActNone, true, false)
	n.Inputs[2].Quant = nil
	if err := NewRNN().Prepare(n); err == nil || !strings.Contains(err.Error(), "no quantization") {
		t.Fatalf("unquantised hybrid weights: %v", err)
	}
	// Eval before Prepare is an error, not a panic.
	if err := NewRNN().Eval(n); err == nil {
		t.Fatal("Eval before Prepare accepted")
	}
}

// TestRNNHybridUint8Weights: uint8 weights holding int8 bit patterns (the
// legacy hybrid form) are read as int8, as TFLite's kernels do, so they
// give the int8 model's outputs bit for bit.
func TestRNNHybridUint8Weights(t *testing.T) {
	r := newTestRand(12)
	w := newRNNWeights(r, 6, 4, 0)
	a, _ := seqNode(w, 2, 3, true, ops.ActTanh, true, true)
	b, _ := seqNode(w, 2, 3, true, ops.ActTanh, true, true)
	b.Inputs[1].Type, b.Inputs[2].Type = ops.Uint8, ops.Uint8
	ka, kb := NewUnidirectionalSequenceRNN(), NewUnidirectionalSequenceRNN()
	prepared(t, ka, a)
	prepared(t, kb, b)
	x := uniform(r, 2*3*4, 1)
	copy(a.Inputs[0].Float32s(), x)
	copy(b.Inputs[0].Float32s(), x)
	evalN(t, ka, a)
	evalN(t, kb, b)
	if !slices.Equal(a.Outputs[0].Float32s(), b.Outputs[0].Float32s()) {
		t.Fatalf("uint8 %v\nint8 %v", b.Outputs[0].Float32s(), a.Outputs[0].Float32s())
	}
	// Mixed int8 and uint8 weights are refused, naming the odd one.
	c, _ := seqNode(w, 2, 3, true, ops.ActTanh, true, false)
	c.Inputs[2].Type = ops.Uint8
	if err := NewUnidirectionalSequenceRNN().Prepare(c); err == nil || !strings.Contains(err.Error(), "input 2 (recurrent_weights") {
		t.Fatalf("mixed weight types: %v", err)
	}
}
