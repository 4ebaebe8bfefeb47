package fusion_test

import (
	"math"
	"sync"
	"testing"

	"github.com/tflrun/tflrun/convert"
	"github.com/tflrun/tflrun/convert/internal/tfmodel"
)

// The real Keras SavedModels of ../shared/savedmodels convert with every
// recurrent layer fused, run in tflrun, and match an independent float64
// reference computed from the checkpoint variables with the Keras
// equations to 1e-5. Where a model has more than the recurrent layers,
// the reference covers the layers it is written for (a cut with
// --input_arrays/--output_arrays, or the dense head whose activations the
// graph names), and the whole fused model is also compared with its
// --no-fuse lowering.

const refTol = 1e-5

// loaded caches the models the tests read: loading a SavedModel costs more
// than most conversions of it, and a conversion leaves the model it reads
// as it was.
var loaded = struct {
	sync.Mutex
	models map[string]*tfmodel.Model
}{models: map[string]*tfmodel.Model{}}

// loadModel loads the model at path once per test binary.
func loadModel(t *testing.T, path string) *tfmodel.Model {
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

// checkFusedVsUnfused converts path whole, fused and with --no-fuse, runs
// both on the same input and compares.
func checkFusedVsUnfused(t *testing.T, path string, fused *convert.Result, input []float32) {
	t.Helper()
	unfused := conversion(t, path, convert.Options{NoFuse: true})
	a := newRunner(t, fused.Model).run(input)[0]
	b := newRunner(t, unfused.Model).run(input)[0]
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	t.Logf("whole model: fused %v, --no-fuse %v, max |diff| %.3g (unfused: %d operators)", a, b, d, len(unfused.Entry.Func.Nodes))
	if d > refTol {
		t.Errorf("fused and --no-fuse outputs differ by %g", d)
	}
}

func TestSavedModelIteam1LSTM(t *testing.T) {
	path := shared(t, "savedmodels/iteam1_lstm/lstm_model")
	m := loadModel(t, path)
	res := conversion(t, path, convert.Options{})
	ops := opCounts(res)
	if ops["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 1 || ops["STRIDED_SLICE"] != 1 || len(ops) != 3 {
		t.Fatalf("operators %v, want one UNIDIRECTIONAL_SEQUENCE_LSTM, its last-step STRIDED_SLICE and the dense head", ops)
	}
	W, R, b := variable(t, m, "lstm_5/lstm_cell_5/kernel"), variable(t, m, "lstm_5/lstm_cell_5/recurrent_kernel"), variable(t, m, "lstm_5/lstm_cell_5/bias")
	d1k, d1b := variable(t, m, "dense_15/kernel"), variable(t, m, "dense_15/bias")
	d2k, d2b := variable(t, m, "dense_16/kernel"), variable(t, m, "dense_16/bias")
	d3k, d3b := variable(t, m, "dense_17/kernel"), variable(t, m, "dense_17/bias")
	r := newRunner(t, res.Model)
	for k, seed := range []float64{0.3, 1.9} {
		x := probeInput(5, seed)
		if k > 0 {
			// The state persists across invokes (as in TFLite); Keras
			// starts every call from zeros.
			r.it.ResetVariableTensors()
		}
		got := r.run(x)[0]
		u := W.shape[1] / 4
		outs, maxC := kerasLSTM(W, R, b, steps(x, 5), make([]float64, u), make([]float64, u))
		y := dense(d3k, d3b, dense(d2k, d2b, dense(d1k, d1b, outs[4], relu), relu), linear)
		e := maxErr(t, got, y)
		t.Logf("input %d: output %v, Keras reference %v, max |error| %.3g (max |c| %.3g)", k, got, y, e, maxC)
		if e > refTol || maxC >= 10 {
			t.Errorf("input %d: max error %g (max |c| %g)", k, e, maxC)
		}
	}
	checkFusedVsUnfused(t, path, res, probeInput(5, 0.8))
}

func TestSavedModelIteam1GRU(t *testing.T) {
	path := shared(t, "savedmodels/iteam1_gru/gru_model")
	m := loadModel(t, path)
	res := conversion(t, path, convert.Options{})
	ops := opCounts(res)
	if ops["custom.UNIDIRECTIONAL_SEQUENCE_GRU"] != 1 || ops["TRANSPOSE"] != 1 || len(ops) != 3 {
		t.Fatalf("operators %v, want one UNIDIRECTIONAL_SEQUENCE_GRU after a TRANSPOSE to time-major, and the dense head", ops)
	}
	W, R, b := variable(t, m, "gru_3/gru_cell_3/kernel"), variable(t, m, "gru_3/gru_cell_3/recurrent_kernel"), variable(t, m, "gru_3/gru_cell_3/bias")
	d1k, d1b := variable(t, m, "dense_27/kernel"), variable(t, m, "dense_27/bias")
	d2k, d2b := variable(t, m, "dense_28/kernel"), variable(t, m, "dense_28/bias")
	d3k, d3b := variable(t, m, "dense_29/kernel"), variable(t, m, "dense_29/bias")
	u := W.shape[1] / 3
	r := newRunner(t, res.Model)
	for k, seed := range []float64{0.1, 2.4} {
		x := probeInput(5, seed)
		r.it.ResetVariableTensors()
		got := r.run(x)[0]
		outs := kerasGRU(W, R, b, steps(x, 5), make([]float64, u))
		y := dense(d3k, d3b, dense(d2k, d2b, dense(d1k, d1b, outs[4], relu), relu), linear)
		e := maxErr(t, got, y)
		t.Logf("input %d: output %v, Keras reference %v, max |error| %.3g", k, got, y, e)
		if e > refTol {
			t.Errorf("input %d: max error %g", k, e)
		}
	}
	// The GRU's whole output sequence, through a cut at the layer.
	cut := conversion(t, path, convert.Options{OutputArrays: []string{"sequential_9/gru_3/PartitionedCall:1"}})
	x := probeInput(5, 1.3)
	got := newRunner(t, cut.Model).run(x)[0]
	e := maxErr(t, got, flatten(kerasGRU(W, R, b, steps(x, 5), make([]float64, u))...))
	t.Logf("output sequence [1 5 %d]: max |error| %.3g", u, e)
	if e > refTol {
		t.Errorf("GRU sequence: max error %g", e)
	}
	checkFusedVsUnfused(t, path, res, probeInput(5, 0.5))
}

func TestSavedModelDittoV1(t *testing.T) {
	path := shared(t, "savedmodels/ditto_v1_lstm/HeyDittoNet-v1")
	m := loadModel(t, path)
	res := conversion(t, path, convert.Options{})
	if ops := opCounts(res); ops["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 2 {
		t.Fatalf("operators %v, want two UNIDIRECTIONAL_SEQUENCE_LSTM", ops)
	}
	// LSTM(16, return_sequences) → LSTM(16) → Dense(32, relu) →
	// Dense(1) → sigmoid, from the TimeDistributed CNN's output [1, 4, 32].
	cut := conversion(t, path, convert.Options{InputArrays: []string{"sequential_1/time_distributed/Reshape_1"},
		OutputArrays: []string{"sequential_1/lstm_1/PartitionedCall:0", "sequential_1/activation/Sigmoid"}})
	W1, R1, b1 := variable(t, m, "lstm/lstm_cell/kernel"), variable(t, m, "lstm/lstm_cell/recurrent_kernel"), variable(t, m, "lstm/lstm_cell/bias")
	W2, R2, b2 := variable(t, m, "lstm_1/lstm_cell_1/kernel"), variable(t, m, "lstm_1/lstm_cell_1/recurrent_kernel"), variable(t, m, "lstm_1/lstm_cell_1/bias")
	d1k, d1b := variable(t, m, "dense_1/kernel"), variable(t, m, "dense_1/bias")
	d2k, d2b := variable(t, m, "dense_2/kernel"), variable(t, m, "dense_2/bias")
	x := probeInput(4*32, 0.7)
	for i := range x {
		x[i] = 2 * float32(math.Abs(float64(x[i]))) // the CNN ends in relu
	}
	out := newRunner(t, cut.Model).run(x)
	h1, maxC1 := kerasLSTM(W1, R1, b1, steps(x, 4), make([]float64, 16), make([]float64, 16))
	h2, maxC2 := kerasLSTM(W2, R2, b2, h1, make([]float64, 16), make([]float64, 16))
	p := dense(d2k, d2b, dense(d1k, d1b, h2[3], relu), sigmoid)
	e1, e2 := maxErr(t, out[0], h2[3]), maxErr(t, out[1], p)
	t.Logf("stacked LSTMs: last output max |error| %.3g (max |c| %.3g, %.3g); probability %v vs %v, |error| %.3g", e1, maxC1, maxC2, out[1], p, e2)
	if e1 > refTol || e2 > refTol || maxC1 >= 10 || maxC2 >= 10 {
		t.Errorf("errors %g, %g (max |c| %g, %g)", e1, e2, maxC1, maxC2)
	}
	in := probeInput(4*30*129, 0.2)
	checkFusedVsUnfused(t, path, res, in)
}

func TestSavedModelDittoV2Bidirectional(t *testing.T) {
	path := shared(t, "savedmodels/ditto_v2_bilstm/HeyDittoNet-v2")
	m := loadModel(t, path)
	res := conversion(t, path, convert.Options{})
	ops := opCounts(res)
	// The two fused directions pair into one BIDIRECTIONAL_SEQUENCE_LSTM;
	// batch-major, so its outputs are concatenated, not merged.
	if ops["BIDIRECTIONAL_SEQUENCE_LSTM"] != 1 || ops["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 0 || ops["REVERSE_V2"] != 0 || ops["CONCATENATION"] != 1 {
		t.Fatalf("operators %v, want one BIDIRECTIONAL_SEQUENCE_LSTM whose last steps a CONCATENATION merges", ops)
	}
	// Bidirectional(LSTM(20)), merge concat, last outputs only → Dense(64,
	// relu) → Dense(64, relu) → Dense(1, sigmoid), from the reshaped CNN
	// features [1, 2, 120].
	cut := conversion(t, path, convert.Options{InputArrays: []string{"sequential/reshape/Reshape"},
		OutputArrays: []string{"sequential/bidirectional/concat", "sequential/dense_2/Sigmoid"}})
	fw := [3]string{"bidirectional/forward_lstm/lstm_cell/kernel", "bidirectional/forward_lstm/lstm_cell/recurrent_kernel", "bidirectional/forward_lstm/lstm_cell/bias"}
	bw := [3]string{"bidirectional/backward_lstm/lstm_cell/kernel", "bidirectional/backward_lstm/lstm_cell/recurrent_kernel", "bidirectional/backward_lstm/lstm_cell/bias"}
	x := probeInput(2*120, 1.1)
	xs := steps(x, 2)
	hf, cf := kerasLSTM(variable(t, m, fw[0]), variable(t, m, fw[1]), variable(t, m, fw[2]), xs, make([]float64, 20), make([]float64, 20))
	hb, cb := kerasLSTM(variable(t, m, bw[0]), variable(t, m, bw[1]), variable(t, m, bw[2]), reverse(xs), make([]float64, 20), make([]float64, 20))
	merged := flatten(hf[1], hb[1])
	d := func(name string) (tensorData, tensorData) {
		return variable(t, m, name+"/kernel"), variable(t, m, name+"/bias")
	}
	k1, c1 := d("dense")
	k2, c2 := d("dense_1")
	k3, c3 := d("dense_2")
	p := dense(k3, c3, dense(k2, c2, dense(k1, c1, merged, relu), relu), sigmoid)
	out := newRunner(t, cut.Model).run(x)
	e1, e2 := maxErr(t, out[0], merged), maxErr(t, out[1], p)
	t.Logf("bidirectional concat max |error| %.3g (max |c| %.3g, %.3g); probability %v vs %v, |error| %.3g", e1, cf, cb, out[1], p, e2)
	if e1 > refTol || e2 > refTol || cf >= 10 || cb >= 10 {
		t.Errorf("errors %g, %g", e1, e2)
	}
	checkFusedVsUnfused(t, path, res, probeInput(99*32, 0.4))
}
