package builtin_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Golden cases of the AudioSpectrogram and Mfcc custom operators: power of
// two and other windows, strides shorter and longer than the window,
// several channels, magnitudes and powers, no frame at all; MFCC with
// constant and run-time sample rates, TensorFlow's default parameters and
// others, an upper limit past Nyquist (output 0), and the two chained as
// in TensorFlow's speech front end.

func intMap(kv ...any) []byte {
	var b flexbuffers.Builder
	m := b.StartMap()
	for i := 0; i < len(kv); i += 2 {
		b.Key(kv[i].(string))
		switch v := kv[i+1].(type) {
		case int:
			b.Int(int64(v))
		case bool:
			b.Bool(v)
		}
	}
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return buf
}

func spectrogramShape(samples, chans, window, stride int32) []int32 {
	fft := int32(1)
	for fft < window {
		fft *= 2
	}
	frames := int32(0)
	if samples >= window {
		frames = 1 + (samples-window)/stride
	}
	return []int32{chans, frames, fft/2 + 1}
}

func spectrogramModel(samples, chans, window, stride int32, squared bool) []byte {
	b := optest.NewBuilder()
	x := b.Tensor("audio", schema.TensorTypeFLOAT32, []int32{samples, chans}, nil)
	y := b.Tensor("spectrogram", schema.TensorTypeFLOAT32, spectrogramShape(samples, chans, window, stride), nil)
	b.Custom("AudioSpectrogram", []int32{x}, []int32{y}, intMap("window_size", int(window), "stride", int(stride), "magnitude_squared", squared))
	b.Inputs(x)
	b.Outputs(y)
	return b.Bytes()
}

// mfccModel is Mfcc over a [1, frames, bins] spectrogram; rate 0 makes
// the rate a model input (fed 16000 by mfccGen).
func mfccModel(frames, bins, rate int32, upper, lower, channels, coefs int) []byte {
	b := optest.NewBuilder()
	spec := b.Tensor("spectrogram", schema.TensorTypeFLOAT32, []int32{1, frames, bins}, nil)
	var r int32
	ins := []int32{spec}
	if rate > 0 {
		r = b.Const("sample_rate", schema.TensorTypeINT32, []int32{}, nil, optest.I32(rate))
	} else {
		r = b.Tensor("sample_rate", schema.TensorTypeINT32, []int32{1}, nil)
		ins = append(ins, r)
	}
	y := b.Tensor("mfcc", schema.TensorTypeFLOAT32, []int32{1, frames, int32(coefs)}, nil)
	b.Custom("Mfcc", []int32{spec, r}, []int32{y}, intMap("upper_frequency_limit", upper, "lower_frequency_limit", lower,
		"filterbank_channel_count", channels, "dct_coefficient_count", coefs))
	b.Inputs(ins...)
	b.Outputs(y)
	return b.Bytes()
}

// frontEndModel is AudioSpectrogram (squared) then Mfcc, as TensorFlow's
// speech commands front end.
func frontEndModel(samples, window, stride, rate int32) []byte {
	b := optest.NewBuilder()
	x := b.Tensor("audio", schema.TensorTypeFLOAT32, []int32{samples, 1}, nil)
	shape := spectrogramShape(samples, 1, window, stride)
	s := b.Tensor("spectrogram", schema.TensorTypeFLOAT32, shape, nil)
	b.Custom("AudioSpectrogram", []int32{x}, []int32{s}, intMap("window_size", int(window), "stride", int(stride), "magnitude_squared", true))
	r := b.Const("sample_rate", schema.TensorTypeINT32, []int32{}, nil, optest.I32(rate))
	y := b.Tensor("mfcc", schema.TensorTypeFLOAT32, []int32{1, shape[1], 13}, nil)
	b.Custom("Mfcc", []int32{s, r}, []int32{y}, intMap("upper_frequency_limit", 4000, "lower_frequency_limit", 20,
		"filterbank_channel_count", 40, "dct_coefficient_count", 13))
	b.Inputs(x)
	b.Outputs(s, y)
	return b.Bytes()
}

// mfccGen draws spectrogram powers in [0, 20) (a few exactly 0, which the
// floor catches) and feeds 16000 Hz as a run-time rate.
func mfccGen(r *rand.Rand, input int, _ ops.DataType) float64 {
	if input == 1 {
		return 16000
	}
	if r.IntN(20) == 0 {
		return 0
	}
	return 20 * r.Float64()
}

func spectrogramCases() []goldenModel {
	return []goldenModel{
		{variant: "w16_s8", model: spectrogramModel(100, 1, 16, 8, true)},
		{variant: "w25_s10_magnitude", model: spectrogramModel(200, 2, 25, 10, false)},
		{variant: "w32_s40", model: spectrogramModel(150, 1, 32, 40, true)},
		{variant: "w400_s160", model: spectrogramModel(1600, 1, 400, 160, false), runs: 2},
		{variant: "w3_s1_channels", model: spectrogramModel(12, 3, 3, 1, true)},
		{variant: "no_frame", model: spectrogramModel(10, 1, 16, 4, true), runs: 1},
	}
}

func mfccCases() []goldenModel {
	return []goldenModel{
		{variant: "default_257_bins", model: mfccModel(3, 257, 16000, 4000, 20, 40, 13), gen: mfccGen},
		{variant: "runtime_rate", model: mfccModel(2, 129, 0, 4000, 20, 40, 13), gen: mfccGen},
		{variant: "20_channels_20_coefs", model: mfccModel(2, 65, 8000, 3800, 100, 20, 20), gen: mfccGen},
		{variant: "wide_band", model: mfccModel(2, 513, 44100, 16000, 0, 64, 30), gen: mfccGen},
		{variant: "past_nyquist", model: mfccModel(2, 33, 8000, 4500, 20, 10, 5), gen: mfccGen, runs: 1},
		{variant: "front_end", model: frontEndModel(1000, 240, 80, 16000)},
	}
}

func TestRecordAudioSpectrogram(t *testing.T) {
	recordGoldenFrom(t, "audio_spectrogram", spectrogramCases(), 7)
}
func TestRecordMfcc(t *testing.T)             { recordGoldenFrom(t, "mfcc", mfccCases(), 7) }
func TestGoldenAudioSpectrogram(t *testing.T) { checkGolden(t, "audio_spectrogram") }
func TestGoldenMfcc(t *testing.T)             { checkGolden(t, "mfcc") }
