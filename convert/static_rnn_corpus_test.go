package convert

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfmodel"
)

// TestStaticRNNCorpus: tensorflow-onnx's TF1 static_rnn frozen graphs
// (LSTM and GRU cells repeated over 28 unstacked steps, from the TF
// corpus in $TFLRUN_TF_CORPUS) are rolled into loops and fused, and the
// fused models agree with their --no-fuse conversions within 1e-5 on
// random inputs. keep_prob, the dropout after the recurrent layer, is 1
// (inference): floor(1 + uniform[0, 1)) is then 1 whatever RANDOM_UNIFORM
// draws.
func TestStaticRNNCorpus(t *testing.T) {
	dir := os.Getenv("TFLRUN_TF_CORPUS")
	if dir == "" {
		t.Skip("TFLRUN_TF_CORPUS not set (the folder of internal/corpus/tf.tsv's models)")
	}
	for _, c := range []struct{ file, op, rule string }{
		{"tfonnx_lstm_frozen.pb", "UNIDIRECTIONAL_SEQUENCE_LSTM", "keras-lstm-loop"},
		{"tfonnx_gru_frozen.pb", "UNIDIRECTIONAL_SEQUENCE_GRU", "keras-gru-loop"},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%s: %v", path, err)
			}
			m, err := tfmodel.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			fused, err := ConvertModel(m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if fused.Report.Fused() != 1 || len(fused.Report.Composites) != 1 || fused.Report.Composites[0].Rule != c.rule {
				t.Fatalf("fusion report:\n%s", fused.Report.Text())
			}
			ops := opList(fused)
			if !strings.Contains(ops, c.op) || strings.Contains(ops, "LOGISTIC") || strings.Contains(ops, "TANH") {
				t.Errorf("fused model: %s", ops)
			}
			m, err = tfmodel.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			unfused := nfConvert(t, m, Options{})
			r := rand.New(rand.NewSource(12))
			for k := 0; k < 3; k++ {
				x := make([]float32, 28*28)
				for i := range x {
					x[i] = float32(r.Float64())
				}
				keep := []float32{1}
				a := nfRun(t, fused.Model, x, keep)[0]
				b := nfRun(t, unfused.Model, x, keep)[0]
				worst := 0.0
				for i := range a {
					worst = math.Max(worst, math.Abs(float64(a[i]-b[i])))
				}
				t.Logf("input %d: max |fused - unfused| %.3g over %d outputs", k, worst, len(a))
				if len(a) != len(b) || worst > 1e-5 {
					t.Errorf("input %d: fused and --no-fuse differ by %g", k, worst)
				}
			}
		})
	}
}

// TestStackedV1LoopCorpus: ML-KWS-for-MCU's CRNN_M runs MultiRNNCell([GRUCell,
// GRUCell]) in one TF1 dynamic_rnn loop, which no loop rule takes (two
// cells); unrolled, its steps are rolled back into one loop per cell and
// both fuse. The fused model agrees with --no-fuse within 1e-5 on random
// audio (the softmax and the logits).
func TestStackedV1LoopCorpus(t *testing.T) {
	dir := os.Getenv("TFLRUN_TF_CORPUS")
	if dir == "" {
		t.Skip("TFLRUN_TF_CORPUS not set (the folder of internal/corpus/tf.tsv's models)")
	}
	path := filepath.Join(dir, "armkws_CRNN_M.pb")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s: %v", path, err)
	}
	m, err := tfmodel.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	// The softmax and the logits before it.
	opts := Options{OutputArrays: []string{"labels_softmax", "add_2"}}
	fused, err := ConvertModel(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	rep := fused.Report
	if len(rep.Composites) != 3 || rep.Composites[0].Fused || len(rep.Composites[0].FusedAfterUnrolling) != 2 || rep.Fused() != 2 {
		t.Fatalf("fusion report:\n%s", rep.Text())
	}
	if ops := opList(fused); strings.Count(ops, "UNIDIRECTIONAL_SEQUENCE_GRU") == 0 || strings.Contains(ops, "LOGISTIC") || strings.Contains(ops, "TANH") {
		t.Errorf("fused model: %s", ops)
	}
	m, err = tfmodel.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	opts.NoFuse = true
	unfused, err := ConvertModel(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	run := func(model []byte, wav []float32) []float32 {
		it := nfInterpreter(t, model)
		copy(it.Input(0).Float32s(), wav)
		it.Input(1).Int32s()[0] = 16000
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		return append(append([]float32(nil), it.Output(0).Float32s()...), it.Output(1).Float32s()...)
	}
	r := rand.New(rand.NewSource(5))
	for k := 0; k < 3; k++ {
		wav := make([]float32, 16000)
		for i := range wav {
			wav[i] = float32(0.5 * math.Sin(float64(i)*0.05*float64(k+1)) * r.Float64())
		}
		a, b := run(fused.Model, wav), run(unfused.Model, wav)
		worst := 0.0
		for i := range a {
			worst = math.Max(worst, math.Abs(float64(a[i]-b[i])))
		}
		t.Logf("input %d: max |fused - unfused| %.3g over %d outputs", k, worst, len(a))
		if len(a) != len(b) || worst > 1e-5 {
			t.Errorf("input %d: fused and --no-fuse differ by %g", k, worst)
		}
	}
}
