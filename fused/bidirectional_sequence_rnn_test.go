package fused

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// birnnCase configures a BIDIRECTIONAL_SEQUENCE_RNN test.
type birnnCase struct {
	batch, steps, nIn, nAux, fwU, bwU int
	timeMajor, merge                  bool
	// aux: "" none, "cross" aux input with aux weights, "bw" aux input as
	// the backward input.
	aux          string
	hybrid, asym bool
	act          ops.Activation
}

type birnnFixture struct {
	c      birnnCase
	n      *ops.Node
	fw, bw *refCell
}

func newBiRNN(seed uint64, c birnnCase) *birnnFixture {
	r := newTestRand(seed)
	nAux := 0
	if c.aux == "cross" {
		nAux = c.nAux
	}
	fw := newRNNWeights(r, c.fwU, c.nIn, nAux)
	bw := newRNNWeights(r, c.bwU, c.nIn, nAux)
	fwW, fwAux, fwR, fwB, fwRef := fw.tensors(c.hybrid, c.act)
	bwW, bwAux, bwR, bwB, bwRef := bw.tensors(c.hybrid, c.act)
	shape := func(n int) []int {
		if c.timeMajor {
			return []int{c.steps, c.batch, n}
		}
		return []int{c.batch, c.steps, n}
	}
	var auxIn *ops.Tensor
	switch c.aux {
	case "cross":
		auxIn = actTensor(ops.Float32, shape(c.nAux)...)
	case "bw":
		auxIn = actTensor(ops.Float32, shape(c.nIn)...)
	}
	in := []*ops.Tensor{actTensor(ops.Float32, shape(c.nIn)...),
		fwW, fwR, fwB, varTensor(ops.Float32, []int{c.batch, c.fwU}),
		bwW, bwR, bwB, varTensor(ops.Float32, []int{c.batch, c.bwU}),
		auxIn, fwAux, bwAux}
	outs := []*ops.Tensor{outTensor(ops.Float32)}
	if !c.merge {
		outs = append(outs, outTensor(ops.Float32))
	}
	n := &ops.Node{OpName: "BIDIRECTIONAL_SEQUENCE_RNN", Op: ops.OpBidirectionalSequenceRNN, Version: 1,
		Inputs: in, Outputs: outs,
		Options: &BidirectionalSequenceRNNOptions{TimeMajor: c.timeMajor, MergeOutputs: c.merge,
			Activation: c.act, AsymmetricQuantizeInputs: c.asym}}
	return &birnnFixture{c: c, n: n, fw: fwRef, bw: bwRef}
}

// row returns the float64 row (b, t) of a [.., .., n] tensor in the case's
// layout.
func (f *birnnFixture) row(v []float32, n, b, t int) []float64 {
	i := seqIndex(f.c.timeMajor, f.c.batch, f.c.steps, b, t)
	return f64s(v[i*n : i*n+n])
}

// reference runs the float64 model from the given states (updated) and
// returns the expected output tensors' contents. passes > 1 repeats the
// whole forward and backward sweep that many times without resetting the
// state, which is what TFLite's hybrid time-major path does (passes =
// max_time).
func (f *birnnFixture) reference(x, aux []float32, fwH, bwH [][]float64, passes int) (out0, out1 []float64) {
	c := f.c
	fwStep, bwStep, bwOff := c.fwU, c.bwU, 0
	out0 = make([]float64, c.batch*c.steps*c.fwU)
	if c.merge {
		fwStep = c.fwU + c.bwU
		bwStep, bwOff = fwStep, c.fwU
		out0 = make([]float64, c.batch*c.steps*fwStep)
	} else {
		out1 = make([]float64, c.batch*c.steps*c.bwU)
	}
	bwOut := out1
	if c.merge {
		bwOut = out0
	}
	bwX, cellAux, nAux := x, []float32(nil), 0
	switch c.aux {
	case "cross":
		cellAux, nAux = aux, c.nAux
	case "bw":
		bwX = aux
	}
	auxRow := func(b, t int) []float64 {
		if cellAux == nil {
			return nil
		}
		return f.row(cellAux, nAux, b, t)
	}
	for p := 0; p < passes; p++ {
		for b := 0; b < c.batch; b++ {
			for t := 0; t < c.steps; t++ {
				fwH[b] = f.fw.step(f.row(x, c.nIn, b, t), auxRow(b, t), fwH[b])
				i := seqIndex(c.timeMajor, c.batch, c.steps, b, t)
				copy(out0[i*fwStep:], fwH[b])
			}
			for t := c.steps - 1; t >= 0; t-- {
				bwH[b] = f.bw.step(f.row(bwX, c.nIn, b, t), auxRow(b, t), bwH[b])
				i := seqIndex(c.timeMajor, c.batch, c.steps, b, t)
				copy(bwOut[i*bwStep+bwOff:], bwH[b])
			}
		}
	}
	return out0, out1
}

func zeroStates(batch, units int) [][]float64 {
	h := make([][]float64, batch)
	for b := range h {
		h[b] = make([]float64, units)
	}
	return h
}

func TestBidirectionalSequenceRNNAgainstReference(t *testing.T) {
	for _, tm := range []bool{false, true} {
		for _, merge := range []bool{false, true} {
			for _, aux := range []string{"", "cross", "bw"} {
				for _, mode := range []string{"float", "hybrid", "hybrid-asym"} {
					c := birnnCase{batch: 2, steps: 4, nIn: 4, nAux: 3, fwU: 5, bwU: 3, timeMajor: tm, merge: merge,
						aux: aux, hybrid: mode != "float", asym: mode == "hybrid-asym", act: ops.ActTanh}
					name := fmt.Sprintf("time_major=%v/merge=%v/aux=%q/%s", tm, merge, aux, mode)
					t.Run(name, func(t *testing.T) {
						f := newBiRNN(21, c)
						k := NewBidirectionalSequenceRNN()
						prepared(t, k, f.n)
						r := newTestRand(99)
						x := uniform(r, c.batch*c.steps*c.nIn, 1)
						copy(f.n.Inputs[birnnInput].Float32s(), x)
						var aux []float32
						if a := f.n.Inputs[birnnAuxInput]; a != nil {
							aux = uniform(r, a.NumElements(), 1)
							copy(a.Float32s(), aux)
						}
						tol := 1e-5
						if c.hybrid {
							tol = 0.0142 // TFLite's hybrid bidirectional RNN test tolerance
						}
						fwH, bwH := zeroStates(c.batch, c.fwU), zeroStates(c.batch, c.bwU)
						// Two Evals: the states carry over.
						for pass := 0; pass < 2; pass++ {
							evalN(t, k, f.n)
							w0, w1 := f.reference(x, aux, fwH, bwH, 1)
							checkClose(t, fmt.Sprintf("pass %d output 0", pass), f.n.Outputs[0].Float32s(), w0, tol)
							if !merge {
								checkClose(t, fmt.Sprintf("pass %d output 1", pass), f.n.Outputs[1].Float32s(), w1, tol)
							}
						}
					})
				}
			}
		}
	}
}

// TestBidirectionalSequenceRNNHybridTimeMajorRunsOnce: TFLite's hybrid
// time-major path wraps both sweeps in an extra loop over max_time, so it
// runs the whole sequence max_time times without resetting the state and
// outputs the last sweep. tflrun runs it once: it matches the float64 model
// of the operator and is far from the model of TFLite's repeated sweeps.
func TestBidirectionalSequenceRNNHybridTimeMajorRunsOnce(t *testing.T) {
	for _, asym := range []bool{false, true} {
		c := birnnCase{batch: 2, steps: 5, nIn: 4, fwU: 6, bwU: 6, timeMajor: true, merge: true,
			hybrid: true, asym: asym, act: ops.ActTanh}
		f := newBiRNN(5, c)
		k := NewBidirectionalSequenceRNN()
		prepared(t, k, f.n)
		r := newTestRand(6)
		x := uniform(r, c.batch*c.steps*c.nIn, 1)
		copy(f.n.Inputs[birnnInput].Float32s(), x)
		evalN(t, k, f.n)
		got := f.n.Outputs[0].Float32s()
		want, _ := f.reference(x, nil, zeroStates(c.batch, c.fwU), zeroStates(c.batch, c.bwU), 1)
		repeated, _ := f.reference(x, nil, zeroStates(c.batch, c.fwU), zeroStates(c.batch, c.bwU), c.steps)
		const tol = 0.0142
		checkClose(t, "output", got, want, tol)
		if d := maxDiff(got, repeated); d < 5*tol {
			t.Fatalf("asym=%v: the output is within %g of TFLite's repeated-sequence result; the test cannot tell them apart", asym, d)
		}
		t.Logf("asym=%v: max |tflrun - float64| = %.3g, max |tflrun - TFLite's repeated sweeps| = %.3g", asym, maxDiff(got, want), maxDiff(got, repeated))
	}
}

// TestBidirectionalSequenceRNNBackwardAuxInputBatchMajor: without aux
// weights the backward direction reads aux_input. TFLite's batch-major
// paths (float and hybrid) read input there instead, and step through a
// cross-linked aux_input by n_input rather than n_aux; tflrun follows the
// operator's definition, checked against the float64 model, and differs
// from what reading input would give.
func TestBidirectionalSequenceRNNBackwardAuxInputBatchMajor(t *testing.T) {
	for _, hybrid := range []bool{false, true} {
		c := birnnCase{batch: 2, steps: 3, nIn: 4, fwU: 3, bwU: 5, aux: "bw", hybrid: hybrid, act: ops.ActTanh}
		f := newBiRNN(8, c)
		k := NewBidirectionalSequenceRNN()
		prepared(t, k, f.n)
		r := newTestRand(9)
		x := uniform(r, c.batch*c.steps*c.nIn, 1)
		aux := uniform(r, c.batch*c.steps*c.nIn, 1)
		copy(f.n.Inputs[birnnInput].Float32s(), x)
		copy(f.n.Inputs[birnnAuxInput].Float32s(), aux)
		evalN(t, k, f.n)
		tol := 1e-5
		if hybrid {
			tol = 0.0142
		}
		_, want := f.reference(x, aux, zeroStates(c.batch, c.fwU), zeroStates(c.batch, c.bwU), 1)
		checkClose(t, "backward output", f.n.Outputs[1].Float32s(), want, tol)
		_, fromInput := f.reference(x, x, zeroStates(c.batch, c.fwU), zeroStates(c.batch, c.bwU), 1)
		if d := maxDiff(f.n.Outputs[1].Float32s(), fromInput); d < 5*tol {
			t.Fatalf("hybrid=%v: backward output within %g of the input-fed result", hybrid, d)
		}
	}
}

func TestBidirectionalSequenceRNNEvalNoAllocs(t *testing.T) {
	for _, hybrid := range []bool{false, true} {
		for _, tm := range []bool{false, true} {
			c := birnnCase{batch: 2, steps: 3, nIn: 4, nAux: 2, fwU: 3, bwU: 5, timeMajor: tm, aux: "cross",
				hybrid: hybrid, asym: hybrid, act: ops.ActRelu}
			f := newBiRNN(1, c)
			k := NewBidirectionalSequenceRNN()
			prepared(t, k, f.n)
			copy(f.n.Inputs[0].Float32s(), uniform(newTestRand(2), c.batch*c.steps*c.nIn, 1))
			if a := testing.AllocsPerRun(20, func() { _ = k.Eval(f.n) }); a != 0 {
				t.Errorf("hybrid=%v time_major=%v: %v allocations per Eval", hybrid, tm, a)
			}
		}
	}
}

func TestBidirectionalSequenceRNNPrepareErrors(t *testing.T) {
	base := birnnCase{batch: 2, steps: 3, nIn: 4, nAux: 2, fwU: 3, bwU: 5, aux: "cross", act: ops.ActTanh}
	cases := []struct {
		name string
		edit func(n *ops.Node)
		want string
	}{
		{"one aux weight", func(n *ops.Node) { n.Inputs[birnnBwAuxWeights] = nil }, "input 10 (fw_aux_weights"},
		{"aux weights without aux input", func(n *ops.Node) { n.Inputs[birnnAuxInput] = nil }, "input 9 (aux_input) is required"},
		{"aux input of another batch", func(n *ops.Node) { n.Inputs[birnnAuxInput].Shape = []int{3, 3, 2} }, "input 9 (aux_input"},
		{"bw weights wrong input size", func(n *ops.Node) { n.Inputs[birnnBwWeights].Shape = []int{5, 3} }, "input 5 (bw_weights"},
		{"bw recurrent not square", func(n *ops.Node) { n.Inputs[birnnBwRecurrent].Shape = []int{5, 3} }, "input 6 (bw_recurrent_weights"},
		{"fw state wrong units", func(n *ops.Node) { n.Inputs[birnnFwHidden].Shape = []int{2, 4} }, "input 4 (fw_hidden_state"},
		{"bw state not variable", func(n *ops.Node) { n.Inputs[birnnBwHidden].Kind = ops.ArenaTensor }, "input 8 (bw_hidden_state"},
		{"missing output", func(n *ops.Node) { n.Outputs = n.Outputs[:1] }, "outputs"},
		{"11 inputs", func(n *ops.Node) { n.Inputs = n.Inputs[:11] }, "inputs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newBiRNN(1, base)
			tc.edit(f.n)
			err := NewBidirectionalSequenceRNN().Prepare(f.n)
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}
