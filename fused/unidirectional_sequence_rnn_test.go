package fused

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func TestUnidirectionalSequenceRNNAgainstReference(t *testing.T) {
	const batch, steps, nIn, units = 3, 5, 4, 6
	for _, tm := range []bool{false, true} {
		for _, mode := range []string{"float", "hybrid", "hybrid-asym"} {
			t.Run(fmt.Sprintf("time_major=%v/%s", tm, mode), func(t *testing.T) {
				hybrid, asym := mode != "float", mode == "hybrid-asym"
				r := newTestRand(7)
				w := newRNNWeights(r, units, nIn, 0)
				n, ref := seqNode(w, batch, steps, tm, ops.ActTanh, hybrid, asym)
				k := NewUnidirectionalSequenceRNN()
				prepared(t, k, n)
				wantShape := append(slices.Clone(n.Inputs[0].Shape[:2]), units)
				if got := n.Outputs[0].Shape; !slices.Equal(got, wantShape) {
					t.Fatalf("output shape %v, want %v", got, wantShape)
				}
				x := uniform(r, batch*steps*nIn, 1)
				copy(n.Inputs[0].Float32s(), x)
				// Two Evals: the second continues from the first's state.
				want := make([]float64, batch*steps*units)
				h := make([][]float64, batch)
				for b := range h {
					h[b] = make([]float64, units)
				}
				tol := 1e-5
				if hybrid {
					tol = 0.013 // TFLite's hybrid sequence RNN test tolerance
				}
				for pass := 0; pass < 2; pass++ {
					evalN(t, k, n)
					for b := 0; b < batch; b++ {
						for s := 0; s < steps; s++ {
							i := seqIndex(tm, batch, steps, b, s)
							h[b] = ref.step(f64s(x[i*nIn:i*nIn+nIn]), nil, h[b])
							copy(want[i*units:], h[b])
						}
					}
					checkClose(t, fmt.Sprintf("pass %d", pass), n.Outputs[0].Float32s(), want, tol)
				}
			})
		}
	}
}

// TestUnidirectionalSequenceRNNLayoutsAndSteps: the same sequences give
// bit-identical outputs time-major, batch-major, and as single RNN steps.
func TestUnidirectionalSequenceRNNLayoutsAndSteps(t *testing.T) {
	const batch, steps, nIn, units = 3, 4, 5, 6
	for _, mode := range []string{"float", "hybrid", "hybrid-asym"} {
		t.Run(mode, func(t *testing.T) {
			hybrid, asym := mode != "float", mode == "hybrid-asym"
			r := newTestRand(11)
			w := newRNNWeights(r, units, nIn, 0)
			x := uniform(r, batch*steps*nIn, 1) // batch-major
			// Make one row all zeros at one step, exercising the zero skip.
			clear(x[(1*steps+2)*nIn : (1*steps+3)*nIn])
			bm, _ := seqNode(w, batch, steps, false, ops.ActRelu, hybrid, asym)
			tm, _ := seqNode(w, batch, steps, true, ops.ActRelu, hybrid, asym)
			kb, kt := NewUnidirectionalSequenceRNN(), NewUnidirectionalSequenceRNN()
			prepared(t, kb, bm)
			prepared(t, kt, tm)
			copy(bm.Inputs[0].Float32s(), x)
			for b := 0; b < batch; b++ {
				for s := 0; s < steps; s++ {
					copy(tm.Inputs[0].Float32s()[(s*batch+b)*nIn:], x[(b*steps+s)*nIn:(b*steps+s+1)*nIn])
				}
			}
			evalN(t, kb, bm)
			evalN(t, kt, tm)
			single, _ := rnnNode(w, 1, ops.ActRelu, hybrid, asym)
			ks := NewRNN()
			prepared(t, ks, single)
			for b := 0; b < batch; b++ {
				clear(single.Inputs[4].Float32s())
				for s := 0; s < steps; s++ {
					copy(single.Inputs[0].Float32s(), x[(b*steps+s)*nIn:(b*steps+s+1)*nIn])
					evalN(t, ks, single)
					gotB := bm.Outputs[0].Float32s()[(b*steps+s)*units : (b*steps+s+1)*units]
					gotT := tm.Outputs[0].Float32s()[(s*batch+b)*units : (s*batch+b+1)*units]
					gotS := single.Outputs[0].Float32s()
					if !slices.Equal(gotB, gotS) || !slices.Equal(gotT, gotS) {
						t.Fatalf("batch %d step %d: batch-major %v, time-major %v, RNN steps %v", b, s, gotB, gotT, gotS)
					}
				}
			}
		})
	}
}
