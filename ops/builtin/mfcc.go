package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// MfccName is the custom operator name of TFLite's Mfcc (mfcc.cc,
// TensorFlow's Mfcc op), which TFLite's BuiltinOpResolver registers.
const MfccName = "Mfcc"

// Limits on Mfcc's options, which size its tables: TFLite allocates
// whatever the options ask; tflrun bounds them far above what any audio
// front end uses (40 channels and 13 coefficients are the defaults).
const (
	maxMfccChannels = 1 << 16
	maxMfccTable    = 1 << 24 // coefficients × channels
)

// Mfcc is the kernel of TFLite's Mfcc custom operator: mel-frequency
// cepstral coefficients of spectrogram frames, as TensorFlow's Mfcc op
// (TFLite's internal/mfcc.cc, mfcc_mel_filterbank.cc, mfcc_dct.cc), all in
// float64 with float32 results.
//
// Input 0 is a float32 squared-magnitude spectrogram [channels, frames,
// bins] (AudioSpectrogram's output with magnitude_squared); input 1 the
// int32 sample rate (one element). Output 0 is float32 [channels, frames,
// dct_coefficient_count]. For each frame: the square roots of the bins are
// summed under filterbank_channel_count triangular filters equally spaced
// on the mel scale (mel = 1127·ln(1 + f/700)) between
// lower_frequency_limit and upper_frequency_limit (bin i lies at
// i·rate/(2·(bins−1)) Hz; the DC bin is excluded, as HTK does); each sum
// is floored at 1e-12 and its natural log taken; the output is the
// DCT-II, scaled by √(2/channels), of those logs, first coefficients only.
// When the upper limit's bin lies past the spectrogram, TFLite's filterbank
// computes nothing and the output is 0; so is it here.
//
// Options (custom_options, a FlexBuffer map, each read as an integer as
// TFLite's Init does): upper_frequency_limit, lower_frequency_limit,
// filterbank_channel_count, dct_coefficient_count. Invalid combinations
// (TFLite's Initialize failures: no channel or coefficient, more
// coefficients than channels, fewer than 2 bins, a rate ≤ 0, limits out
// of order or negative) are errors — at Prepare when the rate is a
// constant, at Eval otherwise, where TFLite reports them.
type Mfcc struct {
	upper, lower    float64
	channels, coefs int
	frames, bins    int
	audio           int
	rate            int32 // the rate the tables were made for (0: none)
	constRate       bool
	tablesOK        bool
	zero            bool // the filterbank cannot run: the output is 0
	start, end      int
	center          []float64 // channels+1 mel centre frequencies
	band            []int     // per bin: the channel whose right side it feeds
	weight          []float64 // per bin: its weight in that channel
	cosines         []float64 // coefs × channels
	mel             []float64 // channels: one frame's filterbank output
	prepared        bool
}

// NewMfcc returns an Mfcc kernel for one node.
func NewMfcc() ops.Kernel { return &Mfcc{} }

func init() { registerCustom(MfccName, NewMfcc) }

// Prepare decodes the options, validates the node, sets the output shape
// and allocates the tables (made now when the rate is a constant).
func (k *Mfcc) Prepare(n *ops.Node) error {
	*k = Mfcc{}
	m, err := customMap(n)
	if err != nil {
		return err
	}
	var opt [4]int64
	for i, key := range []string{"upper_frequency_limit", "lower_frequency_limit", "filterbank_channel_count", "dct_coefficient_count"} {
		if opt[i], err = m.Int(key); err != nil {
			return fmt.Errorf("custom_options: %v", err)
		}
	}
	// TFLite keeps the limits in float fields and the counts in ints.
	k.upper, k.lower = float64(float32(opt[0])), float64(float32(opt[1]))
	k.channels, k.coefs = int(int32(opt[2])), int(int32(opt[3]))
	if err := n.CheckIO(2, 2, 1); err != nil {
		return err
	}
	wav, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	rate, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if wav.Rank() != 3 {
		return fmt.Errorf("input 0: shape %v, need [channels, frames, bins]", wav.Shape)
	}
	if rate.NumElements() != 1 {
		return fmt.Errorf("input 1 (sample rate): shape %v, need one element", rate.Shape)
	}
	if err := requireType(out, "output 0", ops.Float32); err != nil {
		return err
	}
	if err := requireType(wav, "input 0", ops.Float32); err != nil {
		return err
	}
	if err := requireType(rate, "input 1 (sample rate)", ops.Int32); err != nil {
		return err
	}
	if _, err := numElementsChecked(wav, "input 0"); err != nil {
		return err
	}
	k.audio, k.frames, k.bins = wav.Shape[0], wav.Shape[1], wav.Shape[2]
	if k.coefs < 0 {
		return fmt.Errorf("options: dct_coefficient_count %d is negative", k.coefs)
	}
	shape := []int{k.audio, k.frames, k.coefs}
	if _, err := ops.ShapeElements(shape, 4); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	if err := k.checkCounts(); err != nil {
		return err
	}
	if k.channels > maxMfccChannels || k.coefs*k.channels > maxMfccTable {
		return fmt.Errorf("options: filterbank_channel_count %d and dct_coefficient_count %d exceed tflrun's limits (%d channels, %d table entries)", k.channels, k.coefs, maxMfccChannels, maxMfccTable)
	}
	k.center = make([]float64, k.channels+1)
	k.band = make([]int, k.bins)
	k.weight = make([]float64, k.bins)
	k.mel = make([]float64, k.channels)
	k.makeDCT()
	k.prepared = true
	if rate.IsConstant() {
		k.constRate = true
		if err := k.makeFilterbank(rate.Int32s()[0]); err != nil {
			return fmt.Errorf("input 1 (sample rate): %v", err)
		}
	}
	return nil
}

// checkCounts makes the checks of TFLite's initialisation that do not
// depend on the sample rate.
func (k *Mfcc) checkCounts() error {
	switch {
	case k.channels < 1:
		return fmt.Errorf("options: filterbank_channel_count %d, need at least 1", k.channels)
	case k.coefs < 1:
		return fmt.Errorf("options: dct_coefficient_count %d, need at least 1", k.coefs)
	case k.coefs > k.channels:
		return fmt.Errorf("options: dct_coefficient_count %d exceeds filterbank_channel_count %d", k.coefs, k.channels)
	case k.bins < 2:
		return fmt.Errorf("input 0: %d spectrogram bins, need at least 2", k.bins)
	case k.lower < 0:
		return fmt.Errorf("options: lower_frequency_limit %g is negative", k.lower)
	case k.upper <= k.lower:
		return fmt.Errorf("options: upper_frequency_limit %g must exceed lower_frequency_limit %g", k.upper, k.lower)
	}
	return nil
}

// freqToMel is MfccMelFilterbank::FreqToMel.
func freqToMel(f float64) float64 { return 1127.0 * math.Log1p(f/700.0) }

// makeDCT fills the DCT table (MfccDct::Initialize): √(2/channels)·
// cos(i·π/channels·(j + ½)), in the C++ order of operations.
func (k *Mfcc) makeDCT() {
	k.cosines = make([]float64, k.coefs*k.channels)
	fnorm := math.Sqrt(2.0 / float64(k.channels))
	arg := math.Pi / float64(k.channels)
	for i := 0; i < k.coefs; i++ {
		for j := 0; j < k.channels; j++ {
			k.cosines[i*k.channels+j] = fnorm * math.Cos(float64(i)*arg*(float64(j)+0.5))
		}
	}
}

// makeFilterbank fills the filterbank tables for a sample rate
// (MfccMelFilterbank::Initialize); it allocates nothing.
func (k *Mfcc) makeFilterbank(rate int32) error {
	k.tablesOK = false
	if rate <= 0 {
		return fmt.Errorf("sample rate %d, need a positive rate", rate)
	}
	melLow, melHi := freqToMel(k.lower), freqToMel(k.upper)
	spacing := (melHi - melLow) / float64(k.channels+1)
	for i := range k.center {
		k.center[i] = melLow + float64(spacing*float64(i+1))
	}
	hzPerBin := 0.5 * float64(rate) / float64(k.bins-1)
	// TFLite truncates these to int; a bin index past the spectrogram
	// (possible for extreme limits) is clamped here, which gives the same
	// comparisons for every bin, and makes the whole output 0 for the end
	// index, as TFLite's filterbank refuses to run then.
	startF, endF := 1.5+k.lower/hzPerBin, k.upper/hzPerBin
	k.zero = !(endF < float64(k.bins))
	k.start, k.end = k.bins, k.bins-1
	if startF < float64(k.bins) {
		k.start = int(startF)
	}
	if !k.zero {
		k.end = int(endF)
	}
	channel := 0
	for i := 0; i < k.bins; i++ {
		melf := freqToMel(float64(i) * hzPerBin)
		if i < k.start || i > k.end {
			k.band[i] = -2 // an unused bin
			continue
		}
		for channel < k.channels && k.center[channel] < melf {
			channel++
		}
		k.band[i] = channel - 1
	}
	for i := 0; i < k.bins; i++ {
		c := k.band[i]
		switch {
		case i < k.start || i > k.end:
			k.weight[i] = 0
		case c >= 0:
			k.weight[i] = (k.center[c+1] - freqToMel(float64(i)*hzPerBin)) / (k.center[c+1] - k.center[c])
		default:
			k.weight[i] = (k.center[0] - freqToMel(float64(i)*hzPerBin)) / (k.center[0] - melLow)
		}
	}
	k.rate, k.tablesOK = rate, true
	return nil
}

// Eval computes the coefficients of every frame.
func (k *Mfcc) Eval(n *ops.Node) error {
	wav, rateT, out := n.Input(0), n.Input(1), n.Output(0)
	if !k.prepared || wav == nil || rateT == nil || out == nil {
		return errors.New("Mfcc: Eval before a successful Prepare")
	}
	if err := checkData(wav, rateT, out); err != nil {
		return err
	}
	if rate := rateT.Int32s()[0]; !k.tablesOK || !k.constRate && rate != k.rate {
		if err := k.makeFilterbank(rate); err != nil {
			return fmt.Errorf("input 1 (sample rate): %v", err)
		}
	}
	x, y := wav.Float32s(), out.Float32s()
	for f := 0; f < k.audio*k.frames; f++ {
		o := y[f*k.coefs : (f+1)*k.coefs]
		if k.zero {
			clear(o)
			continue
		}
		k.frame(x[f*k.bins : (f+1)*k.bins])
		for i := range o {
			sum := 0.0
			cos := k.cosines[i*k.channels : (i+1)*k.channels]
			for j, v := range k.mel {
				sum += float64(cos[j] * v)
			}
			o[i] = float32(sum)
		}
	}
	return nil
}

// frame fills k.mel with the log filterbank energies of one spectrogram
// frame (MfccMelFilterbank::Compute, then the floor and the log).
func (k *Mfcc) frame(spec []float32) {
	clear(k.mel)
	for i := k.start; i <= k.end; i++ {
		v := math.Sqrt(float64(spec[i]))
		w := float64(v * k.weight[i]) // not fused into the sums below
		c := k.band[i]
		if c >= 0 {
			k.mel[c] += w
		}
		if c++; c < k.channels {
			k.mel[c] += v - w
		}
	}
	for i, v := range k.mel {
		k.mel[i] = math.Log(max(v, 1e-12))
	}
}
