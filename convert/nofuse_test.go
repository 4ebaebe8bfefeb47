package convert

import (
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/tflrun/tflrun/convert/fusion"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
	"github.com/tflrun/tflrun/interpreter"
)

// The recurrent SavedModels of ../shared/savedmodels, converted with
// --no-fuse: every Keras LSTM/GRU loop is unrolled into primitive TFLite
// operators. Each recurrent layer is checked against an independent
// float64 implementation of the Keras cell computed from the checkpoint
// (cut out of the model with --output_arrays at the layer's call), and
// each whole model must convert to primitive operators only and run.

const sharedSavedModels = "../../shared/savedmodels/"

// nfModel loads a shared SavedModel, skipping when it is absent.
func nfModel(t *testing.T, dir string) *tfmodel.Model {
	t.Helper()
	path := sharedSavedModels + dir
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not present: %v", path, err)
	}
	return cachedModel(t, path)
}

// loaded caches the models the tests read: loading a SavedModel costs more
// than most conversions of it, and a conversion leaves the model it reads
// as it was (each builds its own entry function; converting every shared
// model with every flag combination on one loaded model gives the bytes
// of fresh conversions).
var loaded = struct {
	sync.Mutex
	models map[string]*tfmodel.Model
}{models: map[string]*tfmodel.Model{}}

// cachedModel loads the model at path once per test binary.
func cachedModel(t *testing.T, path string) *tfmodel.Model {
	t.Helper()
	loaded.Lock()
	defer loaded.Unlock()
	if m, ok := loaded.models[path]; ok {
		return m
	}
	m, err := tfmodel.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	loaded.models[path] = m
	return m
}

// nfVar reads the checkpoint value of the variable whose VarHandleOp is
// named node, as float64.
func nfVar(t *testing.T, m *tfmodel.Model, node string) []float64 {
	t.Helper()
	vars, err := m.Variables()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vars {
		if v.Node == node {
			x, err := m.Bundle.Read(v.Key)
			if err != nil {
				t.Fatal(err)
			}
			return x.Float64s()
		}
	}
	t.Fatalf("no variable %q", node)
	return nil
}

// nfRun runs a model once on float32 inputs (in order) and returns every
// output.
func nfRun(t *testing.T, model []byte, inputs ...[]float32) [][]float32 {
	t.Helper()
	it := nfInterpreter(t, model)
	return nfInvoke(t, it, inputs...)
}

func nfInterpreter(t *testing.T, model []byte) *interpreter.Interpreter {
	t.Helper()
	m, err := interpreter.LoadBytes(model)
	if err != nil {
		t.Fatalf("interpreter rejects the model: %v", err)
	}
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatalf("AllocateTensors: %v", err)
	}
	return it
}

func nfInvoke(t *testing.T, it *interpreter.Interpreter, inputs ...[]float32) [][]float32 {
	t.Helper()
	for i, x := range inputs {
		in := it.Input(i).Float32s()
		if len(in) != len(x) {
			t.Fatalf("input %d has %d elements, test gives %d", i, len(in), len(x))
		}
		copy(in, x)
	}
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	var outs [][]float32
	for i := 0; i < it.OutputCount(); i++ {
		outs = append(outs, append([]float32(nil), it.Output(i).Float32s()...))
	}
	return outs
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// nfKerasLSTM is Keras's LSTM cell (recurrent activation sigmoid,
// activation tanh, gates i, f, c, o in the kernel's columns) over x
// [T][in] from zero state, in float64: z = x·K + h·R + b, c = σ(f)·c +
// σ(i)·tanh(g), h = σ(o)·tanh(c). It returns every step's h, in time
// order of processing.
func nfKerasLSTM(x [][]float64, K, R, b []float64, units int) [][]float64 {
	in := len(x[0])
	h := make([]float64, units)
	c := make([]float64, units)
	var out [][]float64
	for _, xt := range x {
		z := make([]float64, 4*units)
		for j := range z {
			s := b[j]
			for k := 0; k < in; k++ {
				s += xt[k] * K[k*4*units+j]
			}
			for k := 0; k < units; k++ {
				s += h[k] * R[k*4*units+j]
			}
			z[j] = s
		}
		nh := make([]float64, units)
		for u := 0; u < units; u++ {
			i, f, g, o := sigmoid(z[u]), sigmoid(z[units+u]), math.Tanh(z[2*units+u]), sigmoid(z[3*units+u])
			c[u] = f*c[u] + i*g
			nh[u] = o * math.Tanh(c[u])
		}
		h = nh
		out = append(out, h)
	}
	return out
}

// nfKerasGRU is Keras's GRU cell with reset_after=True (gates z, r, h in
// the kernel's columns, bias [2][3·units] for input and recurrent
// products) over x [T][in] from zero state, in float64:
// xz,xr,xh = x·K + b0; rz,rr,rh = h·R + b1; z = σ(xz+rz); r = σ(xr+rr);
// hh = tanh(xh + r·rh); h = z·h + (1−z)·hh.
func nfKerasGRU(x [][]float64, K, R, b []float64, units int) [][]float64 {
	in := len(x[0])
	h := make([]float64, units)
	var out [][]float64
	for _, xt := range x {
		mx := make([]float64, 3*units)
		mh := make([]float64, 3*units)
		for j := range mx {
			mx[j] = b[j]
			mh[j] = b[3*units+j]
			for k := 0; k < in; k++ {
				mx[j] += xt[k] * K[k*3*units+j]
			}
			for k := 0; k < units; k++ {
				mh[j] += h[k] * R[k*3*units+j]
			}
		}
		nh := make([]float64, units)
		for u := 0; u < units; u++ {
			z := sigmoid(mx[u] + mh[u])
			r := sigmoid(mx[units+u] + mh[units+u])
			hh := math.Tanh(mx[2*units+u] + r*mh[2*units+u])
			nh[u] = z*h[u] + (1-z)*hh
		}
		h = nh
		out = append(out, h)
	}
	return out
}

// nfSeries returns a deterministic [T][in] input and its float32 form.
func nfSeries(T, in int, scale float32) ([][]float64, []float32) {
	flat := seq(T*in, scale, 0.3)
	x := make([][]float64, T)
	for t := range x {
		x[t] = make([]float64, in)
		for k := range x[t] {
			x[t][k] = float64(flat[t*in+k])
		}
	}
	return x, flat
}

// nfPrimitive fails when the converted model holds a loop, a fused
// recurrent operator or a custom operator.
func nfPrimitive(t *testing.T, res *Result) {
	t.Helper()
	for _, n := range res.Entry.Func.Nodes {
		if n.TFL == nil {
			continue
		}
		op := strings.TrimPrefix(n.OpName(), "tfl.")
		if strings.Contains(op, "WHILE") || strings.Contains(op, "SEQUENCE") || strings.Contains(op, "LSTM") ||
			strings.Contains(op, "RNN") || strings.Contains(op, "GRU") || strings.HasPrefix(op, "custom") {
			t.Errorf("--no-fuse left operator %s", op)
		}
	}
	if res.Report.Fused() != 0 {
		t.Errorf("--no-fuse fused %d composites", res.Report.Fused())
	}
}

func nfConvert(t *testing.T, m *tfmodel.Model, opts Options) *Result {
	t.Helper()
	opts.NoFuse = true
	res, err := ConvertModel(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	nfPrimitive(t, res)
	return res
}

func nfNear(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	worst := 0.0
	for i := range want {
		if i < len(got) {
			worst = math.Max(worst, math.Abs(float64(got[i])-want[i]))
		}
	}
	near(t, what, got, want, tol)
	t.Logf("%s: max |diff| %.3g over %d values", what, worst, len(want))
}

func TestNoFuseIteam1LSTM(t *testing.T) {
	m := nfModel(t, "iteam1_lstm/lstm_model")
	res := nfConvert(t, m, Options{OutputArrays: []string{"sequential_5/lstm_5/PartitionedCall"}})
	x, xf := nfSeries(5, 1, 2)
	got := nfRun(t, res.Model, xf)[0]
	hs := nfKerasLSTM(x, nfVar(t, m, "lstm_5/lstm_cell_5/kernel"), nfVar(t, m, "lstm_5/lstm_cell_5/recurrent_kernel"), nfVar(t, m, "lstm_5/lstm_cell_5/bias"), 64)
	nfNear(t, "LSTM(64) last output", got, hs[len(hs)-1], 1e-5)
	nfConvert(t, m, Options{}) // the whole model lowers to primitive operators
}

func TestNoFuseIteam1GRU(t *testing.T) {
	m := nfModel(t, "iteam1_gru/gru_model")
	res := nfConvert(t, m, Options{OutputArrays: []string{"sequential_9/gru_3/PartitionedCall"}})
	x, xf := nfSeries(5, 1, 2)
	got := nfRun(t, res.Model, xf)[0]
	hs := nfKerasGRU(x, nfVar(t, m, "gru_3/gru_cell_3/kernel"), nfVar(t, m, "gru_3/gru_cell_3/recurrent_kernel"), nfVar(t, m, "gru_3/gru_cell_3/bias"), 64)
	nfNear(t, "GRU(64) last output", got, hs[len(hs)-1], 1e-5)
	nfConvert(t, m, Options{})
}

func TestNoFuseDittoV1StackedLSTM(t *testing.T) {
	m := nfModel(t, "ditto_v1_lstm/HeyDittoNet-v1")
	res := nfConvert(t, m, Options{InputArrays: []string{"sequential_1/time_distributed/Reshape_1"}, OutputArrays: []string{"sequential_1/lstm_1/PartitionedCall"}})
	x, xf := nfSeries(4, 32, 1.5)
	got := nfRun(t, res.Model, xf)[0]
	seq1 := nfKerasLSTM(x, nfVar(t, m, "lstm/lstm_cell/kernel"), nfVar(t, m, "lstm/lstm_cell/recurrent_kernel"), nfVar(t, m, "lstm/lstm_cell/bias"), 16)
	hs := nfKerasLSTM(seq1, nfVar(t, m, "lstm_1/lstm_cell_1/kernel"), nfVar(t, m, "lstm_1/lstm_cell_1/recurrent_kernel"), nfVar(t, m, "lstm_1/lstm_cell_1/bias"), 16)
	nfNear(t, "LSTM(16, return_sequences) → LSTM(16) last output", got, hs[len(hs)-1], 1e-5)
	nfConvert(t, m, Options{})
}

func TestNoFuseDittoV2BiLSTM(t *testing.T) {
	m := nfModel(t, "ditto_v2_bilstm/HeyDittoNet-v2")
	res := nfConvert(t, m, Options{InputArrays: []string{"sequential/reshape/Reshape"}, OutputArrays: []string{"sequential/bidirectional/concat"}})
	x, xf := nfSeries(2, 120, 1)
	got := nfRun(t, res.Model, xf)[0]
	fw := nfKerasLSTM(x, nfVar(t, m, "bidirectional/forward_lstm/lstm_cell/kernel"), nfVar(t, m, "bidirectional/forward_lstm/lstm_cell/recurrent_kernel"), nfVar(t, m, "bidirectional/forward_lstm/lstm_cell/bias"), 20)
	rev := make([][]float64, len(x))
	for i := range x {
		rev[i] = x[len(x)-1-i]
	}
	bw := nfKerasLSTM(rev, nfVar(t, m, "bidirectional/backward_lstm/lstm_cell/kernel"), nfVar(t, m, "bidirectional/backward_lstm/lstm_cell/recurrent_kernel"), nfVar(t, m, "bidirectional/backward_lstm/lstm_cell/bias"), 20)
	want := append(append([]float64(nil), fw[len(fw)-1]...), bw[len(bw)-1]...)
	nfNear(t, "Bidirectional(LSTM(20)) merge concat", got, want, 1e-5)
	nfConvert(t, m, Options{})
}

// readShared reads a file under ../shared/savedmodels, skipping when it
// is absent.
func readShared(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(sharedSavedModels + rel)
	if err != nil {
		t.Skipf("%s not present: %v", sharedSavedModels+rel, err)
	}
	return b
}

// TestRefusedCompositeUnrolled: a composite its rule refuses is inlined
// and its loop unrolled exactly as with --no-fuse.
func TestRefusedCompositeUnrolled(t *testing.T) {
	m := nfModel(t, "iteam1_lstm/lstm_model")
	reg := fusion.NewRegistry()
	refuse := fusion.RuleFunc{RuleName: "refuse-all", Func: func(*fusion.Site) (fusion.Result, error) {
		return fusion.Result{Reason: "refused by the test"}, nil
	}}
	if err := reg.RegisterPrefix("lstm_", refuse); err != nil {
		t.Fatal(err)
	}
	res, err := ConvertModel(m, Options{Registry: reg, OutputArrays: []string{"sequential_5/lstm_5/PartitionedCall"}})
	if err != nil {
		t.Fatal(err)
	}
	nfPrimitive(t, res)
	if len(res.Report.Composites) == 0 || res.Report.Composites[0].Rule != "refuse-all" || res.Report.Composites[0].Reason != "refused by the test" {
		t.Fatalf("report %+v", res.Report.Composites)
	}
	x, xf := nfSeries(5, 1, 2)
	hs := nfKerasLSTM(x, nfVar(t, m, "lstm_5/lstm_cell_5/kernel"), nfVar(t, m, "lstm_5/lstm_cell_5/recurrent_kernel"), nfVar(t, m, "lstm_5/lstm_cell_5/bias"), 64)
	nfNear(t, "refused LSTM(64), unrolled", nfRun(t, res.Model, xf)[0], hs[len(hs)-1], 1e-5)
}

// TestCutErrors: cut names that do not exist, or cuts that leave the
// outputs depending on a signature input, are errors naming them.
func TestCutErrors(t *testing.T) {
	m := nfModel(t, dtlnDir)
	cases := []struct {
		opts Options
		want []string
	}{
		{Options{InputArrays: []string{"model/lambda/Abs"}, OutputArrays: []string{"model/no/such/node"}}, []string{"model/no/such/node", "neither in the main graph nor in any inlined function"}},
		// Stage 2 needs the IRFFT output, which depends on the model input
		// through the phase (Angle), not only on the magnitude.
		{Options{InputArrays: []string{"model/lambda/Abs"}, OutputArrays: []string{"model/conv1d_1/conv1d/Squeeze"}}, []string{"still depend on model input", "input_1"}},
		{Options{InputArrays: []string{"model/lambda/Abs"}, OutputArrays: []string{"Sigmoid"}}, []string{`"Sigmoid" is ambiguous`, "model/activation/Sigmoid", "model/activation_1/Sigmoid"}},
	}
	for _, c := range cases {
		_, err := ConvertModel(m, c.opts)
		if err == nil {
			t.Fatalf("%v: converted, want an error", c.opts.OutputArrays)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
	}
}

// TestTF1AudioFrontEndCut: without input arrays, the WAV string input
// and its DecodeWav (which TFLite cannot run) are cut away: the decoded
// audio and the sample rate are the inputs, AudioSpectrogram and Mfcc
// become TFLite's custom operators, and the model runs on one second of
// a 440 Hz tone at 16 kHz, giving a distribution over the labels.
func TestTF1AudioFrontEndCut(t *testing.T) {
	m := kwsGraph(t, "GRU")
	res, err := ConvertModel(m, Options{OutputArrays: []string{"labels_softmax"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Entry.InputNames, ",") != "decoded_sample_data:0,decoded_sample_data:1" || len(res.Entry.Notes) != 1 || !strings.Contains(res.Entry.Notes[0], "(DecodeWav), which TensorFlow Lite cannot run") {
		t.Fatalf("inputs %v, notes %q", res.Entry.InputNames, res.Entry.Notes)
	}
	if ops := opList(res); !strings.Contains(ops, "AudioSpectrogram") || !strings.Contains(ops, "Mfcc") {
		t.Errorf("operators %s, want the AudioSpectrogram and Mfcc custom operators", ops)
	}
	im, err := interpreter.LoadBytes(res.Model)
	if err != nil {
		t.Fatal(err)
	}
	it, err := interpreter.New(im, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	audio := it.Input(0).Float32s()
	for i := range audio {
		audio[i] = float32(0.5 * math.Sin(2*math.Pi*440*float64(i)/16000))
	}
	it.Input(1).Int32s()[0] = 16000
	if err := it.Invoke(); err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, p := range it.Output(0).Float32s() {
		if !(p >= 0 && p <= 1) {
			t.Fatalf("probability %v", p)
		}
		sum += float64(p)
	}
	if math.Abs(sum-1) > 1e-5 {
		t.Errorf("probabilities sum to %v", sum)
	}
}
