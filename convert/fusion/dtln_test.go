package fusion_test

import (
	"math"
	"os"
	"testing"

	"github.com/tflrun/tflrun/convert"
)

// DTLN (noise suppression, TF 2.2) is two stages around an in-graph
// RFFT/IRFFT, each two stateful Keras LSTM(128) layers whose state lives
// in resource variables read at the start of a call and assigned at its
// end. TFLite has no RFFT/IRFFT/ComplexAbs/Angle of those forms, so each
// stage is cut out as TensorFlow's converter allows (--input_arrays /
// --output_arrays): stage 1 from the magnitude spectrum to the mask,
// stage 2 from the time-domain frame to the output frame. Each converts
// with both LSTMs fused and their state in variable tensors, so that one
// invoke per frame carries the state as the Keras model does.

const dtlnFrames = 12

// dtlnAudioFrames makes overlapping 512-sample frames (hop 128) of a
// synthetic noisy signal in [-1, 1].
func dtlnAudioFrames() [][]float64 {
	n := 512 + 128*(dtlnFrames-1)
	sig := make([]float64, n)
	for i := range sig {
		t := float64(i) / 16000
		sig[i] = 0.3*math.Sin(2*math.Pi*220*t)*math.Sin(2*math.Pi*3*t) + 0.15*math.Sin(2*math.Pi*1375*t+1) +
			0.05*math.Sin(float64(i)*12.9898+math.Sin(float64(i)*78.233))
	}
	frames := make([][]float64, dtlnFrames)
	for f := range frames {
		frames[f] = sig[128*f : 128*f+512]
	}
	return frames
}

// magnitude is |rfft(x)| for a 512-sample frame: 257 bins.
func magnitude(x []float64) []float64 {
	out := make([]float64, 257)
	for k := range out {
		var re, im float64
		for n, v := range x {
			a := -2 * math.Pi * float64(k*n) / 512
			re += v * math.Cos(a)
			im += v * math.Sin(a)
		}
		out[k] = math.Hypot(re, im)
	}
	return out
}

func f32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func TestSavedModelDTLNStage1(t *testing.T) {
	path := shared(t, "savedmodels/dtln/dtln_saved_model")
	m := loadModel(t, path)
	opts := convert.Options{InputArrays: []string{"model/lambda/Abs"}, OutputArrays: []string{"model/activation/Sigmoid"}}
	res := conversion(t, path, opts)
	ops := opCounts(res)
	if ops["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 2 || ops["LOGISTIC"] != 1 {
		t.Fatalf("operators %v, want two fused LSTMs, then the dense layer and LOGISTIC", ops)
	}
	if len(res.States) != 4 {
		t.Fatalf("%d states, want the 4 LSTM state variables (kept in variable tensors)", len(res.States))
	}
	for _, st := range res.States {
		if st.VariableTensor == nil || st.Input != nil {
			t.Errorf("state %q: want a variable tensor, got an input/output pair", st.Variable.Name)
		}
	}
	lstm := func(i string) [3]tensorData {
		cell := "lstm" + i + "/lstm_cell" + i
		return [3]tensorData{variable(t, m, cell+"/kernel"), variable(t, m, cell+"/recurrent_kernel"), variable(t, m, cell+"/bias")}
	}
	l1, l2 := lstm(""), lstm("_1")
	dk, db := variable(t, m, "dense/kernel"), variable(t, m, "dense/bias")

	// Exact Keras semantics (no cell clip) against the reference, frame by
	// frame with the state carried.
	exact := conversion(t, path, convert.Options{InputArrays: opts.InputArrays, OutputArrays: opts.OutputArrays, Registry: exactKeras(t)})
	runExact, runDefault := newRunner(t, exact.Model), newRunner(t, res.Model)
	h1, c1, h2, c2 := make([]float64, 128), make([]float64, 128), make([]float64, 128), make([]float64, 128)
	worst, worstDefault, maxC := 0.0, 0.0, 0.0
	var mags [][]float32
	var want [][]float64
	for _, fr := range dtlnAudioFrames() {
		mag := magnitude(fr)
		o1, mc1 := kerasLSTM(l1[0], l1[1], l1[2], [][]float64{mag}, h1, c1)
		o2, mc2 := kerasLSTM(l2[0], l2[1], l2[2], o1, h2, c2)
		mask := dense(dk, db, o2[0], sigmoid)
		maxC = math.Max(maxC, math.Max(mc1, mc2))
		worst = math.Max(worst, maxErr(t, runExact.run(f32s(mag))[0], mask))
		worstDefault = math.Max(worstDefault, maxErr(t, runDefault.run(f32s(mag))[0], mask))
		mags = append(mags, f32s(mag))
		want = append(want, mask)
	}
	t.Logf("stage 1, %d frames: max |error| %.3g without cell clip, %.3g with cell_clip 10 (max |c| %.3g)", dtlnFrames, worst, worstDefault, maxC)
	if worst > refTol {
		t.Errorf("stage 1 differs from the Keras reference by %g", worst)
	}
	if maxC < 10 && worstDefault > refTol {
		t.Errorf("stage 1 with cell_clip 10 differs by %g though |c| stays below 10", worstDefault)
	}

	// TensorFlow's own conversion of stage 1 (LSTMs unrolled, the state
	// an explicit input fed back by the caller).
	ref, err := os.ReadFile(shared(t, "savedmodels/dtln/model_1.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	tf := newRunner(t, ref)
	states := make([]float32, 2*128*2)
	worstTF := 0.0
	for f, mag := range mags {
		out := tf.run(mag, states)
		states = out[1]
		worstTF = math.Max(worstTF, maxErr(t, out[0], want[f]))
	}
	t.Logf("TensorFlow's model_1.tflite run by tflrun: max |error| %.3g against the same reference", worstTF)
	if worstTF > refTol {
		t.Errorf("model_1.tflite differs from the reference by %g", worstTF)
	}
}

func TestSavedModelDTLNStage2(t *testing.T) {
	path := shared(t, "savedmodels/dtln/dtln_saved_model")
	m := loadModel(t, path)
	opts := convert.Options{InputArrays: []string{"model/lambda_1/irfft"}, OutputArrays: []string{"model/conv1d_1/conv1d/Squeeze"}, Registry: exactKeras(t)}
	res := conversion(t, path, opts)
	if ops := opCounts(res); ops["UNIDIRECTIONAL_SEQUENCE_LSTM"] != 2 {
		t.Fatalf("operators %v, want two fused LSTMs", ops)
	}
	lstm := func(i string) [3]tensorData {
		cell := "lstm" + i + "/lstm_cell" + i
		return [3]tensorData{variable(t, m, cell+"/kernel"), variable(t, m, cell+"/recurrent_kernel"), variable(t, m, cell+"/bias")}
	}
	l3, l4 := lstm("_2"), lstm("_3")
	enc, dec := variable(t, m, "conv1d/kernel"), variable(t, m, "conv1d_1/kernel")
	gamma, beta := variable(t, m, "layer_normalization/gamma"), variable(t, m, "layer_normalization/beta")
	mk, mb := variable(t, m, "dense_1/kernel"), variable(t, m, "dense_1/bias")
	// A 1×1 Conv1D without bias is a matrix product with kernel [1, in, out].
	conv := func(K tensorData, x []float64) []float64 {
		nIn, nOut := K.shape[1], K.shape[2]
		out := make([]float64, nOut)
		for j := range out {
			for k := 0; k < nIn; k++ {
				out[j] += x[k] * K.v[k*nOut+j]
			}
		}
		return out
	}
	run := newRunner(t, res.Model)
	h3, c3, h4, c4 := make([]float64, 128), make([]float64, 128), make([]float64, 128), make([]float64, 128)
	worst, maxC := 0.0, 0.0
	var frames [][]float32
	var want [][]float64
	for _, fr := range dtlnAudioFrames() {
		e := conv(enc, fr)
		// DTLN's instant layer norm over the 256 features.
		mean, v := 0.0, 0.0
		for _, x := range e {
			mean += x
		}
		mean /= 256
		for _, x := range e {
			v += (x - mean) * (x - mean)
		}
		std := math.Sqrt(v/256 + 1e-14)
		n := make([]float64, 256)
		for i, x := range e {
			n[i] = (x-mean)/std*gamma.v[i] + beta.v[i]
		}
		o3, mc3 := kerasLSTM(l3[0], l3[1], l3[2], [][]float64{n}, h3, c3)
		o4, mc4 := kerasLSTM(l4[0], l4[1], l4[2], o3, h4, c4)
		mask := dense(mk, mb, o4[0], sigmoid)
		for i := range e {
			e[i] *= mask[i]
		}
		y := conv(dec, e)
		maxC = math.Max(maxC, math.Max(mc3, mc4))
		worst = math.Max(worst, maxErr(t, run.run(f32s(fr))[0], y))
		frames = append(frames, f32s(fr))
		want = append(want, y)
	}
	t.Logf("stage 2, %d frames: max |error| %.3g (max |c| %.3g)", dtlnFrames, worst, maxC)
	if worst > refTol {
		t.Errorf("stage 2 differs from the Keras reference by %g", worst)
	}
	ref, err := os.ReadFile(shared(t, "savedmodels/dtln/model_2.tflite"))
	if err != nil {
		t.Fatal(err)
	}
	tf := newRunner(t, ref)
	states := make([]float32, 2*128*2)
	worstTF := 0.0
	for f, x := range frames {
		out := tf.run(x, states)
		states = out[1]
		worstTF = math.Max(worstTF, maxErr(t, out[0], want[f]))
	}
	t.Logf("TensorFlow's model_2.tflite run by tflrun: max |error| %.3g against the same reference", worstTF)
	if worstTF > refTol {
		t.Errorf("model_2.tflite differs from the reference by %g", worstTF)
	}
}
