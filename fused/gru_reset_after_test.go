package fused

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// gruResetAfterNode is gruNode with the seventh input,
// candidate_recurrent_bias, that selects the reset-after candidate.
func gruResetAfterNode(steps, batch, nIn, units int, gw, gb, cw, cb, crb []float32) *ops.Node {
	n := gruNode(steps, batch, nIn, units, gw, gb, cw, cb)
	n.Inputs = append(n.Inputs, f32([]int{units}, crb))
	return n
}

// kerasGRUResetAfterStep is an independent float64 model of one step of
// Keras's GRU cell with reset_after=True, written in Keras's own terms: a
// kernel [nIn, 3u] and recurrent kernel [u, 3u] with gate columns z, r, h,
// an input bias and a recurrent bias [3u] each.
func kerasGRUResetAfterStep(nIn, u int, kernel, rec, bIn, bRec, x, h []float64) []float64 {
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	xz := make([]float64, 3*u)
	hz := make([]float64, 3*u)
	for j := 0; j < 3*u; j++ {
		xz[j], hz[j] = bIn[j], bRec[j]
		for i := 0; i < nIn; i++ {
			xz[j] += x[i] * kernel[i*3*u+j]
		}
		for i := 0; i < u; i++ {
			hz[j] += h[i] * rec[i*3*u+j]
		}
	}
	out := make([]float64, u)
	for j := 0; j < u; j++ {
		z := sig(xz[j] + hz[j])
		r := sig(xz[u+j] + hz[u+j])
		hh := math.Tanh(xz[2*u+j] + r*hz[2*u+j])
		out[j] = z*h[j] + (1-z)*hh
	}
	return out
}

// TestGRUResetAfter checks the reset-after form against the Keras cell:
// the Keras weights are laid out as the converter does (reset rows, then
// update rows; input columns then recurrent columns; gate biases summed;
// the candidate's input bias in candidate_bias and its recurrent bias in
// candidate_recurrent_bias), and two Evals carry the state.
func TestGRUResetAfter(t *testing.T) {
	for _, c := range []struct{ steps, batch, nIn, units int }{{4, 2, 3, 5}, {1, 1, 6, 2}, {3, 3, 1, 8}} {
		t.Run(fmt.Sprintf("%dx%dx%d_units%d", c.steps, c.batch, c.nIn, c.units), func(t *testing.T) {
			r := newTestRand(uint64(31 * c.units))
			u, nIn := c.units, c.nIn
			kernel := f64s(uniform(r, nIn*3*u, 0.6))
			rec := f64s(uniform(r, u*3*u, 0.6))
			bIn, bRec := f64s(uniform(r, 3*u, 0.5)), f64s(uniform(r, 3*u, 0.5))
			W := nIn + u
			gw := make([]float32, 2*u*W)
			gb := make([]float32, 2*u)
			cw := make([]float32, u*W)
			cb := make([]float32, u)
			crb := make([]float32, u)
			row := func(dst []float32, col int) {
				for i := 0; i < nIn; i++ {
					dst[i] = float32(kernel[i*3*u+col])
				}
				for i := 0; i < u; i++ {
					dst[nIn+i] = float32(rec[i*3*u+col])
				}
			}
			for j := 0; j < u; j++ {
				row(gw[j*W:(j+1)*W], u+j)
				row(gw[(u+j)*W:(u+j+1)*W], j)
				row(cw[j*W:(j+1)*W], 2*u+j)
				gb[j] = float32(bIn[u+j] + bRec[u+j])
				gb[u+j] = float32(bIn[j] + bRec[j])
				cb[j], crb[j] = float32(bIn[2*u+j]), float32(bRec[2*u+j])
			}
			n := gruResetAfterNode(c.steps, c.batch, nIn, u, gw, gb, cw, cb, crb)
			k := NewUnidirectionalSequenceGRU()
			prepared(t, k, n)
			h := zeroStates(c.batch, u)
			for pass := 0; pass < 2; pass++ {
				x := uniform(r, c.steps*c.batch*nIn, 1)
				copy(n.Inputs[0].Float32s(), x)
				evalN(t, k, n)
				var want []float64
				for s := 0; s < c.steps; s++ {
					for b := 0; b < c.batch; b++ {
						i := s*c.batch + b
						h[b] = kerasGRUResetAfterStep(nIn, u, kernel, rec, bIn, bRec, f64s(x[i*nIn:(i+1)*nIn]), h[b])
						want = append(want, h[b]...)
					}
				}
				checkClose(t, fmt.Sprintf("pass %d", pass), n.Outputs[0].Float32s(), want, 1e-5)
				checkClose(t, fmt.Sprintf("pass %d output_state", pass), n.Outputs[1].Float32s(), want[len(want)-c.batch*u:], 1e-5)
			}
			if a := testing.AllocsPerRun(10, func() { _ = k.Eval(n) }); a != 0 {
				t.Errorf("%v allocations per Eval", a)
			}
		})
	}
}

func TestGRUResetAfterPrepareErrors(t *testing.T) {
	r := newTestRand(5)
	n := gruResetAfterNode(2, 1, 3, 4, uniform(r, 56, 0.3), uniform(r, 8, 0.3), uniform(r, 28, 0.3), uniform(r, 4, 0.3), uniform(r, 3, 0.3))
	n.Inputs[6] = f32([]int{3}, uniform(r, 3, 0.3))
	err := NewUnidirectionalSequenceGRU().Prepare(n)
	if err == nil || !strings.Contains(err.Error(), "input 6 (candidate_recurrent_bias") {
		t.Fatalf("candidate_recurrent_bias of 3 for 4 units: %v", err)
	}
	n.Inputs = append(n.Inputs, f32([]int{4}, uniform(r, 4, 0.3)))
	if err := NewUnidirectionalSequenceGRU().Prepare(n); err == nil || !strings.Contains(err.Error(), "input") {
		t.Fatalf("8 inputs: %v", err)
	}
}
