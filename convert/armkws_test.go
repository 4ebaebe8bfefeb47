package convert

import (
	"math"
	"os"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/convert/ir"
)

// ARM's keyword-spotting TF1 frozen graphs (ML-KWS-for-MCU): a WAV string
// input decoded and turned into MFCCs in the graph, then an RNN built by
// tf.nn.dynamic_rnn — a TF1 while-loop frame over TensorArrayV3 — and a
// softmax classifier. Cut at the Mfcc output, each converts (the loop
// functionalised, then fused by a loop rule where one applies —
// BasicLSTMCell, LSTMCell with peepholes and projection, GRUCell; CRNN's
// two GRU cells share one loop, which is unrolled and rolled back into a
// loop per cell, each fused) and must match a float64
// implementation of TensorFlow 1's cell written here from the graph's
// constants, fused and with NoFuse.

// kwsGraph loads one frozen graph, skipping when absent.
func kwsGraph(t *testing.T, name string) *tfmodel.Model {
	t.Helper()
	path := sharedSavedModels + "armkws_tf1_frozen/" + name + "/" + name + "_S.pb"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not present: %v", path, err)
	}
	return cachedModel(t, path)
}

// kwsConst returns a Const node's value from the graph as float64.
func kwsConst(t *testing.T, m *tfmodel.Model, name string) []float64 {
	t.Helper()
	for _, n := range m.Graph.Node {
		if n.GetName() == name && n.GetOp() == "Const" {
			v, err := ir.FromProto(n.GetAttr()["value"].GetTensor())
			if err != nil {
				t.Fatal(err)
			}
			return v.Float64s()
		}
	}
	t.Fatalf("graph has no Const %q", name)
	return nil
}

// matVec is x·W + b for W [len(x)][n] row-major.
func matVec(x, W, b []float64, n int) []float64 {
	out := make([]float64, n)
	for j := range out {
		s := 0.0
		if b != nil {
			s = b[j]
		}
		for k, xv := range x {
			s += xv * W[k*n+j]
		}
		out[j] = s
	}
	return out
}

func softmax(z []float64) []float64 {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = math.Max(mx, v)
	}
	sum := 0.0
	out := make([]float64, len(z))
	for i, v := range z {
		out[i] = math.Exp(v - mx)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

func concat(a, b []float64) []float64 { return append(append([]float64(nil), a...), b...) }

// tf1LSTM runs TensorFlow 1's LSTM cell (tf.nn.rnn_cell.LSTMCell /
// BasicLSTMCell, forget_bias 1): gates i, j, f, o = [x, m]·K + b;
// c = σ(f + 1 + wf·c)·c + σ(i + wi·c)·tanh(j); m = σ(o + wo·c)·tanh(c);
// m = m·P when projecting. Peephole weights nil for no peepholes, P nil
// for no projection. It returns the last output.
func tf1LSTM(x [][]float64, K, b, wi, wf, wo, P []float64, units, proj int) []float64 {
	nOut := units
	if P != nil {
		nOut = proj
	}
	m := make([]float64, nOut)
	c := make([]float64, units)
	peep := func(w []float64, u int, v float64) float64 {
		if w == nil {
			return 0
		}
		return w[u] * v
	}
	for _, xt := range x {
		z := matVec(concat(xt, m), K, b, 4*units)
		h := make([]float64, units)
		for u := 0; u < units; u++ {
			i, j, f, o := z[u], z[units+u], z[2*units+u], z[3*units+u]
			c[u] = sigmoid(f+1+peep(wf, u, c[u]))*c[u] + sigmoid(i+peep(wi, u, c[u]))*math.Tanh(j)
			h[u] = sigmoid(o+peep(wo, u, c[u])) * math.Tanh(c[u])
		}
		if P != nil {
			h = matVec(h, P, nil, proj)
		}
		m = h
	}
	return m
}

// tf1GRU runs TensorFlow 1's GRU cell (tf.nn.rnn_cell.GRUCell): r, u =
// σ([x, h]·G + bg); c = tanh([x, r·h]·C + bc); h = u·h + (1−u)·c. It
// returns every step's h.
func tf1GRU(x [][]float64, G, bg, C, bc []float64, units int) [][]float64 {
	h := make([]float64, units)
	var out [][]float64
	for _, xt := range x {
		g := matVec(concat(xt, h), G, bg, 2*units)
		rh := make([]float64, units)
		for k := range rh {
			rh[k] = sigmoid(g[k]) * h[k]
		}
		cand := matVec(concat(xt, rh), C, bc, units)
		nh := make([]float64, units)
		for k := range nh {
			u := sigmoid(g[units+k])
			nh[k] = u*h[k] + (1-u)*math.Tanh(cand[k])
		}
		h = nh
		out = append(out, h)
	}
	return out
}

// kwsMFCC is a deterministic stand-in for the Mfcc output [frames][10].
func kwsMFCC(frames int) ([][]float64, []float32) {
	return nfSeries(frames, 10, 8)
}

// kwsConvert converts a graph twice, with the loop rules (which must emit
// fused recurrent operators) and with NoFuse (which must emit none).
func kwsConvert(t *testing.T, m *tfmodel.Model, frames, fused int) []*Result {
	t.Helper()
	var out []*Result
	for _, noFuse := range []bool{false, true} {
		res, err := ConvertModel(m, Options{InputArrays: []string{"Mfcc"}, OutputArrays: []string{"labels_softmax"},
			InputShapes: []ir.Shape{{1, frames, 10}}, NoFuse: noFuse})
		if err != nil {
			t.Fatal(err)
		}
		if noFuse {
			nfPrimitive(t, res)
		} else if res.Report.Fused() != fused {
			t.Errorf("%d loops fused, want %d:\n%s", res.Report.Fused(), fused, res.Report.Text())
		}
		out = append(out, res)
	}
	return out
}

func TestTF1BasicLSTM(t *testing.T) {
	m := kwsGraph(t, "Basic_LSTM")
	runs := kwsConvert(t, m, 49, 1)
	x, xf := kwsMFCC(49)
	k := func(s string) []float64 { return kwsConst(t, m, s) }
	h := tf1LSTM(x, k("lstm/rnn/basic_lstm_cell/kernel"), k("lstm/rnn/basic_lstm_cell/bias"), nil, nil, nil, nil, 118, 0)
	want := softmax(matVec(h, k("W_o"), k("b_o"), 12))
	for _, res := range runs {
		nfNear(t, "Basic_LSTM softmax", nfRun(t, res.Model, xf)[0], want, 1e-5)
	}
}

func TestTF1LSTMPeepholeProjection(t *testing.T) {
	m := kwsGraph(t, "LSTM")
	runs := kwsConvert(t, m, 25, 1)
	x, xf := kwsMFCC(25)
	k := func(s string) []float64 { return kwsConst(t, m, "lstm/rnn/lstm_cell/"+s) }
	h := tf1LSTM(x, k("kernel"), k("bias"), k("w_i_diag"), k("w_f_diag"), k("w_o_diag"), k("projection/kernel"), 144, 98)
	want := softmax(matVec(h, kwsConst(t, m, "W_o"), kwsConst(t, m, "b_o"), 12))
	for _, res := range runs {
		nfNear(t, "LSTM (peephole, projection) softmax", nfRun(t, res.Model, xf)[0], want, 1e-5)
	}
}

func TestTF1GRU(t *testing.T) {
	m := kwsGraph(t, "GRU")
	runs := kwsConvert(t, m, 25, 1)
	x, xf := kwsMFCC(25)
	k := func(s string) []float64 { return kwsConst(t, m, "rnn/multi_rnn_cell/cell_0/gru_cell/"+s) }
	hs := tf1GRU(x, k("gates/kernel"), k("gates/bias"), k("candidate/kernel"), k("candidate/bias"), 154)
	want := softmax(matVec(hs[len(hs)-1], kwsConst(t, m, "W_o"), kwsConst(t, m, "b_o"), 12))
	for _, res := range runs {
		nfNear(t, "GRU softmax", nfRun(t, res.Model, xf)[0], want, 1e-5)
	}
}

func TestTF1CRNN(t *testing.T) {
	m := kwsGraph(t, "CRNN")
	// MultiRNNCell([GRUCell, GRUCell]): the loop itself is no rule's (two
	// cells), but unrolled, its steps are rolled back into one loop per
	// cell (fusion.RollStaticRNNs), and both fuse.
	runs := kwsConvert(t, m, 49, 2)
	x, xf := kwsMFCC(49)
	// Conv2D 10×4, stride 2×2, VALID, 48 filters on [49][10][1], bias,
	// ReLU → [20][4][48], flattened per time step to 192 features.
	W, bias := kwsConst(t, m, "W"), kwsConst(t, m, "Variable")
	seqIn := make([][]float64, 20)
	for oy := range seqIn {
		seqIn[oy] = make([]float64, 4*48)
		for ox := 0; ox < 4; ox++ {
			for c := 0; c < 48; c++ {
				s := bias[c]
				for ky := 0; ky < 10; ky++ {
					for kx := 0; kx < 4; kx++ {
						s += x[2*oy+ky][2*ox+kx] * W[(ky*4+kx)*48+c]
					}
				}
				seqIn[oy][ox*48+c] = math.Max(s, 0)
			}
		}
	}
	k := func(cell, s string) []float64 {
		return kwsConst(t, m, "rnn/multi_rnn_cell/"+cell+"/gru_cell/"+s)
	}
	l0 := tf1GRU(seqIn, k("cell_0", "gates/kernel"), k("cell_0", "gates/bias"), k("cell_0", "candidate/kernel"), k("cell_0", "candidate/bias"), 60)
	l1 := tf1GRU(l0, k("cell_1", "gates/kernel"), k("cell_1", "gates/bias"), k("cell_1", "candidate/kernel"), k("cell_1", "candidate/bias"), 60)
	fc := matVec(l1[len(l1)-1], kwsConst(t, m, "fcw"), kwsConst(t, m, "Variable_1"), 84)
	for i := range fc {
		fc[i] = math.Max(fc[i], 0)
	}
	want := softmax(matVec(fc, kwsConst(t, m, "Variable_2"), kwsConst(t, m, "Variable_3"), 12))
	for _, res := range runs {
		nfNear(t, "CRNN softmax", nfRun(t, res.Model, xf)[0], want, 1e-5)
	}
}
