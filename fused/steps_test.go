package fused

import (
	"strings"
	"testing"
	"time"

	"github.com/tflrun/tflrun/ops"
)

// TestEmptyBatchRunsNoStep runs each sequence kernel directly (without
// the interpreter, which skips nodes it finds empty) on a time-major
// input of 2^31−1 steps and batch 0: the loop over the time steps must
// not start, as there is no row to advance.
func TestEmptyBatchRunsNoStep(t *testing.T) {
	const long = 1<<31 - 1
	r := newTestRand(9)
	w := newRNNWeights(r, 4, 3, 0)
	rnn, _ := seqNode(w, 0, long, true, ops.ActTanh, false, false)
	u := 4
	gru := gruNode(long, 0, 3, u, uniform(r, 2*u*(3+u), 0.3), uniform(r, 2*u, 0.3), uniform(r, u*(3+u), 0.3), uniform(r, u, 0.3))
	spec := &lstmSpec{batch: 0, time: long, nIn: 3, nCell: 4, nOut: 4, timeMajor: true, act: ops.ActTanh}
	spec.randomize(r)
	lstm := spec.node(spec.randomInput(r))
	for _, tc := range []struct {
		name string
		k    ops.Kernel
		n    *ops.Node
	}{
		{"UNIDIRECTIONAL_SEQUENCE_RNN", NewUnidirectionalSequenceRNN(), rnn},
		{"UNIDIRECTIONAL_SEQUENCE_GRU", NewUnidirectionalSequenceGRU(), gru},
		{"UNIDIRECTIONAL_SEQUENCE_LSTM", NewUnidirectionalSequenceLSTM(), lstm},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prepared(t, tc.k, tc.n)
			start := time.Now()
			if err := tc.k.Eval(tc.n); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > time.Second {
				t.Fatalf("Eval took %v over an empty batch", d)
			}
		})
	}
}

func TestCheckSteps(t *testing.T) {
	for _, tc := range []struct {
		maxTime, batch, in, out int
		refused                 bool
	}{
		{1<<31 - 1, 1, 0, 0, true},
		{2, 3, 0, 0, true},
		{1, 3, 0, 0, false}, // one step: bounded by the state
		{1<<31 - 1, 0, 0, 0, false},
		{1<<31 - 1, 1, 1, 0, false},
		{1<<31 - 1, 1, 0, 1, false},
	} {
		err := checkSteps(tc.maxTime, tc.batch, tc.in, tc.out)
		if (err != nil) != tc.refused || err != nil && !strings.Contains(err.Error(), "2147483647 time steps") && tc.maxTime == 1<<31-1 {
			t.Errorf("checkSteps(%d, %d, %d, %d) = %v, refused want %v", tc.maxTime, tc.batch, tc.in, tc.out, err, tc.refused)
		}
	}
}
