package fused

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestRecurrentZeroSizes runs every RNN-family, SVDF and GRU path with
// zero batch, zero time steps, zero input size or zero units: Prepare and
// Eval must succeed, except that the hybrid RNN kernels refuse an empty
// weight matrix (its scale is 0) at Prepare, saying so.
func TestRecurrentZeroSizes(t *testing.T) {
	sizes := [][4]int{{0, 3, 4, 5}, {2, 0, 4, 5}, {2, 3, 0, 5}, {2, 3, 4, 0}}
	for _, s := range sizes {
		batch, steps, nIn, units := s[0], s[1], s[2], s[3]
		for _, hybrid := range []bool{false, true} {
			name := fmt.Sprintf("b%d_t%d_in%d_u%d_hybrid=%v", batch, steps, nIn, units, hybrid)
			t.Run(name, func(t *testing.T) {
				r := newTestRand(1)
				w := newRNNWeights(r, units, nIn, 0)
				if len(w.w) > 0 {
					w.w[0] = 0.5 // a non-zero weight for the hybrid scale
				}
				if len(w.rec) > 0 {
					w.rec[0] = 0.5
				}
				// The hybrid RNN kernels refuse an empty weight matrix:
				// the hybrid weights of a zero-size matrix have scale 0,
				// and Prepare says so. Every other case must run.
				emptyHybrid := hybrid && (nIn == 0 || units == 0)
				run := func(k ops.Kernel, n *ops.Node, mayRefuse bool) {
					t.Helper()
					n.ResetScratch()
					if err := k.Prepare(n); err != nil {
						if !mayRefuse || !strings.Contains(err.Error(), "scale 0") {
							t.Errorf("%T: Prepare: %v", k, err)
						}
						return
					}
					if mayRefuse {
						t.Errorf("%T: Prepare accepted hybrid weights of scale 0", k)
					}
					for _, out := range n.Outputs {
						out.Data = alignedBytes(out.Bytes())
					}
					for _, sz := range n.ScratchSizes() {
						n.Scratch = append(n.Scratch, alignedBytes(sz))
					}
					if err := k.Eval(n); err != nil {
						t.Errorf("%T: Eval after a successful Prepare: %v", k, err)
					}
				}
				n, _ := rnnNode(w, batch, ops.ActTanh, hybrid, hybrid)
				run(NewRNN(), n, emptyHybrid)
				for _, tm := range []bool{false, true} {
					n, _ := seqNode(w, batch, steps, tm, ops.ActTanh, hybrid, hybrid)
					run(NewUnidirectionalSequenceRNN(), n, emptyHybrid)
					f := newBiRNN(1, birnnCase{batch: batch, steps: steps, nIn: nIn, nAux: 2, fwU: units, bwU: units,
						timeMajor: tm, aux: "cross", hybrid: hybrid, act: ops.ActRelu})
					run(NewBidirectionalSequenceRNN(), f.n, emptyHybrid)
				}
				sv := svdfNode(batch, nIn, units, 1, 2, uniform(r, units*nIn, 0.5), uniform(r, units*2, 0.5), nil, ops.ActNone, hybrid, hybrid)
				run(NewSVDF(), sv, false)
				if !hybrid {
					W := nIn + units
					g := gruNode(steps, batch, nIn, units, uniform(r, 2*units*W, 0.3), uniform(r, 2*units, 0.3), uniform(r, units*W, 0.3), uniform(r, units, 0.3))
					run(NewUnidirectionalSequenceGRU(), g, false)
				}
			})
		}
	}
}
