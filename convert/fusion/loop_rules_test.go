package fusion_test

import (
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/ir"
)

// The loop rules keras-lstm-loop and keras-gru-loop on hand-written
// graphs of unannotated layers (testdata/*_loop*.pbtxt): the report, the
// operators, and the fused outputs against the layer's equations in
// float64 and against the --no-fuse lowering.

// kerasLSTMAct is a Keras LSTM (sigmoid gates) with the cell and output
// activation act, over xs from (h, c), updating them.
func kerasLSTMAct(act func(float64) float64, W, R, b tensorData, xs [][]float64, h, c []float64) [][]float64 {
	nIn, u := W.shape[0], W.shape[1]/4
	var outs [][]float64
	for _, x := range xs {
		z := make([]float64, 4*u)
		for j := range z {
			z[j] = b.v[j]
			for k := 0; k < nIn; k++ {
				z[j] += x[k] * W.v[k*4*u+j]
			}
			for k := 0; k < u; k++ {
				z[j] += h[k] * R.v[k*4*u+j]
			}
		}
		for j := 0; j < u; j++ {
			c[j] = sigmoid(z[u+j])*c[j] + sigmoid(z[j])*act(z[2*u+j])
			h[j] = sigmoid(z[3*u+j]) * act(c[j])
		}
		outs = append(outs, append([]float64(nil), h...))
	}
	return outs
}

// loopEntry checks that the report has the loop call fused by rule with
// exactly ops, its note containing note.
func loopEntry(t *testing.T, res *convert.Result, call, rule, ops, note string) {
	t.Helper()
	e := reportEntry(t, res, call)
	if !e.Fused || e.Rule != rule || e.Attr != "loop" || strings.Join(e.Ops, " ") != ops || !strings.Contains(e.Reason, note) {
		t.Errorf("report entry %+v, want fused by %s with ops %q and a note containing %q", e, rule, ops, note)
	}
	if txt := res.Report.Text(); !strings.Contains(txt, "rule "+rule+": fused") {
		t.Errorf("text report:\n%s", txt)
	}
}

// refusedConversion converts a model whose report may hold refusals.
func refusedConversion(t *testing.T, path string, opts convert.Options) *convert.Result {
	t.Helper()
	res, err := convert.ConvertModel(loadModel(t, path), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestLSTMLoopRule(t *testing.T) {
	W := func(path string) (tensorData, tensorData, tensorData) {
		return graphConst(t, path, "kernel"), graphConst(t, path, "recurrent_kernel"), graphConst(t, path, "bias")
	}
	t.Run("relu, return_state, stacked", func(t *testing.T) {
		const path = "testdata/lstm_loop_relu.pbtxt"
		opts := convert.Options{OutputArrays: []string{"last", "call:1", "call:2", "stacked", "call:3"}}
		res := conversion(t, path, opts)
		loopEntry(t, res, "call/while", "keras-lstm-loop", "UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE", "TensorFlow Lite runs it")
		loopEntry(t, res, "stacked/while", "keras-lstm-loop", "UNIDIRECTIONAL_SEQUENCE_LSTM", "relu activation")
		if e := reportEntry(t, res, "call/while"); !strings.Contains(e.Reason, "final h (return_state") || !strings.Contains(e.Reason, "final c (return_state) is the model output") ||
			!strings.Contains(e.Reason, "no cell_clip written (10 would change that output)") {
			t.Errorf("the note does not mention the returned states: %q", e.Reason)
		}
		if ops := opCounts(res); ops["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 2 || ops["FULLY_CONNECTED"] != 0 || ops["RELU"] != 0 {
			t.Errorf("operators %v", ops)
		}
		x := probeInput(6, 0.8)
		out := compareRuns(t, path, opts, x)
		kW, kR, kb := W(path)
		c := make([]float64, 2)
		seq := kerasLSTMAct(relu, kW, kR, kb, steps(x, 3), make([]float64, 2), c)
		second := kerasLSTMAct(relu, kW, kR, kb, seq, make([]float64, 2), make([]float64, 2))
		for i, want := range [][]float64{seq[2], flatten(seq...), seq[2], second[2], c} {
			e := maxErr(t, out[i], want)
			t.Logf("%s: max |error| %.3g", opts.OutputArrays[i], e)
			if e > refTol {
				t.Errorf("%s: error %g", opts.OutputArrays[i], e)
			}
		}
	})
	t.Run("initial_state from inputs, return_state", func(t *testing.T) {
		// Cutting at the two zero constants makes them model inputs: the
		// loop starts from states the caller gives, which become the
		// operator's state tensors (is_variable inputs).
		const path = "testdata/lstm_loop_relu.pbtxt"
		opts := convert.Options{InputArrays: []string{"x", "zeros", "zeros_1"}, OutputArrays: []string{"last", "call:1", "call:2", "call:3"},
			InputShapes: []ir.Shape{{1, 3, 2}, {1, 2}, {1, 2}}}
		res := conversion(t, path, opts)
		loopEntry(t, res, "call/while", "keras-lstm-loop", "UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE", `initial h state from model input "zeros:0"`)
		if e := reportEntry(t, res, "call/while"); !strings.Contains(e.Reason, `initial c state from model input "zeros_1:0"`) || !strings.Contains(e.Reason, "one tensor, input and output") {
			t.Errorf("the note does not describe the input states: %q", e.Reason)
		}
		kW, kR, kb := W(path)
		r := newRunner(t, res.Model)
		for k, seed := range []float64{0.4, 1.9} {
			x, h0, c0 := probeInput(6, seed), probeInput(2, seed+0.3), probeInput(2, seed+0.7)
			out := compareRuns(t, path, opts, x, h0, c0)
			again := r.run(x, h0, c0) // one interpreter, inputs written anew each invoke
			h, c := toF64(h0), toF64(c0)
			seq := kerasLSTMAct(relu, kW, kR, kb, steps(x, 3), h, c)
			for i, want := range [][]float64{seq[2], flatten(seq...), h, c} {
				for _, got := range [][]float32{out[i], again[i]} {
					if e := maxErr(t, got, want); e > refTol {
						t.Errorf("invoke %d, %s: error %g", k, opts.OutputArrays[i], e)
					}
				}
			}
		}
	})
	t.Run("recurrent_dropout, per-gate body", func(t *testing.T) {
		const path = "testdata/lstm_loop_dropout.pbtxt"
		opts := convert.Options{OutputArrays: []string{"last", "call:1"}}
		res := conversion(t, path, opts)
		loopEntry(t, res, "call/while", "keras-lstm-loop", "UNIDIRECTIONAL_SEQUENCE_LSTM", "batch-major")
		x := probeInput(6, 1.3)
		out := compareRuns(t, path, opts, x)
		kW, kR, kb := W(path)
		seq, _ := kerasLSTM(kW, kR, kb, steps(x, 3), make([]float64, 2), make([]float64, 2))
		for i, want := range [][]float64{seq[2], flatten(seq...)} {
			if e := maxErr(t, out[i], want); e > refTol {
				t.Errorf("%s: error %g", opts.OutputArrays[i], e)
			}
		}
	})
	t.Run("return_sequences=False, one-item list", func(t *testing.T) {
		const path = "testdata/lstm_loop_last.pbtxt"
		opts := convert.Options{OutputArrays: []string{"last", "call:1"}}
		res := conversion(t, path, opts)
		loopEntry(t, res, "call/while", "keras-lstm-loop", "UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE RESHAPE", "batch-major")
		x := probeInput(6, 0.6)
		out := compareRuns(t, path, opts, x)
		kW, kR, kb := W(path)
		seq, _ := kerasLSTM(kW, kR, kb, steps(x, 3), make([]float64, 2), make([]float64, 2))
		for i := range out {
			if e := maxErr(t, out[i], seq[2]); e > refTol {
				t.Errorf("%s: error %g", opts.OutputArrays[i], e)
			}
		}
	})
	t.Run("bidirectional", func(t *testing.T) {
		const path = "testdata/bidirectional_lstm_loop.pbtxt"
		opts := convert.Options{OutputArrays: []string{"concat", "sum"}, InputShapes: []ir.Shape{{3, 1, 2}}}
		res := conversion(t, path, opts)
		loopEntry(t, res, "forward/while", "keras-lstm-loop", "UNIDIRECTIONAL_SEQUENCE_LSTM", "time-major")
		loopEntry(t, res, "backward/while", "keras-lstm-loop", "UNIDIRECTIONAL_SEQUENCE_LSTM", "go_backwards")
		x := probeInput(6, 0.9)
		out := compareRuns(t, path, opts, x)
		kW, kR := graphConst(t, path, "kernel"), graphConst(t, path, "recurrent_kernel")
		xs := steps(x, 3)
		yf, _ := kerasLSTM(kW, kR, graphConst(t, path, "bias"), xs, make([]float64, 2), make([]float64, 2))
		yb, _ := kerasLSTM(kW, kR, graphConst(t, path, "bias_bw"), reverse(xs), make([]float64, 2), make([]float64, 2))
		yb = reverse(yb)
		var concat, sum []float64
		for t := range yf {
			concat = append(append(concat, yf[t]...), yb[t]...)
			for k := range yf[t] {
				sum = append(sum, yf[t][k]+yb[t][k])
			}
		}
		for i, want := range [][]float64{concat, sum} {
			if e := maxErr(t, out[i], want); e > refTol {
				t.Errorf("%s: error %g", opts.OutputArrays[i], e)
			}
		}
	})
}

// TestLSTMLoopRefusals covers the loop rule's refusals: each is reported
// with the rule's name and reason, and the loop is lowered op by op.
func TestLSTMLoopRefusals(t *testing.T) {
	for _, c := range []struct {
		name, path string
		opts       convert.Options
		reason     string
	}{
		{"linear activation", "testdata/lstm_loop_linear.pbtxt", convert.Options{OutputArrays: []string{"last"}},
			"the activation is linear; the fused LSTM applies tanh, relu or relu6"},
		{"final cell state used", "testdata/lstm_loop_relu.pbtxt", convert.Options{OutputArrays: []string{"state_sum"}},
			"the final c state (loop output 5) is used by"},
		{"initial state input read twice", "testdata/lstm_loop_relu.pbtxt", convert.Options{InputArrays: []string{"x", "zeros"}, OutputArrays: []string{"last", "stacked"},
			InputShapes: []ir.Shape{{1, 3, 2}, {1, 2}}}, `the initial h state is model input "zeros:0", which is also read elsewhere`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := refusedConversion(t, c.path, c.opts)
			e := reportEntry(t, res, "call/while")
			if e.Fused || e.Rule != "keras-lstm-loop" || !strings.Contains(e.Reason, c.reason) {
				t.Fatalf("report entry %+v, want a refusal containing %q", e, c.reason)
			}
			if txt := res.Report.Text(); !strings.Contains(txt, "rule keras-lstm-loop: not fused") || !strings.Contains(txt, "reason: "+e.Reason) {
				t.Errorf("text report:\n%s", txt)
			}
			if n := opCounts(res)["UNIDIRECTIONAL_SEQUENCE_LSTM"]; n != 0 {
				t.Errorf("%d fused operators in a refused conversion", n)
			}
		})
	}
	// The lowered linear layer still computes the layer.
	const path = "testdata/lstm_loop_linear.pbtxt"
	res := refusedConversion(t, path, convert.Options{OutputArrays: []string{"last"}})
	x := probeInput(6, 0.7)
	out := newRunner(t, res.Model).run(x)
	seq := kerasLSTMAct(linear, graphConst(t, path, "kernel"), graphConst(t, path, "recurrent_kernel"), graphConst(t, path, "bias"), steps(x, 3), make([]float64, 2), make([]float64, 2))
	if e := maxErr(t, out[0], seq[2]); e > refTol {
		t.Errorf("lowered linear layer: error %g", e)
	}
}

func TestGRULoopRule(t *testing.T) {
	for _, c := range []struct {
		path, note string
		outputs    []string
		ref        func(W, R, b tensorData, xs [][]float64, h []float64) [][]float64
	}{
		{"testdata/gru_loop.pbtxt", "reset_after=True", []string{"last", "call:1", "call:2"}, kerasGRU},
		{"testdata/gru_loop_reset_before.pbtxt", "reset_after=False", []string{"last", "call:1"}, kerasGRUBefore},
		{"testdata/gru_loop_dropout.pbtxt", "reset_after=True", []string{"last", "call:1"}, kerasGRU},
	} {
		t.Run(c.path, func(t *testing.T) {
			opts := convert.Options{OutputArrays: c.outputs}
			res := conversion(t, c.path, opts)
			loopEntry(t, res, "call/while", "keras-gru-loop", "UNIDIRECTIONAL_SEQUENCE_GRU", c.note)
			if e := reportEntry(t, res, "call/while"); !strings.Contains(e.Reason, "TensorFlow Lite") {
				t.Errorf("the note does not say whether TensorFlow Lite runs it: %q", e.Reason)
			}
			if ops := opCounts(res); ops["custom.UNIDIRECTIONAL_SEQUENCE_GRU"] != 1 || ops["FULLY_CONNECTED"] != 0 {
				t.Errorf("operators %v", ops)
			}
			x := probeInput(6, 1.1)
			out := compareRuns(t, c.path, opts, x)
			seq := c.ref(graphConst(t, c.path, "kernel"), graphConst(t, c.path, "recurrent_kernel"), graphConst(t, c.path, "bias"), steps(x, 3), make([]float64, 2))
			wants := [][]float64{seq[2], flatten(seq...), seq[2]}
			for i := range c.outputs {
				e := maxErr(t, out[i], wants[i])
				t.Logf("%s: max |error| %.3g", c.outputs[i], e)
				if e > refTol {
					t.Errorf("%s: error %g", c.outputs[i], e)
				}
			}
		})
	}
	t.Run("initial_state from an input", func(t *testing.T) {
		const path = "testdata/gru_loop.pbtxt"
		opts := convert.Options{InputArrays: []string{"x", "zeros"}, OutputArrays: []string{"last", "call:1", "call:2"}, InputShapes: []ir.Shape{{1, 3, 2}, {1, 2}}}
		res := conversion(t, path, opts)
		loopEntry(t, res, "call/while", "keras-gru-loop", "UNIDIRECTIONAL_SEQUENCE_GRU", `initial h state from model input "zeros:0"`)
		r := newRunner(t, res.Model)
		for k, seed := range []float64{0.3, 1.7} {
			x, h0 := probeInput(6, seed), probeInput(2, seed+0.9)
			out := compareRuns(t, path, opts, x, h0)
			again := r.run(x, h0)
			seq := kerasGRU(graphConst(t, path, "kernel"), graphConst(t, path, "recurrent_kernel"), graphConst(t, path, "bias"), steps(x, 3), toF64(h0))
			for i, want := range [][]float64{seq[2], flatten(seq...), seq[2]} {
				for _, got := range [][]float32{out[i], again[i]} {
					if e := maxErr(t, got, want); e > refTol {
						t.Errorf("invoke %d, %s: error %g", k, opts.OutputArrays[i], e)
					}
				}
			}
		}
	})
	t.Run("relu refused", func(t *testing.T) {
		res := refusedConversion(t, "testdata/gru_loop_relu.pbtxt", convert.Options{OutputArrays: []string{"last"}})
		e := reportEntry(t, res, "call/while")
		if e.Fused || e.Rule != "keras-gru-loop" || !strings.Contains(e.Reason, "the activation is relu, not tanh") {
			t.Errorf("report entry %+v", e)
		}
		if n := opCounts(res)["custom.UNIDIRECTIONAL_SEQUENCE_GRU"]; n != 0 {
			t.Errorf("%d fused operators in a refused conversion", n)
		}
	})
}

// tf1LSTM runs TensorFlow 1's BasicLSTMCell (kernel [n_in+u, 4u] over
// [x, h], gates i, j, f, o, forget_bias fb) over xs from zeros.
func tf1LSTM(W, b tensorData, fb float64, xs [][]float64) [][]float64 {
	u := W.shape[1] / 4
	h, c := make([]float64, u), make([]float64, u)
	var outs [][]float64
	for _, x := range xs {
		in := append(append([]float64(nil), x...), h...)
		z := make([]float64, 4*u)
		for j := range z {
			z[j] = b.v[j]
			for k, v := range in {
				z[j] += v * W.v[k*4*u+j]
			}
		}
		for j := 0; j < u; j++ {
			c[j] = c[j]*sigmoid(z[2*u+j]+fb) + sigmoid(z[j])*math.Tanh(z[u+j])
			h[j] = math.Tanh(c[j]) * sigmoid(z[3*u+j])
		}
		outs = append(outs, append([]float64(nil), h...))
	}
	return outs
}

// TestTF1LoopRule: a TF1 while frame over TensorArrays with a
// BasicLSTMCell, functionalised by package controlflow, fused by
// keras-lstm-loop (TF1's gate order and forget_bias found on probe
// values).
func TestTF1LoopRule(t *testing.T) {
	const path = "testdata/tf1_basic_lstm.pbtxt"
	opts := convert.Options{OutputArrays: []string{"gather", "last"}}
	res := conversion(t, path, opts)
	loopEntry(t, res, "while", "keras-lstm-loop", "UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE", "time-major")
	if ops := opCounts(res); len(ops) != 2 {
		t.Errorf("operators %v", ops)
	}
	x := probeInput(6, 0.5)
	out := compareRuns(t, path, opts, x)
	seq := tf1LSTM(graphConst(t, path, "kernel"), graphConst(t, path, "bias"), 1, steps(x, 3))
	for i, want := range [][]float64{flatten(seq...), seq[2]} {
		if e := maxErr(t, out[i], want); e > refTol {
			t.Errorf("%s: error %g", opts.OutputArrays[i], e)
		}
	}
}

// TestTF1PeepholeProjectionLoopRule: TF1's LSTMCell with peepholes and a
// projection, fused with UNIDIRECTIONAL_SEQUENCE_LSTM's peephole and
// projection weights.
func TestTF1PeepholeProjectionLoopRule(t *testing.T) {
	const path = "testdata/tf1_lstm_peephole_projection.pbtxt"
	opts := convert.Options{OutputArrays: []string{"gather", "last"}}
	res := conversion(t, path, opts)
	loopEntry(t, res, "while", "keras-lstm-loop", "UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE", "projection to 1; peephole")
	x := probeInput(6, 0.9)
	out := compareRuns(t, path, opts, x)
	K, b := graphConst(t, path, "kernel"), graphConst(t, path, "bias")
	wi, wf, wo := graphConst(t, path, "w_i_diag"), graphConst(t, path, "w_f_diag"), graphConst(t, path, "w_o_diag")
	P := graphConst(t, path, "projection")
	const u = 2
	c, m := make([]float64, u), []float64{0}
	var seq []float64
	for _, xt := range steps(x, 3) {
		in := append(append([]float64(nil), xt...), m...)
		z := make([]float64, 4*u)
		for j := range z {
			z[j] = b.v[j]
			for k, v := range in {
				z[j] += v * K.v[k*4*u+j]
			}
		}
		h := make([]float64, u)
		for j := 0; j < u; j++ {
			c[j] = sigmoid(z[2*u+j]+1+wf.v[j]*c[j])*c[j] + sigmoid(z[j]+wi.v[j]*c[j])*math.Tanh(z[u+j])
			h[j] = sigmoid(z[3*u+j]+wo.v[j]*c[j]) * math.Tanh(c[j])
		}
		m = []float64{h[0]*P.v[0] + h[1]*P.v[1]}
		seq = append(seq, m[0])
	}
	for i, want := range [][]float64{seq, m} {
		e := maxErr(t, out[i], want)
		t.Logf("%s: max |error| %.3g", opts.OutputArrays[i], e)
		if e > refTol {
			t.Errorf("%s: error %g", opts.OutputArrays[i], e)
		}
	}
}

// toF64 widens float32 values.
func toF64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
