package fusion_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/ir"
)

// Each built-in rule on a hand-written graph (testdata/*.pbtxt): what it
// emits, the fusion report, and the fused model's outputs against an
// independent float64 reference computed from the graph's constants and
// against the same graph lowered op by op (--no-fuse).

// graphConst reads the value of a Const node of a GraphDef.
func graphConst(t *testing.T, path, node string) tensorData {
	t.Helper()
	m, err := tfmodel.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range m.Graph.Node {
		if n.GetName() != node {
			continue
		}
		tp := n.Attr["value"].GetTensor()
		v, err := ir.FromProto(tp)
		if err != nil {
			t.Fatal(err)
		}
		return tensorData{v: v.Float64s(), shape: v.Shape}
	}
	t.Fatalf("%s has no node %q", path, node)
	return tensorData{}
}

// onlyEntry returns the report's single entry for a call.
func reportEntry(t *testing.T, res *convert.Result, call string) fusion.Entry {
	t.Helper()
	for _, e := range res.Report.Composites {
		if e.Call == call {
			return e
		}
	}
	t.Fatalf("the report has no entry for %q:\n%s", call, res.Report.Text())
	return fusion.Entry{}
}

// compareRuns runs the fused and the --no-fuse conversions of a graph on
// one input and compares every output, returning the fused outputs.
func compareRuns(t *testing.T, path string, opts convert.Options, inputs ...[]float32) [][]float32 {
	t.Helper()
	fused := conversion(t, path, opts)
	opts.NoFuse = true
	unfused := conversion(t, path, opts)
	a := newRunner(t, fused.Model).run(inputs...)
	b := newRunner(t, unfused.Model).run(inputs...)
	for i := range a {
		d := 0.0
		for j := range a[i] {
			d = math.Max(d, math.Abs(float64(a[i][j]-b[i][j])))
		}
		if d > refTol {
			t.Errorf("output %d: fused and --no-fuse differ by %g", i, d)
		}
	}
	return a
}

func TestKerasLSTMRule(t *testing.T) {
	const path = "testdata/lstm.pbtxt"
	opts := convert.Options{OutputArrays: []string{"last", "call:1"}}
	res := conversion(t, path, opts)
	e := reportEntry(t, res, "call")
	if !e.Fused || e.Rule != "keras-lstm" || e.Attr != "api_implements" || e.Function != "standard_lstm" ||
		strings.Join(e.Ops, " ") != "UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE" || !strings.Contains(e.Reason, "batch-major") ||
		!strings.Contains(e.Reason, "cell_clip 10") {
		t.Errorf("report entry %+v", e)
	}
	if ops := opCounts(res); len(ops) != 2 || ops["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 1 || ops["STRIDED_SLICE"] != 1 {
		t.Errorf("operators %v", ops)
	}
	x := probeInput(6, 0.4)
	out := compareRuns(t, path, opts, x)
	W, R, b := graphConst(t, path, "kernel"), graphConst(t, path, "recurrent_kernel"), graphConst(t, path, "bias")
	seq, _ := kerasLSTM(W, R, b, steps(x, 3), make([]float64, 2), make([]float64, 2))
	e1, e2 := maxErr(t, out[0], seq[2]), maxErr(t, out[1], flatten(seq...))
	t.Logf("last output |error| %.3g, sequence %.3g", e1, e2)
	if e1 > refTol || e2 > refTol {
		t.Errorf("errors %g, %g", e1, e2)
	}
}

// TestKerasLSTMRefusals covers each precondition of the LSTM rule: the
// call is then lowered op by op (when the rest of the graph allows it)
// and the report, text and JSON, says why.
func TestKerasLSTMRefusals(t *testing.T) {
	cases := []struct {
		name, path string
		opts       convert.Options
		reason     string
		gate       func(float64) float64 // reference gate activation; nil: no run
		convertErr bool
		// loop is what the loop rules then made of the inlined layer's
		// loop: "fused" (by keras-lstm-loop), or the reason it was not
		// (by keras-lstm-loop, or by no rule: "no loop rule ...").
		loop string
	}{
		{"mask", "testdata/lstm_mask.pbtxt", convert.Options{OutputArrays: []string{"last"}},
			"the layer has a mask input", sigmoid, false, "fused"},
		{"return_state", "testdata/lstm.pbtxt", convert.Options{OutputArrays: []string{"last", "call:2"}},
			"(return_state)", sigmoid, false, "fused"},
		{"non-sigmoid recurrent activation", "testdata/lstm_hard_sigmoid.pbtxt", convert.Options{OutputArrays: []string{"last"}},
			"the recurrent activation is hard_sigmoid, not sigmoid", func(x float64) float64 { return math.Min(math.Max(0.2*x+0.5, 0), 1) }, false,
			"the recurrent activation is hard_sigmoid, not sigmoid"},
		{"non-constant weights", "testdata/lstm.pbtxt", convert.Options{InputArrays: []string{"x", "kernel"}, OutputArrays: []string{"last"},
			InputShapes: []ir.Shape{{1, 3, 2}, {2, 8}}}, "the kernel is not a constant", sigmoid, false, "no loop rule recognises its body (2 float state(s))"},
		{"run-time initial state", "testdata/lstm.pbtxt", convert.Options{InputArrays: []string{"x", "zeros"}, OutputArrays: []string{"last"},
			InputShapes: []ir.Shape{{1, 3, 2}, {1, 2}}}, "the initial h state is an input of the caller (zeros:0); left to the loop rule", nil, false,
			"fused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := convert.Convert(c.path, c.opts)
			if res == nil || res.Report == nil {
				t.Fatalf("no report: %v", err)
			}
			if c.convertErr != (err != nil) {
				t.Fatalf("conversion error %v, want one: %v", err, c.convertErr)
			}
			e := reportEntry(t, res, "call")
			if e.Fused || e.Rule != "keras-lstm" || !strings.Contains(e.Reason, c.reason) {
				t.Fatalf("report entry %+v, want a refusal containing %q", e, c.reason)
			}
			if txt := res.Report.Text(); !strings.Contains(txt, "rule keras-lstm: not fused") || !strings.Contains(txt, "reason: "+e.Reason) {
				t.Errorf("text report:\n%s", txt)
			}
			j, err2 := res.Report.JSON()
			var back fusion.Report
			if err2 != nil || json.Unmarshal(j, &back) != nil || len(back.Composites) != 1+btoi(c.loop != "") || back.Composites[0].Reason != e.Reason || back.Composites[0].Fused {
				t.Errorf("JSON report %s", j)
			}
			if c.loop != "" {
				l := reportEntry(t, res, "call/while")
				rule := "keras-lstm-loop"
				if strings.HasPrefix(c.loop, "no loop rule") {
					rule = ""
				}
				if l.Rule != rule || l.Fused != (c.loop == "fused") || !l.Fused && !strings.Contains(l.Reason, c.loop) {
					t.Errorf("loop entry %+v, want %q", l, c.loop)
				}
			}
			if err != nil {
				t.Logf("refused: %s; the lowering then fails: %v", e.Reason, err)
				return
			}
			if n := opCounts(res)["UNIDIRECTIONAL_SEQUENCE_LSTM"]; n != btoi(c.loop == "fused") {
				t.Errorf("%d fused operators", n)
			}
			if c.gate == nil {
				return
			}
			// Lowered op by op, the graph still computes the layer.
			x := probeInput(6, 1.7)
			kernel := graphConst(t, c.path, "kernel")
			r := newRunner(t, res.Model)
			var inputs [][]float32
			inputs = append(inputs, x)
			if len(c.opts.InputArrays) > 1 {
				inputs = append(inputs, f32s(kernel.v))
			}
			out := r.run(inputs...)
			seq, _ := kerasLSTMGates(c.gate, kernel, graphConst(t, c.path, "recurrent_kernel"), graphConst(t, c.path, "bias"), steps(x, 3), make([]float64, 2), make([]float64, 2))
			if e := maxErr(t, out[0], seq[2]); e > refTol {
				t.Errorf("lowered layer differs from the reference by %g", e)
			}
			t.Logf("refused: %s", e.Reason)
		})
	}
}

func TestBidirectionalLSTMRule(t *testing.T) {
	const path = "testdata/bidirectional_lstm.pbtxt"
	opts := convert.Options{OutputArrays: []string{"concat", "sum", "mul", "ave"}, InputShapes: []ir.Shape{{3, 1, 2}}}
	res := conversion(t, path, opts)
	fw, bw := reportEntry(t, res, "forward"), reportEntry(t, res, "backward")
	if !fw.Fused || strings.Join(fw.Ops, " ") != "UNIDIRECTIONAL_SEQUENCE_LSTM" || !strings.Contains(fw.Reason, "time-major") {
		t.Errorf("forward entry %+v", fw)
	}
	if !bw.Fused || strings.Join(bw.Ops, " ") != "REVERSE_V2 UNIDIRECTIONAL_SEQUENCE_LSTM" || !strings.Contains(bw.Reason, "go_backwards") {
		t.Errorf("backward entry %+v", bw)
	}
	ops := opCounts(res)
	// The pair becomes one BIDIRECTIONAL_SEQUENCE_LSTM (pass
	// pair-bidirectional); its outputs feed four merges, so they stay two.
	if ops["BIDIRECTIONAL_SEQUENCE_LSTM"] != 1 || ops["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 0 || ops["REVERSE_V2"] != 0 || ops["CONCATENATION"] != 1 {
		t.Errorf("operators %v", ops)
	}
	x := probeInput(6, 0.9)
	out := compareRuns(t, path, opts, x)
	W, R := graphConst(t, path, "kernel"), graphConst(t, path, "recurrent_kernel")
	xs := steps(x, 3)
	yf, _ := kerasLSTM(W, R, graphConst(t, path, "bias"), xs, make([]float64, 2), make([]float64, 2))
	yb, _ := kerasLSTM(W, R, graphConst(t, path, "bias_bw"), reverse(xs), make([]float64, 2), make([]float64, 2))
	yb = reverse(yb) // Keras re-reverses the backward outputs before merging
	var concat, sum, mul, ave []float64
	for t := range yf {
		concat = append(concat, yf[t]...)
		concat = append(concat, yb[t]...)
		for k := range yf[t] {
			sum = append(sum, yf[t][k]+yb[t][k])
			mul = append(mul, yf[t][k]*yb[t][k])
			ave = append(ave, (yf[t][k]+yb[t][k])/2)
		}
	}
	for i, want := range [][]float64{concat, sum, mul, ave} {
		e := maxErr(t, out[i], want)
		t.Logf("merge %s: max |error| %.3g", opts.OutputArrays[i], e)
		if e > refTol {
			t.Errorf("merge %s: error %g", opts.OutputArrays[i], e)
		}
	}
}

// kerasGRUBefore is Keras's GRU with reset_after=False: bias [3u], the
// candidate from (r⊙h)·U_h.
func kerasGRUBefore(W, R, b tensorData, xs [][]float64, h []float64) [][]float64 {
	nIn, u := W.shape[0], W.shape[1]/3
	var outs [][]float64
	for _, x := range xs {
		xz := make([]float64, 3*u)
		for j := range xz {
			xz[j] = b.v[j]
			for k := 0; k < nIn; k++ {
				xz[j] += x[k] * W.v[k*3*u+j]
			}
		}
		next := make([]float64, u)
		r := make([]float64, u)
		z := make([]float64, u)
		for j := 0; j < u; j++ {
			sz, sr := xz[j], xz[u+j]
			for k := 0; k < u; k++ {
				sz += h[k] * R.v[k*3*u+j]
				sr += h[k] * R.v[k*3*u+u+j]
			}
			z[j], r[j] = sigmoid(sz), sigmoid(sr)
		}
		for j := 0; j < u; j++ {
			s := xz[2*u+j]
			for k := 0; k < u; k++ {
				s += r[k] * h[k] * R.v[k*3*u+2*u+j]
			}
			next[j] = z[j]*h[j] + (1-z[j])*math.Tanh(s)
		}
		copy(h, next)
		outs = append(outs, append([]float64(nil), h...))
	}
	return outs
}

func TestKerasGRURule(t *testing.T) {
	for _, c := range []struct {
		path, note string
		ref        func(W, R, b tensorData, xs [][]float64, h []float64) [][]float64
	}{
		{"testdata/gru.pbtxt", "reset_after=True", kerasGRU},
		{"testdata/gru_reset_before.pbtxt", "reset_after=False", kerasGRUBefore},
	} {
		t.Run(c.note, func(t *testing.T) {
			opts := convert.Options{OutputArrays: []string{"last", "call:1"}}
			res := conversion(t, c.path, opts)
			e := reportEntry(t, res, "call")
			if !e.Fused || e.Rule != "keras-gru" || strings.Join(e.Ops, " ") != "TRANSPOSE UNIDIRECTIONAL_SEQUENCE_GRU TRANSPOSE" || !strings.Contains(e.Reason, c.note) {
				t.Errorf("report entry %+v", e)
			}
			if ops := opCounts(res); ops["custom.UNIDIRECTIONAL_SEQUENCE_GRU"] != 1 || len(ops) != 2 {
				t.Errorf("operators %v", ops)
			}
			x := probeInput(6, 2.2)
			out := compareRuns(t, c.path, opts, x)
			seq := c.ref(graphConst(t, c.path, "kernel"), graphConst(t, c.path, "recurrent_kernel"), graphConst(t, c.path, "bias"), steps(x, 3), make([]float64, 2))
			e1, e2 := maxErr(t, out[0], seq[2]), maxErr(t, out[1], flatten(seq...))
			t.Logf("last output |error| %.3g, sequence %.3g", e1, e2)
			if e1 > refTol || e2 > refTol {
				t.Errorf("errors %g, %g", e1, e2)
			}
		})
	}
}

// kerasSimpleRNN runs h' = act(x·W + b + h·U) from zeros.
func kerasSimpleRNN(act func(float64) float64, W, b, U tensorData, xs [][]float64) [][]float64 {
	return kerasSimpleRNNFrom(act, W, b, U, xs, make([]float64, W.shape[1]))
}

// kerasSimpleRNNFrom is kerasSimpleRNN from the initial state h.
func kerasSimpleRNNFrom(act func(float64) float64, W, b, U tensorData, xs [][]float64, h []float64) [][]float64 {
	nIn, u := W.shape[0], W.shape[1]
	var outs [][]float64
	for _, x := range xs {
		next := make([]float64, u)
		for j := range next {
			s := b.v[j]
			for k := 0; k < nIn; k++ {
				s += x[k] * W.v[k*u+j]
			}
			for k := 0; k < u; k++ {
				s += h[k] * U.v[k*u+j]
			}
			next[j] = act(s)
		}
		h = next
		outs = append(outs, h)
	}
	return outs
}

func TestSimpleRNNLoopRule(t *testing.T) {
	const path = "testdata/simple_rnn.pbtxt"
	opts := convert.Options{OutputArrays: []string{"forward:0", "forward:1", "backward"}}
	res := conversion(t, path, opts)
	for _, call := range []string{"forward/while", "backward/while"} {
		e := reportEntry(t, res, call)
		if !e.Fused || e.Rule != "keras-simple-rnn" || e.Attr != "loop" || strings.Join(e.Ops, " ") != "UNIDIRECTIONAL_SEQUENCE_RNN" {
			t.Errorf("report entry %+v", e)
		}
	}
	if ops := opCounts(res); ops["UNIDIRECTIONAL_SEQUENCE_RNN"] != 2 || ops["FULLY_CONNECTED"] != 0 {
		t.Errorf("operators %v", ops)
	}
	x := probeInput(6, 0.6)
	out := compareRuns(t, path, opts, x)
	xs := steps(x, 3)
	fw := kerasSimpleRNN(math.Tanh, graphConst(t, path, "kernel"), graphConst(t, path, "bias"), graphConst(t, path, "recurrent_kernel"), xs)
	bw := kerasSimpleRNN(relu, graphConst(t, path, "kernel_bw"), graphConst(t, path, "bias_bw"), graphConst(t, path, "recurrent_kernel_bw"), reverse(xs))
	for i, want := range [][]float64{flatten(fw...), fw[2], bw[2]} {
		if e := maxErr(t, out[i], want); e > refTol {
			t.Errorf("output %s: error %g", opts.OutputArrays[i], e)
		}
	}
}

// lstmCellStep is one TFLite LSTM step from a zero state with TensorFlow's
// LSTMCellSimple layout: weight [n_in + n_out, gates·n], gate blocks cell,
// input, forget, output (cell, forget, output with CIFG: input = 1 −
// forget), optional layer norm of each gate's pre-activation (ε 1e-8,
// scale) and projection [n, n_out].
func lstmCellStep(x []float64, W, b tensorData, cifg bool, ln *tensorData, proj *tensorData) []float64 {
	gates := 4
	if cifg {
		gates = 3
	}
	cols := W.shape[1]
	n := cols / gates
	z := make([]float64, cols)
	for j := range z {
		for k := range x { // the recurrent rows meet a zero state
			z[j] += x[k] * W.v[k*cols+j]
		}
	}
	if ln != nil {
		for g := 0; g < gates; g++ {
			blk := z[g*n : (g+1)*n]
			mean, v := 0.0, 0.0
			for _, e := range blk {
				mean += e
			}
			mean /= float64(n)
			for _, e := range blk {
				v += (e - mean) * (e - mean)
			}
			v /= float64(n)
			for k := range blk {
				blk[k] = (blk[k] - mean) / math.Sqrt(v+1e-8) * ln.v[g*n+k]
			}
		}
	}
	for j := range z {
		z[j] += b.v[j]
	}
	h := make([]float64, n)
	for k := 0; k < n; k++ {
		var i, o float64
		if cifg {
			i, o = 1-sigmoid(z[n+k]), sigmoid(z[2*n+k])
		} else {
			i, o = sigmoid(z[n+k]), sigmoid(z[3*n+k])
		}
		h[k] = o * math.Tanh(i*math.Tanh(z[k]))
	}
	if proj == nil {
		return h
	}
	nOut := proj.shape[1]
	out := make([]float64, nOut)
	for j := range out {
		for k := 0; k < n; k++ {
			out[j] += h[k] * proj.v[k*nOut+j]
		}
	}
	return out
}

func TestLSTMCellSimpleRules(t *testing.T) {
	for _, c := range []struct {
		path, rule, note string
		cifg, ln         bool
	}{
		{"testdata/lstm_cell_simple.pbtxt", "lstm-cell-simple", "n_cell 2", false, false},
		{"testdata/lstm_cell_simple_cifg.pbtxt", "lstm-cell-simple", "CIFG", true, false},
		{"testdata/ln_lstm_cell_simple.pbtxt", "layer-normalized-lstm-cell-simple", "projection", false, true},
	} {
		t.Run(c.path, func(t *testing.T) {
			opts := convert.Options{OutputArrays: []string{"call"}}
			res := conversion(t, c.path, opts)
			e := reportEntry(t, res, "call")
			if !e.Fused || e.Rule != c.rule || e.Attr != "_implements" || strings.Join(e.Ops, " ") != "LSTM" || !strings.Contains(e.Reason, c.note) {
				t.Errorf("report entry %+v", e)
			}
			if ops := opCounts(res); len(ops) != 1 || ops["LSTM"] != 1 {
				t.Errorf("operators %v", ops)
			}
			x := []float32{0.7, -0.4}
			out := compareRuns(t, c.path, opts, x)
			var ln, proj *tensorData
			if c.ln {
				l, p := graphConst(t, c.path, "layer_norm_scale"), graphConst(t, c.path, "projection")
				ln, proj = &l, &p
			}
			want := lstmCellStep([]float64{0.7, -0.4}, graphConst(t, c.path, "weight"), graphConst(t, c.path, "bias"), c.cifg, ln, proj)
			e1 := maxErr(t, out[0], want)
			t.Logf("output %v, reference %v, |error| %.3g", out[0], want, e1)
			if e1 > refTol {
				t.Errorf("error %g", e1)
			}
		})
	}
}

func TestEmbeddingMatmulRule(t *testing.T) {
	const path = "testdata/embedding_matmul.pbtxt"
	res, err := convert.Convert(path, convert.Options{OutputArrays: []string{"lookup"}})
	if err != nil {
		t.Fatal(err)
	}
	e := reportEntry(t, res, "lookup")
	if !e.Fused || e.Rule != "embedding-matmul" || strings.Join(e.Ops, " ") != "RESHAPE EMBEDDING_LOOKUP RESHAPE" {
		t.Errorf("report entry %+v", e)
	}
	if ops := opCounts(res); len(ops) != 2 || ops["EMBEDDING_LOOKUP"] != 1 {
		t.Errorf("operators %v", ops)
	}
	r := newRunner(t, res.Model)
	ids := []int32{3, 0, 4, 3}
	copy(r.it.Input(0).Int32s(), ids)
	if err := r.it.Invoke(); err != nil {
		t.Fatal(err)
	}
	table := graphConst(t, path, "table")
	var want []float64
	for _, id := range ids {
		want = append(want, table.v[3*id:3*id+3]...)
	}
	if e := maxErr(t, r.it.Output(0).Float32s(), want); e != 0 {
		t.Errorf("rows differ by %g", e)
	}
}

func TestIndyLSTMRule(t *testing.T) {
	const path = "testdata/lstm_indy.pbtxt"
	opts := convert.Options{OutputArrays: []string{"last", "call:1"}}
	res := conversion(t, path, opts)
	e := reportEntry(t, res, "call")
	if !e.Fused || e.Rule != "keras-indy-lstm" || strings.Join(e.Ops, " ") != "UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE" {
		t.Errorf("report entry %+v", e)
	}
	for _, n := range res.Entry.Func.Nodes {
		if n.TFL != nil && n.OpName() == "tfl.UNIDIRECTIONAL_SEQUENCE_LSTM" {
			if n.TFL.Version != 4 || n.Inputs[5].Shape.Rank() != 1 {
				t.Errorf("version %d, recurrent weights %s: want version 4 with diagonal [units] weights", n.TFL.Version, n.Inputs[5].Shape)
			}
		}
	}
	x := probeInput(6, 1.2)
	out := compareRuns(t, path, opts, x)
	// Reference: z = x·W + h⊙r (one recurrent weight per unit and gate) + b.
	W, r, b := graphConst(t, path, "kernel"), graphConst(t, path, "recurrent_kernel"), graphConst(t, path, "bias")
	h, c := make([]float64, 2), make([]float64, 2)
	var seq []float64
	for _, xt := range steps(x, 3) {
		z := make([]float64, 8)
		for j := range z {
			z[j] = b.v[j] + h[j%2]*r.v[j]
			for k := range xt {
				z[j] += xt[k] * W.v[k*8+j]
			}
		}
		for j := 0; j < 2; j++ {
			c[j] = sigmoid(z[2+j])*c[j] + sigmoid(z[j])*math.Tanh(z[4+j])
			h[j] = sigmoid(z[6+j]) * math.Tanh(c[j])
		}
		seq = append(seq, h...)
	}
	e1, e2 := maxErr(t, out[0], seq[4:]), maxErr(t, out[1], seq)
	if e1 > refTol || e2 > refTol {
		t.Errorf("errors %g, %g", e1, e2)
	}
}

func TestKerasGRURefusals(t *testing.T) {
	for _, c := range []struct {
		name   string
		opts   convert.Options
		reason string
	}{
		{"non-constant weights", convert.Options{InputArrays: []string{"x", "recurrent_kernel"}, OutputArrays: []string{"last"},
			InputShapes: []ir.Shape{{1, 3, 2}, {2, 6}}}, "the recurrent kernel is not a constant"},
		{"initial state from an input", convert.Options{InputArrays: []string{"x", "zeros"}, OutputArrays: []string{"last"},
			InputShapes: []ir.Shape{{1, 3, 2}, {1, 2}}}, "the initial h state is an input of the caller (zeros:0); left to the loop rule"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := convert.Convert("testdata/gru.pbtxt", c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if e := reportEntry(t, res, "call"); e.Fused || e.Rule != "keras-gru" || !strings.Contains(e.Reason, c.reason) {
				t.Errorf("report entry %+v, want a refusal containing %q", e, c.reason)
			}
			// A state input is fused by keras-gru-loop once the layer is
			// inlined; non-constant weights are not.
			loopFused := len(c.opts.InputArrays) > 1 && c.opts.InputArrays[1] == "zeros"
			if n := opCounts(res)["custom.UNIDIRECTIONAL_SEQUENCE_GRU"]; n != btoi(loopFused) {
				t.Errorf("%d fused GRU operators, want %d", n, btoi(loopFused))
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSimpleRNNInitialState fuses a SimpleRNN whose initial_state is a
// model input: the input becomes the operator's hidden-state tensor.
func TestSimpleRNNInitialState(t *testing.T) {
	const path = "testdata/simple_rnn_initial_state.pbtxt"
	opts := convert.Options{OutputArrays: []string{"forward:0", "forward:1"}, InputShapes: []ir.Shape{{1, 3, 2}, {1, 2}}}
	res := conversion(t, path, opts)
	e := reportEntry(t, res, "forward/while")
	if !e.Fused || e.Rule != "keras-simple-rnn" || !strings.Contains(e.Reason, `initial state from model input "h0"`) {
		t.Errorf("report entry %+v", e)
	}
	r := newRunner(t, res.Model)
	for k, seed := range []float64{0.6, 2.2} {
		x, h0 := probeInput(6, seed), probeInput(2, seed+0.5)
		out := compareRuns(t, path, opts, x, h0)
		again := r.run(x, h0)
		fw := kerasSimpleRNNFrom(math.Tanh, graphConst(t, path, "kernel"), graphConst(t, path, "bias"), graphConst(t, path, "recurrent_kernel"), steps(x, 3), toF64(h0))
		for i, want := range [][]float64{flatten(fw...), fw[2]} {
			for _, got := range [][]float32{out[i], again[i]} {
				if e := maxErr(t, got, want); e > refTol {
					t.Errorf("invoke %d, output %s: error %g", k, opts.OutputArrays[i], e)
				}
			}
		}
	}
}

// TestSimpleRNNMaskRefused: a masked SimpleRNN loop (the bool mask read
// step by step, the state held where it is false) is fused by no rule,
// the report says it is masked, and the lowered model keeps the mask.
func TestSimpleRNNMaskRefused(t *testing.T) {
	const path = "testdata/simple_rnn_mask.pbtxt"
	opts := convert.Options{OutputArrays: []string{"forward:0", "forward:1"}}
	res := refusedConversion(t, path, opts)
	e := reportEntry(t, res, "forward/while")
	if e.Fused || !strings.Contains(e.Reason, "the layer is masked") || !strings.Contains(e.Reason, "the mask kept") {
		t.Fatalf("report entry %+v", e)
	}
	if n := opCounts(res)["UNIDIRECTIONAL_SEQUENCE_RNN"]; n != 0 {
		t.Fatalf("%d fused operators for a masked layer", n)
	}
	r := newRunner(t, res.Model)
	x := probeInput(6, 0.8)
	copy(r.it.Input(0).Float32s(), x)
	mask := []bool{true, false, true}
	for i, m := range mask {
		r.it.Input(1).Data[i] = 0
		if m {
			r.it.Input(1).Data[i] = 1
		}
	}
	if err := r.it.Invoke(); err != nil {
		t.Fatal(err)
	}
	W, b, U := graphConst(t, path, "kernel"), graphConst(t, path, "bias"), graphConst(t, path, "recurrent_kernel")
	xs := steps(x, 3)
	h := make([]float64, 2)
	var seq [][]float64
	for k, xt := range xs {
		if mask[k] {
			h = kerasSimpleRNNFrom(math.Tanh, W, b, U, [][]float64{xt}, h)[0]
		}
		seq = append(seq, h)
	}
	for i, want := range [][]float64{flatten(seq...), seq[2]} {
		if e := maxErr(t, r.it.Output(i).Float32s(), want); e > refTol {
			t.Errorf("output %s: error %g", opts.OutputArrays[i], e)
		}
	}
}
