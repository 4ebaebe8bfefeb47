package fused

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Where TensorFlow Lite's LSTM kernels misbehave, tflrun computes the
// correct result; these tests check it against the float64 models of
// lstm_spec_test.go. The cases and where they are tested:
//
//   - A projection larger than the cell (n_output > n_cell): TFLite sizes
//     its projection scratch by n_cell (float UNIDIRECTIONAL_SEQUENCE_LSTM:
//     n_cell+16 floats per batch row; LSTM op: n_batch·n_cell; hybrid int32
//     accumulator n_cell·n_batch; integer int32 scratch n_batch·n_cell) and
//     writes n_output values per row into it. Tested here (float
//     UNIDIRECTIONAL_SEQUENCE_LSTM), in TestLSTMOpFullAgainstReference
//     (LSTM op float and hybrid), TestHybridLSTMAgainstReference (hybrid
//     UNIDIRECTIONAL_SEQUENCE_LSTM), TestIntegerLSTMWideProjection
//     (int8x8_16) and TestBidirectionalLSTMWideProjection.
//   - BIDIRECTIONAL_SEQUENCE_LSTM with merge_outputs, batch-major input and
//     n_batch > 1: TFLite offsets batch row b's output state by b times the
//     merged width (n_fw_output + n_bw_output) instead of n_output, so rows
//     after the first read and write outside the state tensor. Tested here
//     and in TestBidirectionalLSTMAgainstReference (float and hybrid, every
//     auxiliary-input mode) and, through the interpreter, in
//     TestLSTMBatchIndependence.
//   - int16 activations (the 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM that would
//     be version 5): TFLite registers no kernel; tflrun refuses it with an
//     error (TestLSTMPrepareErrors, TestRegisterBuiltins, the hostile-model
//     table).

// TestFloatLSTMWideProjection: float UNIDIRECTIONAL_SEQUENCE_LSTM with
// n_output > n_cell, both layouts, batch 3, with and without clipping and
// projection bias.
func TestFloatLSTMWideProjection(t *testing.T) {
	rng := rand.New(rand.NewPCG(101, 102))
	for i, c := range []lstmSpec{
		{batch: 3, time: 4, nIn: 5, nCell: 3, nOut: 11, proj: true},
		{batch: 3, time: 5, nIn: 4, nCell: 4, nOut: 9, proj: true, projBias: true, peephole: true, cellClip: 0.6, projClip: 0.5},
		{batch: 1, time: 3, nIn: 6, nCell: 2, nOut: 32, proj: true, projBias: true, layerNorm: true, cifg: true},
	} {
		for _, timeMajor := range []bool{true, false} {
			s := c
			s.timeMajor, s.act = timeMajor, ops.ActTanh
			t.Run(fmt.Sprintf("case%d/timeMajor=%v", i, timeMajor), func(t *testing.T) {
				s.randomize(rng)
				x := s.randomInput(rng)
				got := runFloat(t, &s, x)
				if d, at := maxAbsDiff(got, s.reference(x)); d > 1e-5 {
					t.Errorf("max |kernel - float64 reference| = %g at %d", d, at)
				}
			})
		}
	}
}

// TestBidirectionalLSTMMergedBatchMajor: merged outputs, batch-major, batch
// 4, with a projection and peephole, float and hybrid: every batch row
// equals the float64 model (TFLite corrupts rows 1..3).
func TestBidirectionalLSTMMergedBatchMajor(t *testing.T) {
	for _, hybrid := range []bool{false, true} {
		base := lstmSpec{batch: 4, time: 5, nIn: 3, nCell: 6, nOut: 4, proj: true, peephole: true, act: ops.ActTanh}
		fw, bw := base, base
		fw.randomize(newTestRand(103))
		bw.randomize(newTestRand(104))
		x := fw.randomInput(newTestRand(105))
		n, fd, bd := bilstmNode(&fw, &bw, x, nil, true, "", hybrid, false)
		k := NewBidirectionalSequenceLSTM()
		prepared(t, k, n)
		if err := k.Eval(n); err != nil {
			t.Fatal(err)
		}
		fwRef, bwRef := fd.referenceDir(x, nil, false), bd.referenceDir(x, nil, true)
		var want []float64
		for r := 0; r < fw.batch*fw.time; r++ {
			want = append(want, fwRef[r*fw.nOut:(r+1)*fw.nOut]...)
			want = append(want, bwRef[r*bw.nOut:(r+1)*bw.nOut]...)
		}
		tol := 1e-5
		if hybrid {
			tol = 0.01
		}
		got := n.Outputs[0].Float32s()
		for b := 0; b < fw.batch; b++ {
			w := 2 * fw.nOut * fw.time
			if d, at := maxAbsDiff(got[b*w:(b+1)*w], want[b*w:(b+1)*w]); d > tol {
				t.Errorf("hybrid=%v batch row %d: max diff %g at %d", hybrid, b, d, at)
			}
		}
	}
}
