package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/ops"
)

// AudioSpectrogramName is the custom operator name of TFLite's
// AudioSpectrogram (audio_spectrogram.cc, TensorFlow's AudioSpectrogram
// op), which TFLite's BuiltinOpResolver registers.
const AudioSpectrogramName = "AudioSpectrogram"

// AudioSpectrogram is the kernel of TFLite's AudioSpectrogram custom
// operator: the short-time Fourier transform power of each channel of an
// audio signal.
//
// Input 0 is float32 [samples, channels]; output 0 is float32 [channels,
// frames, fft_length/2+1] with frames = 1 + (samples − window_size)/stride
// (0 when samples < window_size) and fft_length the power of two at least
// window_size. Frame f of channel c takes the samples f·stride …
// f·stride+window_size−1, weights them with a periodic Hann window
// (½ − ½·cos(2πj/window_size)), zero-pads them to fft_length and
// transforms them; each output value is re²+im² of one bin, or its square
// root unless magnitude_squared. As TFLite (internal/spectrogram.cc), the
// windowing and the transform are float64 and the power is rounded to
// float32 before the square root.
//
// Options (custom_options, a FlexBuffer map): window_size (≥ 2), stride
// (≥ 1), magnitude_squared.
type AudioSpectrogram struct {
	window, stride   int
	squared          bool
	samples, chans   int
	frames, bins     int
	fftLen           int
	hann             []float64
	f                *realFFT
	x, zr, zi, spec  []float64 // one windowed frame, scratch, its bins
	prepared, noWork bool
}

// NewAudioSpectrogram returns an AudioSpectrogram kernel for one node.
func NewAudioSpectrogram() ops.Kernel { return &AudioSpectrogram{} }

func init() { registerCustom(AudioSpectrogramName, NewAudioSpectrogram) }

// customMap reads a custom operator's FlexBuffer options map.
func customMap(n *ops.Node) (flexbuffers.Map, error) {
	if len(n.CustomOptions) == 0 {
		return flexbuffers.Map{}, fmt.Errorf("custom_options are missing (%s reads its parameters from a FlexBuffer map)", n.OpName)
	}
	m, err := flexbuffers.RootMap(n.CustomOptions)
	if err != nil {
		return flexbuffers.Map{}, fmt.Errorf("custom_options: %v", err)
	}
	return m, nil
}

// Prepare decodes the options, validates the node and sets the output
// shape; it builds the window and transform tables when there is a frame
// to compute.
func (k *AudioSpectrogram) Prepare(n *ops.Node) error {
	*k = AudioSpectrogram{}
	m, err := customMap(n)
	if err != nil {
		return err
	}
	// TFLite keeps both in an int, truncating the int64 it reads.
	w, err := m.Int("window_size")
	if err != nil {
		return fmt.Errorf("custom_options: %v", err)
	}
	s, err := m.Int("stride")
	if err != nil {
		return fmt.Errorf("custom_options: %v", err)
	}
	if k.squared, err = m.Bool("magnitude_squared"); err != nil {
		return fmt.Errorf("custom_options: %v", err)
	}
	k.window, k.stride = int(int32(w)), int(int32(s))
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if in.Rank() != 2 {
		return fmt.Errorf("input 0: shape %v, need [samples, channels]", in.Shape)
	}
	if err := requireType(out, "output 0", ops.Float32); err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32); err != nil {
		return err
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	// TFLite's Spectrogram::Initialize refuses these.
	if k.window < 2 {
		return fmt.Errorf("options: window_size %d, need at least 2", k.window)
	}
	if k.stride < 1 {
		return fmt.Errorf("options: stride %d, need at least 1", k.stride)
	}
	if k.window > maxFFTLength {
		return fmt.Errorf("options: window_size %d exceeds %d", k.window, maxFFTLength)
	}
	k.fftLen = 1
	for k.fftLen < k.window {
		k.fftLen <<= 1
	}
	k.bins = k.fftLen/2 + 1
	k.samples, k.chans = in.Shape[0], in.Shape[1]
	if k.samples >= k.window {
		k.frames = 1 + (k.samples-k.window)/k.stride
	}
	shape := []int{k.chans, k.frames, k.bins}
	if _, err := ops.ShapeElements(shape, 4); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	k.prepared = true
	if k.frames == 0 || k.chans == 0 {
		// No frame to compute: the tables (as large as the window) are
		// not needed, and the window may exceed the input by far.
		k.noWork = true
		return nil
	}
	k.hann = make([]float64, k.window)
	for j := range k.hann {
		// The conversion keeps the product from being fused into the
		// subtraction.
		k.hann[j] = 0.5 - float64(0.5*math.Cos(2.0*math.Pi*float64(j)/float64(k.window)))
	}
	if k.f, err = newRealFFT(k.fftLen); err != nil {
		return fmt.Errorf("options: window_size %d: %v", k.window, err)
	}
	k.x, k.spec = make([]float64, k.fftLen), make([]float64, 2*k.bins)
	k.zr, k.zi = make([]float64, k.fftLen/2), make([]float64, k.fftLen/2)
	return nil
}

// Eval computes every frame of every channel.
func (k *AudioSpectrogram) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if !k.prepared || in == nil || out == nil {
		return errors.New("AudioSpectrogram: Eval before a successful Prepare")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	if k.noWork {
		return nil
	}
	x, y := in.Float32s(), out.Float32s()
	frame, spec := k.x, k.spec
	for c := 0; c < k.chans; c++ {
		for f := 0; f < k.frames; f++ {
			start := f * k.stride
			for j := 0; j < k.window; j++ {
				frame[j] = float64(x[(start+j)*k.chans+c]) * k.hann[j]
			}
			clear(frame[k.window:])
			k.f.transform(frame, k.zr, k.zi, spec)
			row := y[(c*k.frames+f)*k.bins : (c*k.frames+f+1)*k.bins]
			for i := range row {
				re, im := spec[2*i], spec[2*i+1]
				p := float32(float64(re*re) + float64(im*im))
				if !k.squared {
					p = float32(math.Sqrt(float64(p)))
				}
				row[i] = p
			}
		}
	}
	return nil
}
