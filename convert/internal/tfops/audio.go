package tfops

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/schema"
)

// AudioSpectrogram and Mfcc, the audio front end of TensorFlow's speech
// examples (ARM's keyword-spotting graphs), have no TFLite builtin: TFLite
// runs them as the custom operators "AudioSpectrogram" and "Mfcc"
// (tflite/kernels/audio_spectrogram.cc, mfcc.cc, which its builtin
// resolver registers, as tflrun's runtime does), whose custom_options are
// a FlexBuffer map of the TensorFlow op's attributes, as TensorFlow's
// converter writes a custom op. DecodeWav before them stays unsupported:
// cut the graph after it (--input_arrays at its audio output).
func init() {
	ir.RegisterOp(ir.OpRecord{Name: "AudioSpectrogram", Outputs: "spectrogram:=float", MinInputs: 1, Infer: inferAudioSpectrogram, Legalize: rule(legalizeAudioSpectrogram)})
	ir.RegisterOp(ir.OpRecord{Name: "Mfcc", Outputs: "output:=float", MinInputs: 2, Infer: inferMfcc, Legalize: rule(legalizeMfcc)})
}

// maxAudioWindow bounds window_size (TFLite's FFT length is the power of
// two at least window_size; tflrun's kernel takes up to 2²⁰).
const maxAudioWindow = 1 << 20

// spectrogramArgs reads window_size, stride and magnitude_squared.
func spectrogramArgs(n *ir.Node) (window, stride int, squared bool, err error) {
	w, err := n.AttrInt("window_size", 0)
	if err != nil {
		return 0, 0, false, err
	}
	s, err := n.AttrInt("stride", 0)
	if err != nil {
		return 0, 0, false, err
	}
	if squared, err = n.AttrBool("magnitude_squared", false); err != nil {
		return 0, 0, false, err
	}
	if w < 2 || w > maxAudioWindow {
		return 0, 0, false, fmt.Errorf("window_size %d is not in [2, %d]", w, maxAudioWindow)
	}
	if s < 1 || s > 1<<30 {
		return 0, 0, false, fmt.Errorf("stride %d is not in [1, 2³⁰]", s)
	}
	return int(w), int(s), squared, nil
}

func inferAudioSpectrogram(n *ir.Node) error {
	window, stride, _, err := spectrogramArgs(n)
	if err != nil {
		return err
	}
	x := n.Inputs[0].Shape
	if x == nil {
		setOut(n, 0, ir.Float32, ir.Shape{-1, -1, -1})
		return nil
	}
	if len(x) != 2 {
		return fmt.Errorf("input must be 2-D [samples, channels], has shape %s", x)
	}
	fft := 1
	for fft < window {
		fft <<= 1
	}
	frames := -1
	if x[0] >= 0 {
		frames = 0
		if x[0] >= window {
			frames = 1 + (x[0]-window)/stride
		}
	}
	setOut(n, 0, ir.Float32, ir.Shape{x[1], frames, fft/2 + 1})
	return nil
}

func inferMfcc(n *ir.Node) error {
	coefs, err := n.AttrInt("dct_coefficient_count", 13)
	if err != nil {
		return err
	}
	if coefs < 1 || coefs > 1<<16 {
		return fmt.Errorf("dct_coefficient_count %d is not in [1, 65536]", coefs)
	}
	x := n.Inputs[0].Shape
	if x == nil {
		setOut(n, 0, ir.Float32, ir.Shape{-1, -1, int(coefs)})
		return nil
	}
	if len(x) != 3 {
		return fmt.Errorf("spectrogram must be 3-D [channels, frames, bins], has shape %s", x)
	}
	setOut(n, 0, ir.Float32, ir.Shape{x[0], x[1], int(coefs)})
	return nil
}

// customOptions finishes a FlexBuffer map written by fill.
func customOptions(fill func(b *flexbuffers.Builder)) ([]byte, error) {
	var b flexbuffers.Builder
	m := b.StartMap()
	fill(&b)
	b.EndMap(m)
	return b.Finish()
}

// emitCustom adds a custom operator (version 1) named after the node and
// points the node's users at it.
func (c *ctx) emitCustom(name string, opts []byte, inputs ...*ir.Value) {
	c.replace(c.f.NewTFL(c.n.Name, &ir.TFLOp{Builtin: schema.BuiltinOperatorCUSTOM, Custom: name, Version: 1, CustomOptions: opts}, inputs, c.outs()...))
}

// legalizeAudioSpectrogram: the custom AudioSpectrogram with window_size,
// stride and magnitude_squared.
func legalizeAudioSpectrogram(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	if x.DType != ir.Float32 {
		return fmt.Errorf("AudioSpectrogram of %s is not supported (float32 audio)", x.DType)
	}
	if _, err := static(x); err != nil {
		return err
	}
	window, stride, squared, err := spectrogramArgs(c.n)
	if err != nil {
		return err
	}
	opts, err := customOptions(func(b *flexbuffers.Builder) {
		b.Key("window_size")
		b.Int(int64(window))
		b.Key("stride")
		b.Int(int64(stride))
		b.Key("magnitude_squared")
		b.Bool(squared)
	})
	if err != nil {
		return err
	}
	c.emitCustom("AudioSpectrogram", opts, x)
	return nil
}

// legalizeMfcc: the custom Mfcc with its four attributes. TFLite's kernel
// reads the frequency limits as integers, so a limit with a fraction is
// refused rather than silently truncated.
func legalizeMfcc(c *ctx) error {
	spec, err := c.in(0)
	if err != nil {
		return err
	}
	rate, err := c.in(1)
	if err != nil {
		return err
	}
	if spec.DType != ir.Float32 || rate.DType != ir.Int32 {
		return fmt.Errorf("Mfcc of %s with a %s sample rate is not supported (float32 spectrogram, int32 rate)", spec.DType, rate.DType)
	}
	if _, err := static(spec); err != nil {
		return err
	}
	var ints [4]int64
	for i, a := range []struct {
		name string
		def  float32
	}{{"upper_frequency_limit", 4000}, {"lower_frequency_limit", 20}} {
		f, err := c.n.AttrFloat(a.name, a.def)
		if err != nil {
			return err
		}
		if f != float32(math.Trunc(float64(f))) || f < 0 || f > 1<<30 {
			return fmt.Errorf("%s %v is not a whole number of hertz (TFLite's Mfcc reads it as an integer)", a.name, f)
		}
		ints[i] = int64(f)
	}
	for i, a := range []struct {
		name string
		def  int64
	}{{"filterbank_channel_count", 40}, {"dct_coefficient_count", 13}} {
		v, err := c.n.AttrInt(a.name, a.def)
		if err != nil {
			return err
		}
		ints[2+i] = v
	}
	opts, err := customOptions(func(b *flexbuffers.Builder) {
		for i, k := range []string{"upper_frequency_limit", "lower_frequency_limit", "filterbank_channel_count", "dct_coefficient_count"} {
			b.Key(k)
			b.Int(ints[i])
		}
	})
	if err != nil {
		return err
	}
	c.emitCustom("Mfcc", opts, spec, rate)
	return nil
}
