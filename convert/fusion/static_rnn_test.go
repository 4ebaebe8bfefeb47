package fusion_test

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/convert"
)

// TF1's tf.nn.static_rnn (testdata/tf1_static_rnn_*.pbtxt): chains of
// cells repeated once per unstacked step, rolled into loops that the loop
// rules fuse. Each fused model and its --no-fuse conversion are checked
// against the cell's equations in float64 from the graph's constants.

// bothRuns converts path fused and with --no-fuse and runs both on x.
func bothRuns(t *testing.T, path string, opts convert.Options, x []float32) (fused, unfused [][]float32) {
	t.Helper()
	f := conversion(t, path, opts)
	opts.NoFuse = true
	u := conversion(t, path, opts)
	if len(u.Report.Composites) != 0 {
		t.Errorf("--no-fuse report has entries:\n%s", u.Report.Text())
	}
	return newRunner(t, f.Model).run(x), newRunner(t, u.Model).run(x)
}

// checkBoth compares the fused and unfused outputs with want.
func checkBoth(t *testing.T, fused, unfused [][]float32, want ...[]float64) {
	t.Helper()
	for i, w := range want {
		for k, got := range [][]float32{fused[i], unfused[i]} {
			e := maxErr(t, got, w)
			t.Logf("output %d (%s): max |error| %.3g", i, []string{"fused", "--no-fuse"}[k], e)
			if e > refTol {
				t.Errorf("output %d (%s): error %g", i, []string{"fused", "--no-fuse"}[k], e)
			}
		}
	}
}

func TestStaticRNNBasicLSTMCell(t *testing.T) {
	const path = "testdata/tf1_static_rnn_lstm.pbtxt"
	opts := convert.Options{OutputArrays: []string{"last"}}
	res := conversion(t, path, opts)
	loopEntry(t, res, "rnn/basic_lstm_cell/static_rnn", "keras-lstm-loop", "UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE", "batch-major; batch 1, 3 steps")
	if ops := opCounts(res); ops["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 1 || ops["FULLY_CONNECTED"] != 0 || ops["LOGISTIC"] != 0 {
		t.Errorf("operators %v", ops)
	}
	K, b := graphConst(t, path, "kernel"), graphConst(t, path, "bias")
	for _, seed := range []float64{0.3, 1.7} {
		x := probeInput(6, seed)
		fused, unfused := bothRuns(t, path, opts, x)
		// TF1's gate order i, j, f, o with forget_bias 1 on f.
		seq := tf1LSTM(K, b, 1, steps(x, 3))
		checkBoth(t, fused, unfused, seq[2])
	}
}

func TestStaticRNNGRUCell(t *testing.T) {
	const path = "testdata/tf1_static_rnn_gru.pbtxt"
	opts := convert.Options{OutputArrays: []string{"last"}}
	res := conversion(t, path, opts)
	loopEntry(t, res, "rnn/gru_cell/static_rnn", "keras-gru-loop", "UNIDIRECTIONAL_SEQUENCE_GRU", "reset_after=False")
	if ops := opCounts(res); ops["custom.UNIDIRECTIONAL_SEQUENCE_GRU"] != 1 || ops["FULLY_CONNECTED"] != 0 {
		t.Errorf("operators %v", ops)
	}
	Wg, bg := graphConst(t, path, "gates/kernel"), graphConst(t, path, "gates/bias")
	Wc, bc := graphConst(t, path, "candidate/kernel"), graphConst(t, path, "candidate/bias")
	const u = 2
	for _, seed := range []float64{0.6, 2.2} {
		x := probeInput(6, seed)
		fused, unfused := bothRuns(t, path, opts, x)
		h := make([]float64, u)
		for _, xt := range steps(x, 3) {
			in := append(append([]float64(nil), xt...), h...)
			g := make([]float64, 2*u)
			for j := range g {
				z := bg.v[j]
				for k, v := range in {
					z += v * Wg.v[k*2*u+j]
				}
				g[j] = sigmoid(z)
			}
			r, z := g[:u], g[u:]
			in2 := append([]float64(nil), xt...)
			for j := 0; j < u; j++ {
				in2 = append(in2, r[j]*h[j])
			}
			next := make([]float64, u)
			for j := 0; j < u; j++ {
				a := bc.v[j]
				for k, v := range in2 {
					a += v * Wc.v[k*u+j]
				}
				next[j] = z[j]*h[j] + (1-z[j])*math.Tanh(a)
			}
			h = next
		}
		checkBoth(t, fused, unfused, h)
	}
}

func TestStaticRNNBasicRNNCell(t *testing.T) {
	const path = "testdata/tf1_static_rnn_rnn.pbtxt"
	opts := convert.Options{OutputArrays: []string{"last"}}
	res := conversion(t, path, opts)
	loopEntry(t, res, "rnn/basic_rnn_cell/static_rnn", "keras-simple-rnn", "UNIDIRECTIONAL_SEQUENCE_RNN STRIDED_SLICE", "batch-major")
	K, b := graphConst(t, path, "kernel"), graphConst(t, path, "bias")
	const u = 2
	for _, seed := range []float64{0.1, 1.3} {
		x := probeInput(6, seed)
		fused, unfused := bothRuns(t, path, opts, x)
		h := make([]float64, u)
		for _, xt := range steps(x, 3) {
			in := append(append([]float64(nil), xt...), h...)
			next := make([]float64, u)
			for j := range next {
				a := b.v[j]
				for k, v := range in {
					a += v * K.v[k*u+j]
				}
				next[j] = math.Tanh(a)
			}
			h = next
		}
		checkBoth(t, fused, unfused, h)
	}
}

// TestStaticRNNSequenceNotRolled: a chain whose per-step output is used
// (here the first step's h as a second model output) is no loop with only
// its final state read; it is left unrolled and the report has no entry.
func TestStaticRNNSequenceNotRolled(t *testing.T) {
	const path = "testdata/tf1_static_rnn_rnn.pbtxt"
	opts := convert.Options{OutputArrays: []string{"last", "rnn/basic_rnn_cell/Tanh"}}
	res := conversion(t, path, opts)
	if len(res.Report.Composites) != 0 {
		t.Errorf("report:\n%s", res.Report.Text())
	}
	if ops := opCounts(res); ops["UNIDIRECTIONAL_SEQUENCE_RNN"] != 0 || ops["FULLY_CONNECTED"] != 3 {
		t.Errorf("operators %v", ops)
	}
}
