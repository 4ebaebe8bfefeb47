package signal_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/wav"
)

// The end-to-end checks of TensorFlow Lite Micro's micro_speech example
// (tensorflow/lite/micro/examples/micro_speech/micro_speech_test.cc):
// its int8 audio preprocessor, built from Signal operators, turns 30 ms
// windows of 16 kHz audio into 40 int8 features; 49 windows 20 ms apart
// make the input of micro_speech_quantized.tflite, which must name the
// word. The wav files come from TFLite Micro's tree (tflmEnv), the models
// from ../shared.

const (
	preprocessorPath = "models/micro_speech/audio_preprocessor_int8.tflite"
	speechModelPath  = "models/micro_speech/micro_speech_quantized.tflite"
	speechTestdata   = "tensorflow/lite/micro/examples/micro_speech/testdata/"
	floatPreprocPath = "tensorflow/lite/micro/examples/micro_speech/models/audio_preprocessor_float.tflite"
	windowSamples    = 480 // kFeatureDurationMs·16
	strideSamples    = 320 // kFeatureStrideMs·16
	featureSize      = 40
	featureCount     = 49
)

// sharedDir is the project's shared data, ../shared of the repository,
// or the folder TFLRUN_SHARED names (for a worktree placed elsewhere).
func sharedDir() string {
	if d := os.Getenv("TFLRUN_SHARED"); d != "" {
		return d
	}
	return "../../../shared"
}

var categories = []string{"silence", "unknown", "yes", "no"}

// Expected features of the first window, from micro_speech_test.cc
// (NoFeatureTest, YesFeatureTest; exact on non-Xtensa builds).
var (
	noFeatures = []int8{
		126, 103, 124, 102, 124, 102, 123, 100, 118, 97, 118, 100, 118, 98,
		121, 100, 121, 98, 117, 91, 96, 74, 54, 87, 100, 87, 109, 92,
		91, 80, 64, 55, 83, 74, 74, 78, 114, 95, 101, 81,
	}
	yesFeatures = []int8{
		124, 105, 126, 103, 125, 101, 123, 100, 116, 98, 115, 97, 113, 90,
		91, 82, 104, 96, 117, 97, 121, 103, 126, 101, 125, 104, 126, 104,
		125, 101, 116, 90, 81, 74, 80, 71, 83, 76, 82, 71,
	}
)

func loadInterpreter(t *testing.T, path string, data []byte) *interpreter.Interpreter {
	t.Helper()
	var m *interpreter.Model
	var err error
	if data != nil {
		m, err = interpreter.LoadBytes(data)
	} else {
		path = filepath.Join(sharedDir(), path)
		if _, serr := os.Stat(path); serr != nil {
			t.Skipf("model %s not found", path)
		}
		m, err = interpreter.Load(path)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	it, err := interpreter.New(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { it.Close() })
	if err := it.AllocateTensors(); err != nil {
		t.Fatal(err)
	}
	return it
}

// samples reads a 16 kHz mono 16-bit wav of TFLite Micro's testdata.
func samples(t *testing.T, name string) []int16 {
	t.Helper()
	a, err := wav.Decode(bytes.NewReader(tflmFile(t, speechTestdata+name)), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if a.SampleRate != 16000 || a.Channels != 1 || a.BitsPerSample != 16 {
		t.Fatalf("%s: %d Hz, %d channels, %d bits; want 16 kHz mono 16-bit", name, a.SampleRate, a.Channels, a.BitsPerSample)
	}
	s := make([]int16, a.Frames)
	for i := range s {
		s[i] = int16(uint16(a.Data[2*i]) | uint16(a.Data[2*i+1])<<8)
	}
	return s
}

// features runs the preprocessor over the windows of audio as
// GenerateFeatures does: one interpreter, its state carried from window to
// window, at most featureCount windows.
func features(t *testing.T, it *interpreter.Interpreter, audio []int16) [][]int8 {
	t.Helper()
	var out [][]int8
	for len(audio) >= windowSamples && len(out) < featureCount {
		copy(it.Input(0).Int16s(), audio[:windowSamples])
		if err := it.Invoke(); err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]int8(nil), it.Output(0).Int8s()...))
		audio = audio[strideSamples:]
	}
	return out
}

func TestMicroSpeechFeatures(t *testing.T) {
	it := loadInterpreter(t, preprocessorPath, nil)
	for _, c := range []struct {
		wav  string
		want []int8
	}{{"no_30ms.wav", noFeatures}, {"yes_30ms.wav", yesFeatures}} {
		t.Run(c.wav, func(t *testing.T) {
			if err := it.ResetVariableTensors(); err != nil { // a fresh interpreter's state
				t.Fatal(err)
			}
			f := features(t, it, samples(t, c.wav))
			if len(f) != 1 {
				t.Fatalf("%d windows, want 1", len(f))
			}
			for i := range c.want {
				if f[0][i] != c.want[i] {
					t.Fatalf("features %v\nwant     %v", f[0], c.want)
				}
			}
		})
	}
}

func TestMicroSpeechWords(t *testing.T) {
	pre := loadInterpreter(t, preprocessorPath, nil)
	speech := loadInterpreter(t, speechModelPath, nil)
	for _, c := range []struct{ wav, want string }{
		{"yes_1000ms.wav", "yes"}, {"no_1000ms.wav", "no"},
		{"silence_1000ms.wav", "silence"}, {"noise_1000ms.wav", "silence"},
	} {
		t.Run(c.wav, func(t *testing.T) {
			if err := pre.ResetVariableTensors(); err != nil {
				t.Fatal(err)
			}
			f := features(t, pre, samples(t, c.wav))
			if len(f) != featureCount {
				t.Fatalf("%d windows, want %d", len(f), featureCount)
			}
			in := speech.Input(0).Int8s()
			if len(in) != featureCount*featureSize {
				t.Fatalf("speech model input has %d values", len(in))
			}
			for i, row := range f {
				copy(in[i*featureSize:], row)
			}
			if err := speech.Invoke(); err != nil {
				t.Fatal(err)
			}
			out := speech.Output(0)
			scale, zp := out.Scale(), out.ZeroPoint()
			best, bestP := 0, float32(math.Inf(-1))
			probs := make([]float32, len(categories))
			for i, q := range out.Int8s() {
				probs[i] = float32(int32(q)-zp) * scale
				if probs[i] > bestP {
					best, bestP = i, probs[i]
				}
			}
			t.Logf("%s: %v %v", c.wav, categories, probs)
			if categories[best] != c.want {
				t.Fatalf("%s: recognised %q (%v), want %q", c.wav, categories[best], probs, c.want)
			}
		})
	}
}

// TestMicroSpeechFloatPreprocessor runs TFLite Micro's float
// preprocessor (the same Signal chain, whose int16 log features are
// divided by 25.6 instead of mapped to int8) on the frames of
// yes_1000ms.wav next to the int8 one. Each float feature must be an
// int16 feature v over 25.6, and the int8 feature what
// audio_preprocessor.py makes of the same v: clamp((v·256 + 333)/666 −
// 128) with truncating division.
func TestMicroSpeechFloatPreprocessor(t *testing.T) {
	pre := loadInterpreter(t, preprocessorPath, nil)
	flt := loadInterpreter(t, "", tflmFile(t, floatPreprocPath))
	audio := samples(t, "yes_1000ms.wav")
	var worst float64
	for w := 0; w < featureCount; w++ {
		frame := audio[w*strideSamples : w*strideSamples+windowSamples]
		copy(pre.Input(0).Int16s(), frame)
		copy(flt.Input(0).Int16s(), frame)
		if err := pre.Invoke(); err != nil {
			t.Fatal(err)
		}
		if err := flt.Invoke(); err != nil {
			t.Fatal(err)
		}
		for i, q := range pre.Output(0).Int8s() {
			f := float64(flt.Output(0).Float32s()[i])
			v := math.Round(f * 25.6)
			worst = math.Max(worst, math.Abs(f-v/25.6))
			want := math.Trunc((v*256+333)/666) - 128
			want = math.Max(-128, math.Min(127, want))
			if float64(q) != want {
				t.Fatalf("window %d feature %d: int8 %d, float %g (int16 %g → int8 %g)", w, i, q, f, v, want)
			}
		}
	}
	if worst > 1e-5 {
		t.Fatalf("float features are not int16 values over 25.6: off by %g", worst)
	}
}

// TestMicroSpeechWordsFloat is evaluate_test.py's
// testModelAccuracyWithFloatFeatures: the float preprocessor's features,
// quantised as its quantize_input_data does (f/scale + zero point,
// truncated; clamped here to int8, where numpy's cast is unspecified),
// make micro_speech_quantized.tflite name each clip.
func TestMicroSpeechWordsFloat(t *testing.T) {
	flt := loadInterpreter(t, "", tflmFile(t, floatPreprocPath))
	speech := loadInterpreter(t, speechModelPath, nil)
	in := speech.Input(0)
	scale, zp := float64(in.Scale()), float64(in.ZeroPoint())
	for _, c := range []struct{ wav, want string }{
		{"no_1000ms.wav", "no"}, {"yes_1000ms.wav", "yes"},
		{"noise_1000ms.wav", "silence"}, {"silence_1000ms.wav", "silence"},
	} {
		t.Run(c.wav, func(t *testing.T) {
			if err := flt.ResetVariableTensors(); err != nil { // generate_features resets the noise estimate
				t.Fatal(err)
			}
			audio := samples(t, c.wav)
			q := in.Int8s()
			for w := 0; w < featureCount; w++ {
				copy(flt.Input(0).Int16s(), audio[w*strideSamples:w*strideSamples+windowSamples])
				if err := flt.Invoke(); err != nil {
					t.Fatal(err)
				}
				for i, f := range flt.Output(0).Float32s() {
					v := math.Trunc(float64(f)/scale + zp)
					q[w*featureSize+i] = int8(math.Max(-128, math.Min(127, v)))
				}
			}
			if err := speech.Invoke(); err != nil {
				t.Fatal(err)
			}
			out := speech.Output(0)
			best := 0
			for i, v := range out.Int8s() {
				if v > out.Int8s()[best] {
					best = i
				}
			}
			if categories[best] != c.want {
				t.Fatalf("%s: recognised %q (%v), want %q", c.wav, categories[best], out.Int8s(), c.want)
			}
		})
	}
}
