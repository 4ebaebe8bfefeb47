package fusion_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/interpreter"
)

// The dynamic batch of converted recurrent models (issue 12, item 6): a
// Keras LSTM, GRU or SimpleRNN over a [-1, time, features] input is
// written with shape_signature -1 on its input, its outputs and the
// fused operators' variable state, and tflrun runs it at any batch: the
// state follows the input's batch at AllocateTensors and is reset there.
// Each model runs at batches 1, 3 and 7, and every row must equal the
// batch-1 run of that row alone within 1e-5.

// batchSweep runs model at each batch with row r's input probeInput(…,
// r), and compares every output row with that row run alone at batch 1.
// Once the shapes are stable (the last batch, after one Invoke), Invoke
// must allocate nothing.
func batchSweep(t *testing.T, model []byte, batches ...int) {
	t.Helper()
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		t.Fatal(err)
	}
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	if it.InputCount() != 1 {
		t.Fatalf("%d inputs, the sweep feeds one", it.InputCount())
	}
	in := it.Input(0)
	if len(in.Signature) == 0 || in.Signature[0] != -1 {
		t.Fatalf("input %s has shape_signature %v, want a -1 batch", in.Name, in.Signature)
	}
	rowShape := append([]int(nil), in.Shape[1:]...)
	rowLen := 1
	for _, d := range rowShape {
		rowLen *= d
	}
	maxB := 0
	for _, b := range batches {
		maxB = max(maxB, b)
	}
	// alone[r][k]: output k for row r at batch 1.
	run := func(b int) [][]float32 {
		t.Helper()
		if err := it.ResizeInputTensorStrict(0, append([]int{b}, rowShape...)); err != nil {
			t.Fatal(err)
		}
		if err := it.AllocateTensors(); err != nil {
			t.Fatalf("AllocateTensors at batch %d: %v", b, err)
		}
		x := it.Input(0).Float32s()
		for r := 0; r < b; r++ {
			copy(x[r*rowLen:], probeInput(rowLen, 0.37*float64(r)+0.1))
		}
		if err := it.Invoke(); err != nil {
			t.Fatalf("Invoke at batch %d: %v", b, err)
		}
		outs := make([][]float32, it.OutputCount())
		for k := range outs {
			o := it.Output(k)
			if o.Dim(0) != b {
				t.Fatalf("output %d (%s) has shape %v at batch %d", k, o.Name, o.Shape, b)
			}
			outs[k] = append([]float32(nil), o.Float32s()...)
		}
		return outs
	}
	alone := make([][][]float32, maxB)
	for r := range alone {
		if err := it.ResizeInputTensorStrict(0, append([]int{1}, rowShape...)); err != nil {
			t.Fatal(err)
		}
		if err := it.AllocateTensors(); err != nil {
			t.Fatal(err)
		}
		copy(it.Input(0).Float32s(), probeInput(rowLen, 0.37*float64(r)+0.1))
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		alone[r] = make([][]float32, it.OutputCount())
		for k := range alone[r] {
			alone[r][k] = append([]float32(nil), it.Output(k).Float32s()...)
		}
	}
	for _, b := range batches {
		outs := run(b)
		worst := 0.0
		for k, o := range outs {
			n := len(o) / b
			for r := 0; r < b; r++ {
				for j, v := range o[r*n : (r+1)*n] {
					w := alone[r][k][j]
					d := math.Abs(float64(v) - float64(w))
					worst = math.Max(worst, d)
					if d > 1e-5 {
						t.Fatalf("batch %d, output %d, row %d, element %d: %g, alone %g", b, k, r, j, v, w)
					}
				}
			}
		}
		t.Logf("batch %d: rows equal their batch-1 runs within %.3g", b, worst)
	}
	// The same batch again (ResizeInputTensor is a no-op), then Invoke
	// allocation-free.
	if err := it.ResizeInputTensorStrict(0, append([]int{batches[len(batches)-1]}, rowShape...)); err != nil {
		t.Fatal(err)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(5, func() {
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Invoke allocates %.0f times once the batch is stable", a)
	}
}

// stateSignatures checks that every variable tensor of the model is a
// [-1, …] state whose batch follows the input.
func stateSignatures(t *testing.T, model []byte) int {
	t.Helper()
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ti := range m.Subgraphs[0].Tensors {
		if !ti.IsVariable {
			continue
		}
		n++
		if len(ti.Signature) != len(ti.Shape) || len(ti.Signature) == 0 || ti.Signature[0] != -1 {
			t.Errorf("variable %q has shape %v, shape_signature %v: want a -1 batch", ti.Name, ti.Shape, ti.Signature)
		}
	}
	return n
}

func TestRecurrentDynamicBatch(t *testing.T) {
	for _, c := range []struct {
		path    string
		outputs []string
		op      string
		shapes  []ir.Shape // InputShapes; a -1 batch stays dynamic
	}{
		{"testdata/lstm.pbtxt", []string{"last"}, "UNIDIRECTIONAL_SEQUENCE_LSTM", nil},
		{"testdata/lstm.pbtxt", []string{"last"}, "UNIDIRECTIONAL_SEQUENCE_LSTM", []ir.Shape{{-1, 3, 2}}},
		{"testdata/lstm_loop_relu.pbtxt", []string{"last", "call:1", "call:2", "stacked", "call:3"}, "UNIDIRECTIONAL_SEQUENCE_LSTM", nil},
		{"testdata/lstm_loop_dropout.pbtxt", []string{"last", "call:1"}, "UNIDIRECTIONAL_SEQUENCE_LSTM", nil},
		{"testdata/lstm_indy.pbtxt", []string{"last", "call:1"}, "UNIDIRECTIONAL_SEQUENCE_LSTM", nil},
		{"testdata/gru.pbtxt", []string{"last", "call:1"}, "custom.UNIDIRECTIONAL_SEQUENCE_GRU", nil},
		{"testdata/gru_reset_before.pbtxt", []string{"last", "call:1"}, "custom.UNIDIRECTIONAL_SEQUENCE_GRU", nil},
		{"testdata/gru_loop.pbtxt", []string{"last", "call:1", "call:2"}, "custom.UNIDIRECTIONAL_SEQUENCE_GRU", nil},
		{"testdata/gru_loop_reset_before.pbtxt", []string{"last", "call:1"}, "custom.UNIDIRECTIONAL_SEQUENCE_GRU", nil},
		{"testdata/simple_rnn.pbtxt", []string{"forward:0", "forward:1", "backward"}, "UNIDIRECTIONAL_SEQUENCE_RNN", nil},
	} {
		t.Run(fmt.Sprint(c.path, c.shapes), func(t *testing.T) {
			res := conversion(t, c.path, convert.Options{OutputArrays: c.outputs, InputShapes: c.shapes})
			if opCounts(res)[c.op] == 0 {
				t.Fatalf("no %s: %v", c.op, opCounts(res))
			}
			for _, note := range res.Report.Notes {
				if strings.Contains(note, "dynamic batch") && !strings.Contains(note, "TensorFlow Lite runs") {
					t.Errorf("note %q", note)
				}
			}
			if n := stateSignatures(t, res.Model); n == 0 {
				t.Errorf("no variable state tensors")
			}
			if !strings.Contains(strings.Join(res.Report.Notes, "\n"), "stock TensorFlow Lite runs it only at batch 1") {
				t.Errorf("the report does not say TensorFlow Lite runs it at batch 1 only: %q", res.Report.Notes)
			}
			batchSweep(t, res.Model, 1, 3, 7)
		})
	}
}

// TestSavedModelRecurrentDynamicBatch: the Keras LSTM(64) and GRU(64)
// forecasters of ../shared, input [-1, 5, 1], converted fused and run at
// batches 1, 3 and 7.
func TestSavedModelRecurrentDynamicBatch(t *testing.T) {
	for _, c := range []struct{ dir, op string }{
		{"savedmodels/iteam1_lstm/lstm_model", "UNIDIRECTIONAL_SEQUENCE_LSTM"},
		{"savedmodels/iteam1_gru/gru_model", "custom.UNIDIRECTIONAL_SEQUENCE_GRU"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			res := conversion(t, shared(t, c.dir), convert.Options{})
			if opCounts(res)[c.op] != 1 {
				t.Fatalf("operators %v", opCounts(res))
			}
			stateSignatures(t, res.Model)
			if !strings.Contains(strings.Join(res.Report.Notes, "\n"), "stock TensorFlow Lite runs it only at batch 1") {
				t.Errorf("notes %q", res.Report.Notes)
			}
			batchSweep(t, res.Model, 1, 3, 7)
		})
	}
}
