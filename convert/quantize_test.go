package convert

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/convert/internal/quantize"
	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/schema"
)

// Weight quantisation end to end: the quantised models load and run in
// tflrun, their outputs stay within the quantisation error of the float
// model, a hybrid FULLY_CONNECTED reproduces the arithmetic of TFLite's
// hybrid kernel on the weights the quantiser chose, and with the legacy
// scheme the quantiser chooses exactly the int8 weights and scales
// TensorFlow's own converter chose for DTLN (model_quant_1.tflite).

// qTensors lists the quantised (int8/float16) constant tensors of a
// .tflite model: shape, scales and data.
type qTensor struct {
	typ    schema.TensorType
	shape  []int32
	scales []float32
	data   []byte
}

func qTensors(t *testing.T, model []byte) []qTensor {
	t.Helper()
	m := schema.GetRootAsModel(model, 0).UnPack()
	var out []qTensor
	for _, tt := range m.Subgraphs[0].Tensors {
		if (tt.Type != schema.TensorTypeINT8 && tt.Type != schema.TensorTypeFLOAT16) || tt.Buffer == 0 || len(m.Buffers[tt.Buffer].Data) == 0 {
			continue
		}
		q := qTensor{typ: tt.Type, shape: tt.Shape, data: m.Buffers[tt.Buffer].Data}
		if tt.Quantization != nil {
			q.scales = tt.Quantization.Scale
		}
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].data, out[j].data) < 0 })
	return out
}

// opVersions lists "OP vN" for every operator of a model.
func opVersions(res *Result) string {
	var ops []string
	for _, n := range res.Entry.Func.Nodes {
		if n.TFL != nil {
			ops = append(ops, fmt.Sprintf("%s v%d", strings.TrimPrefix(n.OpName(), "tfl."), max(n.TFL.Version, 1)))
		}
	}
	sort.Strings(ops)
	return strings.Join(ops, ", ")
}

// TestQuantizeDTLNMatchesTensorFlow converts DTLN's first stage unfused
// with the legacy dynamic-range scheme: the int8 weights and scales must
// be TensorFlow's (model_quant_1.tflite), and the model must then compute
// what TensorFlow's quantised model computes.
func TestQuantizeDTLNMatchesTensorFlow(t *testing.T) {
	m := nfModel(t, dtlnDir)
	st := dtlnStages[0]
	res, err := ConvertModel(m, Options{InputArrays: []string{st.in}, OutputArrays: []string{st.out}, NoFuse: true,
		Quantize: quantize.Options{Mode: quantize.Dynamic, Legacy: true}})
	if err != nil {
		t.Fatal(err)
	}
	tfQuant := readShared(t, "dtln/model_quant_1.tflite")
	want, got := qTensors(t, tfQuant), qTensors(t, res.Model)
	if len(got) != len(want) {
		t.Fatalf("%d quantised tensors, TensorFlow has %d", len(got), len(want))
	}
	for i := range want {
		if fmt.Sprint(got[i].shape) != fmt.Sprint(want[i].shape) || !bytes.Equal(got[i].data, want[i].data) {
			t.Fatalf("quantised tensor %d: shape %v differs from TensorFlow's %v, or its int8 values do", i, got[i].shape, want[i].shape)
		}
		if len(got[i].scales) != 1 || len(want[i].scales) != 1 || got[i].scales[0] != want[i].scales[0] {
			t.Fatalf("quantised tensor %d %v: scales %v, TensorFlow's %v", i, got[i].shape, got[i].scales, want[i].scales)
		}
	}
	if !strings.Contains(opVersions(res), "FULLY_CONNECTED v3") {
		t.Errorf("operators %s: want hybrid FULLY_CONNECTED v3", opVersions(res))
	}
	// Same weights, same kernels: the outputs agree with TensorFlow's
	// quantised model, state fed back over three invocations.
	dtlnCompare(t, dtlnStage{name: st.name, in: st.in, out: st.out, tfModel: "dtln/model_quant_1.tflite", inputLen: st.inputLen, stateVars: st.stateVars}, res)
}

// TestQuantizeKWSWithinError converts the DS-CNN float, dynamic and
// float16, and checks each quantised model against the float one.
func TestQuantizeKWSWithinError(t *testing.T) {
	float, err := Convert(kwsModel(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := seq(49*10, 30, 0.5)
	ref := nfRun(t, float.Model, x)[0]
	for _, c := range []struct {
		mode quantize.Mode
		tol  float64
		ops  []string
	}{
		// Five quantised convolutions compound their rounding: a few
		// hundredths on a softmax output.
		{quantize.Dynamic, 0.05, []string{"CONV_2D v5"}},
		{quantize.Float16, 2e-3, []string{"DEQUANTIZE v3"}},
	} {
		res, err := Convert(kwsDir, Options{Quantize: quantize.Options{Mode: c.mode}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Model) >= len(float.Model) {
			t.Errorf("%s: model is %d bytes, the float one %d", c.mode, len(res.Model), len(float.Model))
		}
		for _, op := range c.ops {
			if !strings.Contains(opVersions(res), op) {
				t.Errorf("%s: operators %s, want %s", c.mode, opVersions(res), op)
			}
		}
		got := nfRun(t, res.Model, x)[0]
		want := make([]float64, len(ref))
		worst := 0.0
		for i, v := range ref {
			want[i] = float64(v)
			worst = math.Max(worst, math.Abs(float64(got[i]-v)))
		}
		near(t, c.mode.String(), got, want, c.tol)
		if argmax(got) != argmax(ref) {
			t.Errorf("%s: class %d, the float model says %d", c.mode, argmax(got), argmax(ref))
		}
		t.Logf("%s: %d → %d bytes, %s; max |diff| of the softmax %.3g", c.mode, len(float.Model), len(res.Model), res.Quantization.Describe(), worst)
	}
}

// fcGraph is one MatMul + BiasAdd of x [2, in] by constant weights
// [in, out].
func fcGraph(in, out int) (*graph, []float32, []float32) {
	g := newGraph()
	w := seq(in*out, 0.8, 0.1)
	for i := range w {
		w[i] *= float32(1 + i%out) // channels of different ranges
	}
	b := seq(out, 0.3, 2)
	x := g.placeholder("x", 2, in)
	wv := g.constF("w", ir.Shape{in, out}, w)
	bv := g.constF("b", ir.Shape{out}, b)
	mm := g.op("MatMul", "mm", []string{x, wv}, attrs{"T": tAttr(ir.Float32)})
	g.op("BiasAdd", "y", []string{mm, bv}, attrs{"T": tAttr(ir.Float32)})
	return g, w, b
}

// TestHybridFullyConnected checks a dynamic-range FULLY_CONNECTED (per
// channel, asymmetric inputs, version 12) against a float64 model of
// TFLite's hybrid kernel — weights q = round(w/s_c) with s_c =
// max|w_c|/127, each input row quantised asymmetrically to int8 (scale =
// (max−min)/255 over a range holding 0, zero point = round(−128 − min/
// scale)), y = s_x·s_c·Σ q_w·(q_x − z_x) + b — and against the float
// result within the bound the two roundings allow:
// Σ_k |w_k|·s_x/2 + |x_k|·s_c/2 + s_x·s_c/4.
func TestHybridFullyConnected(t *testing.T) {
	const in, out = 96, 24 // 2304 weights: above the 1024 threshold
	g, w, b := fcGraph(in, out)
	res, err := g.convertWith(t, Options{OutputArrays: []string{"y"}, Quantize: quantize.Options{Mode: quantize.Dynamic}})
	if err != nil {
		t.Fatal(err)
	}
	if v := opVersions(res); v != "FULLY_CONNECTED v12" {
		t.Fatalf("operators %s, want FULLY_CONNECTED v12", v)
	}
	x := seq(2*in, 1.3, 0.7)
	got := nfRun(t, res.Model, x)[0]
	sc := make([]float64, out)
	for c := range sc {
		for k := 0; k < in; k++ {
			sc[c] = math.Max(sc[c], math.Abs(float64(w[k*out+c])))
		}
		sc[c] = float64(float32(sc[c] / 127))
	}
	for r := 0; r < 2; r++ {
		row := x[r*in : (r+1)*in]
		lo, hi := 0.0, 0.0
		for _, v := range row {
			lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
		}
		sx := (hi - lo) / 255
		zp := math.Max(-128, math.Min(127, math.Round(-128-lo/sx)))
		for c := 0; c < out; c++ {
			acc, fl, bound := 0.0, float64(b[c]), 0.0
			for k, v := range row {
				qx := math.Max(-128, math.Min(127, math.Round(float64(v)/sx)+zp))
				qw := math.Max(-127, math.Min(127, math.Round(float64(w[k*out+c])/sc[c])))
				acc += qw * (qx - zp)
				fl += float64(v) * float64(w[k*out+c])
				bound += math.Abs(float64(w[k*out+c]))*sx/2 + math.Abs(float64(v))*sc[c]/2 + sx*sc[c]/4
			}
			sim := acc*sx*sc[c] + float64(b[c])
			y := float64(got[r*out+c])
			if math.Abs(y-sim) > 1e-4*math.Max(1, math.Abs(sim)) {
				t.Fatalf("row %d channel %d: hybrid output %g, the hybrid arithmetic gives %g", r, c, y, sim)
			}
			if math.Abs(y-fl) > bound {
				t.Fatalf("row %d channel %d: hybrid output %g is %g from the float result %g, beyond the rounding bound %g", r, c, y, math.Abs(y-fl), fl, bound)
			}
		}
	}
}

// TestQuantizeSmallWeightsStayFloat checks the 1024-element threshold.
func TestQuantizeSmallWeightsStayFloat(t *testing.T) {
	g, _, _ := fcGraph(16, 8)
	res, err := g.convertWith(t, Options{OutputArrays: []string{"y"}, Quantize: quantize.Options{Mode: quantize.Dynamic}})
	if err != nil {
		t.Fatal(err)
	}
	if v := opVersions(res); v != "FULLY_CONNECTED v1" || len(res.Quantization.Weights) != 0 {
		t.Fatalf("operators %s, %d weights quantised: 128 weights are below the threshold", v, len(res.Quantization.Weights))
	}
}

// TestQuantizeDTLNFusedHybridLSTM quantises DTLN's first stage with its
// LSTMs fused: the LSTMs run their hybrid kernel, the state stays in
// their variable tensors, and the mask stays near the float model's.
func TestQuantizeDTLNFusedHybridLSTM(t *testing.T) {
	m := nfModel(t, dtlnDir)
	st := dtlnStages[0]
	opts := Options{InputArrays: []string{st.in}, OutputArrays: []string{st.out}}
	float, err := ConvertModel(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Quantize = quantize.Options{Mode: quantize.Dynamic}
	res, err := ConvertModel(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if float.Report.Fused() == 0 {
		t.Skip("no fusion rule fused DTLN's LSTMs (the fusion rules are not registered)")
	}
	if v := opVersions(res); !strings.Contains(v, "UNIDIRECTIONAL_SEQUENCE_LSTM v3") {
		t.Fatalf("operators %s: want the hybrid LSTM (version 3, asymmetric inputs)", v)
	}
	fi, qi := nfInterpreter(t, float.Model), nfInterpreter(t, res.Model)
	worst := 0.0
	for step := 0; step < 3; step++ {
		x := seq(st.inputLen, 3, float32(step))
		for i := range x {
			x[i] = float32(math.Abs(float64(x[i])))
		}
		want := nfInvoke(t, fi, x)[0]
		got := nfInvoke(t, qi, x)[0]
		for i := range want {
			worst = math.Max(worst, math.Abs(float64(got[i]-want[i])))
		}
	}
	if worst > 0.05 {
		t.Fatalf("hybrid mask differs from the float mask by %g", worst)
	}
	t.Logf("%s; max |diff| of the mask over 3 invocations %.3g; %d → %d bytes", res.Quantization.Describe(), worst, len(float.Model), len(res.Model))
}

// TestQuantizeUnrolledSharesWeights quantises an unrolled TF1 LSTM (NoFuse:
// the loop rules would fuse it): the per-step FULLY_CONNECTED operators
// share one quantised weight tensor.
func TestQuantizeUnrolledSharesWeights(t *testing.T) {
	m := kwsGraph(t, "Basic_LSTM")
	opts := Options{InputArrays: []string{"Mfcc"}, OutputArrays: []string{"labels_softmax"}, InputShapes: []ir.Shape{{1, 49, 10}}, NoFuse: true}
	float, err := ConvertModel(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []quantize.Mode{quantize.Dynamic, quantize.Float16} {
		if testing.Short() && mode == quantize.Float16 {
			continue
		}
		opts.Quantize = quantize.Options{Mode: mode}
		res, err := ConvertModel(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		// The LSTM kernel (read by 49 FULLY_CONNECTED operators) and the
		// output layer's weights: two int8 tensors in the file.
		if n := len(qTensors(t, res.Model)); mode == quantize.Dynamic && n != 2 {
			t.Errorf("%s: %d int8 tensors in the model, want 2 (%s)", mode, n, res.Quantization.Describe())
		}
		if mode == quantize.Dynamic && strings.Count(opVersions(res), "FULLY_CONNECTED v12") != 50 {
			t.Errorf("%s: want 50 hybrid FULLY_CONNECTED v12: %s", mode, opVersions(res))
		}
		x := seq(490, 8, 0.3)
		want := nfRun(t, float.Model, x)[0]
		got := nfRun(t, res.Model, x)[0]
		w := make([]float64, len(want))
		for i, v := range want {
			w[i] = float64(v)
		}
		nfNear(t, mode.String()+" softmax", got, w, 0.02)
		t.Logf("%s: %d → %d bytes", mode, len(float.Model), len(res.Model))
	}
}

func argmax(v []float32) int {
	best := 0
	for i := range v {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}

// TestQuantizeDepthwiseRuns quantises a depthwise convolution's filter
// (1152 weights, per channel) behind a DEQUANTIZE and checks the model
// runs and stays within the filter's rounding: each output moves by at
// most Σ|x|·s_c/2 over its 9 taps.
func TestQuantizeDepthwiseRuns(t *testing.T) {
	const ch = 128
	g := newGraph()
	x := g.placeholder("x", 1, 5, 5, ch)
	fw := seq(3*3*ch, 0.5, 1.1)
	f := g.constF("f", ir.Shape{3, 3, ch, 1}, fw)
	g.op("DepthwiseConv2dNative", "dw", []string{x, f}, attrs{"strides": lAttr(1, 1, 1, 1), "padding": sAttr("VALID")})
	float, err := g.convertWith(t, Options{OutputArrays: []string{"dw"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.convertWith(t, Options{OutputArrays: []string{"dw"}, Quantize: quantize.Options{Mode: quantize.Dynamic}})
	if err != nil {
		t.Fatal(err)
	}
	if v := opVersions(res); v != "DEPTHWISE_CONV_2D v1, DEQUANTIZE v5" {
		t.Fatalf("operators %s, want a float depthwise fed by a per-channel DEQUANTIZE", v)
	}
	in := seq(5*5*ch, 2, 0.2)
	want := nfRun(t, float.Model, in)[0]
	got := nfRun(t, res.Model, in)[0]
	maxAbs := make([]float64, ch)
	for i, v := range fw {
		maxAbs[i%ch] = math.Max(maxAbs[i%ch], math.Abs(float64(v)))
	}
	for i := range want {
		c := i % ch
		bound := 9 * 2 * (maxAbs[c] / 127) / 2 // 9 taps, |x| ≤ 2
		if d := math.Abs(float64(got[i] - want[i])); d > bound+1e-6 {
			t.Fatalf("output %d (channel %d) moved by %g, bound %g", i, c, d, bound)
		}
	}
}

// TestQuantizeFloat16FusedRecurrent converts fused recurrent models with
// --quantize=float16: their weights go through float16 DEQUANTIZE
// operators, as TFLite's float16 quantisation writes them, and the
// interpreter computes those once, before the LSTM/GRU kernels are
// prepared, so they still pack the weights. The outputs stay within
// float16 rounding of the float model's, invocation after invocation
// (DTLN keeps its LSTM state across them).
func TestQuantizeFloat16FusedRecurrent(t *testing.T) {
	cases := []struct {
		name, dir string
		opts      Options
		fused     string
		inputLen  int
	}{
		{"iteam1_lstm", "iteam1_lstm/lstm_model", Options{}, "UNIDIRECTIONAL_SEQUENCE_LSTM", 5},
		{"iteam1_gru", "iteam1_gru/gru_model", Options{}, "UNIDIRECTIONAL_SEQUENCE_GRU", 5},
		{"dtln stage 1", dtlnDir, Options{InputArrays: []string{dtlnStages[0].in}, OutputArrays: []string{dtlnStages[0].out}}, "UNIDIRECTIONAL_SEQUENCE_LSTM", dtlnStages[0].inputLen},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := nfModel(t, c.dir)
			float, err := ConvertModel(m, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			opts := c.opts
			opts.Quantize = quantize.Options{Mode: quantize.Float16}
			res, err := ConvertModel(m, opts)
			if err != nil {
				t.Fatal(err)
			}
			// Every weight of the fused operator comes from a DEQUANTIZE.
			var fusedOp *ir.Node
			for _, n := range res.Entry.Func.Nodes {
				if n.TFL != nil && strings.Contains(n.OpName(), c.fused) {
					fusedOp = n
				}
			}
			if fusedOp == nil {
				t.Fatalf("no %s in %s", c.fused, opVersions(res))
			}
			dequantized := 0
			for _, v := range fusedOp.Inputs {
				if v != nil && v.Producer != nil && v.Producer.TFL != nil && v.Producer.TFL.Builtin == schema.BuiltinOperatorDEQUANTIZE {
					dequantized++
				}
			}
			if dequantized < 3 {
				t.Fatalf("%s reads %d DEQUANTIZE outputs, want its weights through float16", c.fused, dequantized)
			}
			fi, qi := nfInterpreter(t, float.Model), nfInterpreter(t, res.Model)
			if qi.PrecomputedBytes() == 0 {
				t.Fatal("no precomputed DEQUANTIZE outputs")
			}
			worst := 0.0
			for step := 0; step < 3; step++ {
				x := seq(c.inputLen, 1, float32(step))
				want := nfInvoke(t, fi, x)[0]
				got := nfInvoke(t, qi, x)[0]
				for i := range want {
					worst = math.Max(worst, math.Abs(float64(got[i]-want[i]))/math.Max(1, math.Abs(float64(want[i]))))
				}
			}
			if worst > 5e-3 {
				t.Fatalf("float16 model differs from the float model by %g (relative)", worst)
			}
			t.Logf("%s: %d DEQUANTIZE inputs, max relative diff %.3g over 3 invocations; %d → %d bytes", c.fused, dequantized, worst, len(float.Model), len(res.Model))
		})
	}
}

// TestQuantizeGRUHybrid converts ../shared iteam1_gru (Keras GRU(64),
// reset_after) with --quantize=dynamic: the fused GRU's gate and
// candidate weights become int8 per row, the model runs tflrun's hybrid
// GRU, and its outputs stay near the float model's (the GRU layer alone,
// outputs in (-1, 1), and the whole forecaster, relative to its output).
func TestQuantizeGRUHybrid(t *testing.T) {
	for _, c := range []struct {
		name string
		opts Options
		tol  float64
	}{
		{"GRU layer", Options{OutputArrays: []string{"sequential_9/gru_3/PartitionedCall"}}, 0.02},
		{"whole model", Options{}, 0.02},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := nfModel(t, "iteam1_gru/gru_model")
			float, err := ConvertModel(m, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			opts := c.opts
			opts.Quantize = quantize.Options{Mode: quantize.Dynamic}
			res, err := ConvertModel(m, opts)
			if err != nil {
				t.Fatal(err)
			}
			var gru *ir.Node
			for _, n := range res.Entry.Func.Nodes {
				if n.TFL != nil && n.TFL.Custom == "UNIDIRECTIONAL_SEQUENCE_GRU" {
					gru = n
				}
			}
			if gru == nil {
				t.Fatalf("no GRU in %s", opVersions(res))
			}
			for _, i := range []int{2, 4} {
				if v := gru.Inputs[i]; v.DType != ir.Int8 || v.Quant == nil || len(v.Quant.Scale) != v.Shape[0] {
					t.Fatalf("GRU operand %d is %s, want int8 per row", i, v.DType)
				}
			}
			for _, s := range res.Quantization.Skipped {
				if strings.Contains(s, "GRU") {
					t.Errorf("GRU weight left float: %s", s)
				}
			}
			fi, qi := nfInterpreter(t, float.Model), nfInterpreter(t, res.Model)
			worst := 0.0
			for step := 0; step < 3; step++ {
				x := seq(5, 2, float32(step))
				if err := fi.ResetVariableTensors(); err != nil {
					t.Fatal(err)
				}
				if err := qi.ResetVariableTensors(); err != nil {
					t.Fatal(err)
				}
				want := nfInvoke(t, fi, x)[0]
				got := nfInvoke(t, qi, x)[0]
				for i := range want {
					worst = math.Max(worst, math.Abs(float64(got[i]-want[i]))/math.Max(1, math.Abs(float64(want[i]))))
				}
			}
			if worst > c.tol {
				t.Fatalf("hybrid model differs from the float model by %g", worst)
			}
			t.Logf("%s; max |diff| (relative above 1) %.3g over 3 inputs; %d → %d bytes", res.Quantization.Describe(), worst, len(float.Model), len(res.Model))
		})
	}
}
