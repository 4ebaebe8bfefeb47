package interpreter

import (
	"strings"
	"testing"
	"time"

	"github.com/tflrun/tflrun/schema"
)

// TestHostileEmptySteps covers the recurrent kernels' time loops over a
// declared length the tensors do not hold (a fuzzer found a 3 KB
// BIDIRECTIONAL_SEQUENCE_LSTM with 2^31−1 steps of empty rows that ran for
// minutes): with empty input and output rows Prepare refuses the model,
// and a batch of 0 runs no step however long the sequence, in either
// layout. Each model is a small valid one whose input shape is edited.
func TestHostileEmptySteps(t *testing.T) {
	const long = 1<<31 - 1
	const refusal = "time steps would read and write no data"
	sg := func(m *schema.ModelT) *schema.SubGraphT { return m.Subgraphs[0] }
	input := func(m *schema.ModelT, shape ...int32) *schema.ModelT {
		sg(m).Tensors[sg(m).Inputs[0]].Shape = shape
		return m
	}
	usrnn := func(timeMajor bool, nIn, units int) *schema.ModelT {
		return rnnModel(rnnSpec{kind: "usrnn", batch: 1, steps: 2, nIn: nIn, units: units, timeMajor: timeMajor,
			act: schema.ActivationFunctionTypeTANH, seed: 1})
	}
	birnn := func(timeMajor bool, nIn, units int) *schema.ModelT {
		return rnnModel(rnnSpec{kind: "birnn", batch: 1, steps: 2, nIn: nIn, units: units, bwUnits: units, timeMajor: timeMajor,
			act: schema.ActivationFunctionTypeTANH, seed: 2})
	}
	usl := func(timeMajor bool, nIn int) *schema.ModelT {
		return buildLSTMModel(uslConfig{op: "usl", batch: 1, time: 2, nIn: nIn, nCell: 3, nOut: 3, timeMajor: timeMajor,
			path: "float", act: schema.ActivationFunctionTypeTANH}, 3)
	}
	bilstm := func(timeMajor bool) *schema.ModelT {
		return buildBiLSTMModel(bilstmConfig{batch: 1, time: 2, nIn: 3, nCell: 2, timeMajor: timeMajor}, 4)
	}
	refused := []struct {
		name string
		m    *schema.ModelT
	}{
		{"UNIDIRECTIONAL_SEQUENCE_RNN no input or units", input(usrnn(false, 0, 0), 1, long, 0)},
		{"BIDIRECTIONAL_SEQUENCE_RNN no input or units", input(birnn(true, 0, 0), long, 1, 0)},
		{"UNIDIRECTIONAL_SEQUENCE_GRU no input or units", input(gruModel(2, 1, 0, 0, 5), long, 1, 0)},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			err := loadAndAllocate(pack(tc.m))
			if err == nil || !strings.Contains(err.Error(), refusal) {
				t.Fatalf("got %v, want an error containing %q", err, refusal)
			}
		})
	}
	// A batch of 0: no step runs (time-major layouts used to loop over
	// every empty step).
	empty := []struct {
		name string
		m    *schema.ModelT
	}{
		{"UNIDIRECTIONAL_SEQUENCE_RNN", input(usrnn(true, 3, 4), long, 0, 3)},
		{"BIDIRECTIONAL_SEQUENCE_RNN", input(birnn(true, 3, 4), long, 0, 3)},
		{"UNIDIRECTIONAL_SEQUENCE_GRU", input(gruModel(2, 1, 3, 4, 6), long, 0, 3)},
		{"UNIDIRECTIONAL_SEQUENCE_LSTM", input(usl(true, 3), long, 0, 3)},
		{"BIDIRECTIONAL_SEQUENCE_LSTM", input(bilstm(true), long, 0, 3)},
	}
	for _, tc := range empty {
		t.Run(tc.name+" batch 0", func(t *testing.T) {
			start := time.Now()
			err := loadAndAllocate(pack(tc.m))
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("took %v (error %v)", d, err)
			}
			if err != nil {
				t.Fatalf("an empty batch: %v", err)
			}
		})
	}
}
