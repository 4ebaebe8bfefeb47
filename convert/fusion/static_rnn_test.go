package fusion_test

import (
	"math"
	"strings"
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
	for _, seed := range []float64{0.6, 2.2} {
		x := probeInput(6, seed)
		fused, unfused := bothRuns(t, path, opts, x)
		seq := tf1GRU(Wg, bg, Wc, bc, steps(x, 3))
		checkBoth(t, fused, unfused, seq[2])
	}
}

// tf1GRU runs TensorFlow 1's GRUCell over xs from zeros: [r, u] =
// σ([x, h]·Wg + bg), c = tanh([x, r⊙h]·Wc + bc), h' = u⊙h + (1 - u)⊙c.
func tf1GRU(Wg, bg, Wc, bc tensorData, xs [][]float64) [][]float64 {
	u := Wc.shape[1]
	h := make([]float64, u)
	var outs [][]float64
	for _, xt := range xs {
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
		outs = append(outs, h)
	}
	return outs
}

// TestStaticRNNStackedCells: MultiRNNCell([GRUCell, GRUCell]) in one
// static chain is rolled one layer at a time: the first cell's loop
// writes its outputs, unstacked again as the second cell's chain, which
// is rolled next. Both fuse.
func TestStaticRNNStackedCells(t *testing.T) {
	const path = "testdata/tf1_static_rnn_gru_stack.pbtxt"
	opts := convert.Options{OutputArrays: []string{"last"}}
	res := conversion(t, path, opts)
	loopEntry(t, res, "rnn/rnn/multi_rnn_cell/cell_0/gru_cell/static_rnn", "keras-gru-loop", "UNIDIRECTIONAL_SEQUENCE_GRU", "batch-major")
	loopEntry(t, res, "rnn/rnn/multi_rnn_cell/cell_1/gru_cell/static_rnn", "keras-gru-loop", "UNIDIRECTIONAL_SEQUENCE_GRU", "time-major")
	if ops := opCounts(res); ops["custom.UNIDIRECTIONAL_SEQUENCE_GRU"] != 2 || len(ops) != 2 {
		t.Errorf("operators %v", ops)
	}
	cell := func(k string) (tensorData, tensorData, tensorData, tensorData) {
		q := "multi_rnn_cell/cell_" + k + "/gru_cell/"
		return graphConst(t, path, q+"gates/kernel"), graphConst(t, path, q+"gates/bias"), graphConst(t, path, q+"candidate/kernel"), graphConst(t, path, q+"candidate/bias")
	}
	for _, seed := range []float64{0.2, 1.1} {
		x := probeInput(6, seed)
		fused, unfused := bothRuns(t, path, opts, x)
		a, b, c, d := cell("0")
		y0 := tf1GRU(a, b, c, d, steps(x, 3))
		a, b, c, d = cell("1")
		y1 := tf1GRU(a, b, c, d, y0)
		checkBoth(t, fused, unfused, y1[2])
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

// TestStaticRNNSequenceOutputs: a chain whose per-step output is read
// (here the first step's h, a second model output) is rolled with that
// output written per step; the loop's stacked outputs are unstacked
// again for what read them.
func TestStaticRNNSequenceOutputs(t *testing.T) {
	const path = "testdata/tf1_static_rnn_rnn.pbtxt"
	opts := convert.Options{OutputArrays: []string{"last", "rnn/basic_rnn_cell/Tanh"}}
	res := conversion(t, path, opts)
	loopEntry(t, res, "rnn/basic_rnn_cell/static_rnn", "keras-simple-rnn", "UNIDIRECTIONAL_SEQUENCE_RNN", "batch-major")
	if ops := opCounts(res); ops["UNIDIRECTIONAL_SEQUENCE_RNN"] != 1 || ops["FULLY_CONNECTED"] != 0 {
		t.Errorf("operators %v", ops)
	}
	K, b := graphConst(t, path, "kernel"), graphConst(t, path, "bias")
	const u = 2
	x := probeInput(6, 0.8)
	fused, unfused := bothRuns(t, path, opts, x)
	h := make([]float64, u)
	var hs [][]float64
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
		hs = append(hs, h)
	}
	checkBoth(t, fused, unfused, hs[2], hs[0])
}

// TestStaticRNNTwoOutputsNotRolled: a chain two of whose per-step values
// are read outside it (an LSTM step's c and h) is no loop the rules take
// (a loop writes one output per step); it is left unrolled and the report
// has no entry.
func TestStaticRNNTwoOutputsNotRolled(t *testing.T) {
	const path = "testdata/tf1_static_rnn_lstm.pbtxt"
	opts := convert.Options{OutputArrays: []string{"last", "rnn/basic_lstm_cell/Add_1", "rnn/basic_lstm_cell/Mul_2"}}
	res := conversion(t, path, opts)
	if len(res.Report.Composites) != 0 {
		t.Errorf("report:\n%s", res.Report.Text())
	}
	if ops := opCounts(res); ops["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 0 || ops["FULLY_CONNECTED"] != 3 {
		t.Errorf("operators %v", ops)
	}
	x := probeInput(6, 0.4)
	fused, unfused := bothRuns(t, path, opts, x)
	seq := tf1LSTM(graphConst(t, path, "kernel"), graphConst(t, path, "bias"), 1, steps(x, 3))
	checkBoth(t, fused, unfused, seq[2])
}

// TestConvRNNLoopRefused: a convolutional recurrent loop (the shape of
// ConvLSTM2D's, testdata/conv_rnn_loop.pbtxt) has no fused TFLite
// operator: the report says so, and the unrolled loop computes the cell,
// checked in float64 (fused and --no-fuse conversions alike).
func TestConvRNNLoopRefused(t *testing.T) {
	const path = "testdata/conv_rnn_loop.pbtxt"
	opts := convert.Options{OutputArrays: []string{"seq"}}
	res := refusedConversion(t, path, opts)
	e := reportEntry(t, res, "while")
	if e.Fused || e.Attr != "loop" || !strings.Contains(e.Reason, "rank-4 frames") || !strings.Contains(e.Reason, "TensorFlow Lite has no fused convolutional recurrent operator") {
		t.Errorf("report entry %+v", e)
	}
	if ops := opCounts(res); ops["CONV_2D"] != 6 || ops["TANH"] != 3 {
		t.Errorf("operators %v", ops)
	}
	K, R := graphConst(t, path, "kernel"), graphConst(t, path, "recurrent_kernel")
	// conv is a 2x2 SAME convolution of a 2x2 single-channel frame
	// (TensorFlow pads SAME's one extra row and column after).
	conv := func(in []float64, k tensorData) []float64 {
		out := make([]float64, 4)
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				for di := 0; di < 2; di++ {
					for dj := 0; dj < 2; dj++ {
						if i+di < 2 && j+dj < 2 {
							out[i*2+j] += in[(i+di)*2+j+dj] * k.v[di*2+dj]
						}
					}
				}
			}
		}
		return out
	}
	x := probeInput(12, 0.7)
	h := make([]float64, 4)
	var want []float64
	for _, xt := range steps(x, 3) {
		a, b := conv(xt, K), conv(h, R)
		for i := range h {
			h[i] = math.Tanh(a[i] + b[i])
		}
		want = append(want, h...)
	}
	for _, noFuse := range []bool{false, true} {
		o := opts
		o.NoFuse = noFuse
		got := newRunner(t, refusedConversion(t, path, o).Model).run(x)
		if e := maxErr(t, got[0], want); e > refTol {
			t.Errorf("NoFuse %v: error %g", noFuse, e)
		}
	}
}
