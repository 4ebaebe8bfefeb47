package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// Tests of the AudioSpectrogram and Mfcc custom operators: TFLite's kernel
// test vectors (audio_spectrogram_test.cc, mfcc_test.cc), the spectrogram
// against a direct DFT, and the options and nodes TFLite refuses.

func spectrogramOpts(t *testing.T, window, stride int64, squared bool) []byte {
	t.Helper()
	var b flexbuffers.Builder
	m := b.StartMap()
	b.Key("window_size")
	b.Int(window)
	b.Key("stride")
	b.Int(stride)
	b.Key("magnitude_squared")
	b.Bool(squared)
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

func spectrogramNode(in *ops.Tensor, opts []byte) *ops.Node {
	n := node(nil, []*ops.Tensor{in}, outTensor(ops.Float32))
	n.CustomOptions, n.OpName = opts, AudioSpectrogramName
	return n
}

func TestAudioSpectrogramTFLiteVectors(t *testing.T) {
	wave := []float32{-1, 0, 1, 0, -1, 0, 1, 0, 1, 0}
	for _, c := range []struct {
		name           string
		samples        int
		window, stride int64
		squared        bool
		shape          []int
		want           []float32
	}{
		{"NonSquared", 8, 8, 1, false, []int{1, 1, 5}, []float32{0, 1, 2, 1, 0}},
		{"Squared", 8, 8, 1, true, []int{1, 1, 5}, []float32{0, 1, 4, 1, 0}},
		{"Stride", 10, 8, 2, true, []int{1, 2, 5}, []float32{0, 1, 4, 1, 0, 1, 2, 1, 2, 1}},
	} {
		n := spectrogramNode(tensorOf(ops.Float32, []int{c.samples, 1}, wave[:c.samples]), spectrogramOpts(t, c.window, c.stride, c.squared))
		k := NewAudioSpectrogram()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, c.shape)
		near(t, c.name, n.Outputs[0].Float32s(), c.want, 1e-3)
		noAllocs(t, k, n)
	}
}

// TestAudioSpectrogramDefinition compares against the direct DFT of each
// Hann-windowed, zero-padded frame, on several channels.
func TestAudioSpectrogramDefinition(t *testing.T) {
	r := lcg(11)
	for trial := 0; trial < 20; trial++ {
		window, stride := r.intn(2, 40), r.intn(1, 20)
		samples, chans := r.intn(1, 120), r.intn(1, 3)
		squared := trial%2 == 0
		x := make([]float32, samples*chans)
		for i := range x {
			x[i] = r.float(-1, 1)
		}
		n := spectrogramNode(tensorOf(ops.Float32, []int{samples, chans}, x), spectrogramOpts(t, int64(window), int64(stride), squared))
		k := NewAudioSpectrogram()
		run(t, k, n)
		fftLen := 1
		for fftLen < window {
			fftLen *= 2
		}
		frames := 0
		if samples >= window {
			frames = 1 + (samples-window)/stride
		}
		bins := fftLen/2 + 1
		wantShape(t, n.Outputs[0].Shape, []int{chans, frames, bins})
		got := n.Outputs[0].Float32s()
		for c := 0; c < chans; c++ {
			for f := 0; f < frames; f++ {
				for b := 0; b < bins; b++ {
					var re, im float64
					for j := 0; j < window; j++ {
						w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(j)/float64(window))
						v := float64(x[(f*stride+j)*chans+c]) * w
						re += v * math.Cos(2*math.Pi*float64(j*b)/float64(fftLen))
						im -= v * math.Sin(2*math.Pi*float64(j*b)/float64(fftLen))
					}
					want := re*re + im*im
					if !squared {
						want = math.Sqrt(want)
					}
					if g := got[(c*frames+f)*bins+b]; math.Abs(float64(g)-want) > 1e-5*(1+want) {
						t.Fatalf("window %d stride %d: channel %d frame %d bin %d: %v, want %v", window, stride, c, f, b, g, want)
					}
				}
			}
		}
		if frames > 0 {
			noAllocs(t, k, n)
		}
	}
}

func TestAudioSpectrogramErrors(t *testing.T) {
	in := tensorOf(ops.Float32, []int{16, 1}, make([]float32, 16))
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"no options", spectrogramNode(in, nil), []string{"custom_options are missing"}},
		{"window 1", spectrogramNode(in, spectrogramOpts(t, 1, 1, true)), []string{"window_size 1"}},
		{"stride 0", spectrogramNode(in, spectrogramOpts(t, 8, 0, true)), []string{"stride 0"}},
		{"huge window", spectrogramNode(in, spectrogramOpts(t, 1<<30, 1, true)), []string{"window_size", "exceeds"}},
		{"rank 1", spectrogramNode(tensorOf(ops.Float32, []int{16}, make([]float32, 16)), spectrogramOpts(t, 8, 1, true)), []string{"[samples, channels]"}},
		{"int input", spectrogramNode(tensorOf(ops.Int16, []int{16, 1}, make([]int16, 16)), spectrogramOpts(t, 8, 1, true)), []string{"input 0", "int16"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewAudioSpectrogram(), c.n, c.wants...) })
	}
	// A window longer than the input gives no frame, and no tables.
	n := spectrogramNode(in, spectrogramOpts(t, 1<<20, 1, true))
	k := NewAudioSpectrogram()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{1, 0, 1<<19 + 1})
}

func mfccOpts(t *testing.T, upper, lower, channels, coefs int64) []byte {
	t.Helper()
	var b flexbuffers.Builder
	m := b.StartMap()
	for _, kv := range []struct {
		k string
		v int64
	}{{"upper_frequency_limit", upper}, {"lower_frequency_limit", lower}, {"filterbank_channel_count", channels}, {"dct_coefficient_count", coefs}} {
		b.Key(kv.k)
		b.Int(kv.v)
	}
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

func mfccNode(spec, rate *ops.Tensor, opts []byte) *ops.Node {
	n := node(nil, []*ops.Tensor{spec, rate}, outTensor(ops.Float32))
	n.CustomOptions, n.OpName = opts, MfccName
	return n
}

func TestMfccTFLiteVectors(t *testing.T) {
	data := make([]float32, 513)
	for i := range data {
		data[i] = float32(i + 1)
	}
	want := []float32{29.13970072, -6.41568601, -0.61903012, -0.96778652, -0.26819878,
		-0.40907028, -0.15614748, -0.23203119, -0.10481487, -0.1543029,
		-0.0769791, -0.10806114, -0.06047613}
	for _, rate := range []*ops.Tensor{
		tensorOf(ops.Int32, []int{1}, []int32{22050}),
		constT(tensorOf(ops.Int32, []int{}, []int32{22050})),
	} {
		n := mfccNode(tensorOf(ops.Float32, []int{1, 1, 513}, data), rate, mfccOpts(t, 4000, 20, 40, 13))
		k := NewMfcc()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, []int{1, 1, 13})
		near(t, "mfcc", n.Outputs[0].Float32s(), want, 1e-3)
		noAllocs(t, k, n)
	}
	// An upper limit past the spectrogram's top bin: TFLite's filterbank
	// computes nothing and the coefficients are 0.
	n := mfccNode(tensorOf(ops.Float32, []int{1, 1, 513}, data), c32(8000), mfccOpts(t, 5000, 20, 40, 13))
	run(t, NewMfcc(), n)
	near(t, "past Nyquist", n.Outputs[0].Float32s(), make([]float32, 13), 0)
}

func TestMfccErrors(t *testing.T) {
	spec := tensorOf(ops.Float32, []int{1, 2, 33}, make([]float32, 66))
	rate := c32(16000)
	for _, c := range []struct {
		name  string
		n     *ops.Node
		wants []string
	}{
		{"no options", mfccNode(spec, rate, nil), []string{"custom_options are missing"}},
		{"no channels", mfccNode(spec, rate, mfccOpts(t, 4000, 20, 0, 13)), []string{"filterbank_channel_count 0"}},
		{"no coefs", mfccNode(spec, rate, mfccOpts(t, 4000, 20, 40, 0)), []string{"dct_coefficient_count 0"}},
		{"more coefs", mfccNode(spec, rate, mfccOpts(t, 4000, 20, 10, 13)), []string{"exceeds filterbank_channel_count"}},
		{"negative lower", mfccNode(spec, rate, mfccOpts(t, 4000, -1, 40, 13)), []string{"lower_frequency_limit"}},
		{"limits order", mfccNode(spec, rate, mfccOpts(t, 20, 20, 40, 13)), []string{"upper_frequency_limit"}},
		{"huge tables", mfccNode(spec, rate, mfccOpts(t, 4000, 20, 1<<20, 13)), []string{"limits"}},
		{"one bin", mfccNode(tensorOf(ops.Float32, []int{1, 1, 1}, []float32{1}), rate, mfccOpts(t, 4000, 20, 40, 13)), []string{"bins"}},
		{"zero rate", mfccNode(spec, c32(0), mfccOpts(t, 4000, 20, 40, 13)), []string{"sample rate"}},
		{"rate type", mfccNode(spec, constT(tensorOf(ops.Float32, []int{1}, []float32{16000})), mfccOpts(t, 4000, 20, 40, 13)), []string{"input 1", "float32"}},
		{"rate size", mfccNode(spec, c32(16000, 8000), mfccOpts(t, 4000, 20, 40, 13)), []string{"input 1", "one element"}},
		{"rank 2", mfccNode(tensorOf(ops.Float32, []int{2, 33}, make([]float32, 66)), rate, mfccOpts(t, 4000, 20, 40, 13)), []string{"input 0"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPrepareError(t, NewMfcc(), c.n, c.wants...) })
	}
	// A run-time rate is checked at Eval, as TFLite does.
	n := mfccNode(spec, tensorOf(ops.Int32, []int{1}, []int32{-5}), mfccOpts(t, 4000, 20, 40, 13))
	k := NewMfcc()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if err := k.Eval(n); err == nil {
		t.Error("negative run-time rate accepted")
	}
}
