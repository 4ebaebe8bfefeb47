package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// FilterBankSpectralSubtractionName is the custom code of TFLite Micro's
// noise reduction by spectral subtraction
// (signal/micro/kernels/filter_bank_spectral_subtraction.cc, arithmetic in
// signal/src/filter_bank_spectral_subtraction.cc).
const FilterBankSpectralSubtractionName = "SignalFilterBankSpectralSubtraction"

// FilterBankSpectralSubtraction is the kernel of
// SignalFilterBankSpectralSubtraction: a per-channel noise estimate,
// low-pass filtered across Invokes, subtracted from each channel.
//
// Input 0 is uint32 [num_channels]; output 0 (the cleaned channels) and
// output 1 (a copy of the noise estimate after this frame) are uint32
// [num_channels]. The estimate is the kernel's state: it persists across
// Invoke, starts at zero, and is cleared by Prepare (AllocateTensors) and
// by the interpreter's ResetVariableTensors, as TFLite Micro's Prepare and
// Reset clear it. Per channel i, with the alternate coefficients on odd
// channels and all arithmetic TFLite Micro's (uint32, products in uint64):
//
//	s = input[i] << smoothing_bits
//	est[i] = (s·smoothing + est[i]·one_minus_smoothing) >> spectral_subtraction_bits
//	e = min(est[i], s)  (est[i] = e too when clamping)
//	floor = (input[i]·min_signal_remaining) >> spectral_subtraction_bits
//	output[i] = max((s − e) >> smoothing_bits, floor)
//
// Options (custom_options, a FlexBuffer map, read by position):
// alternate_one_minus_smoothing, alternate_smoothing, clamping (bool),
// min_signal_remaining, num_channels (1 to 1<<20, equal to the input's
// size), one_minus_smoothing, smoothing, smoothing_bits (0 to 31),
// spectral_subtraction_bits (0 to 63); the coefficients are ≥ 0 (the
// TensorFlow op's attribute bounds).
type FilterBankSpectralSubtraction struct {
	smoothing, oneMinus, altSmoothing, altOneMinus, minRemaining uint32
	smoothingBits, bits                                          uint
	clamping                                                     bool
	noise                                                        []uint32
}

// NewFilterBankSpectralSubtraction returns a
// SignalFilterBankSpectralSubtraction kernel for one node.
func NewFilterBankSpectralSubtraction() ops.Kernel { return &FilterBankSpectralSubtraction{} }

func init() { register(FilterBankSpectralSubtractionName, NewFilterBankSpectralSubtraction) }

// Prepare decodes the options, validates the node, sets the output shapes
// and clears the noise estimate.
func (k *FilterBankSpectralSubtraction) Prepare(n *ops.Node) error {
	*k = FilterBankSpectralSubtraction{}
	v, err := readOptions(n,
		option{"alternate_one_minus_smoothing", optInt},
		option{"alternate_smoothing", optInt},
		option{"clamping", optBool},
		option{"min_signal_remaining", optInt},
		option{"num_channels", optInt},
		option{"one_minus_smoothing", optInt},
		option{"smoothing", optInt},
		option{"smoothing_bits", optInt},
		option{"spectral_subtraction_bits", optInt})
	if err != nil {
		return err
	}
	for i, key := range []string{"alternate_one_minus_smoothing", "alternate_smoothing", "", "min_signal_remaining", "", "one_minus_smoothing", "smoothing"} {
		if key != "" {
			if err := checkRange(key, v[i], 0, 1<<31-1); err != nil {
				return err
			}
		}
	}
	if err := checkRange("num_channels", v[4], 1, 1<<20); err != nil {
		return err
	}
	if err := checkRange("smoothing_bits", v[7], 0, 31); err != nil {
		return err
	}
	if err := checkRange("spectral_subtraction_bits", v[8], 0, 63); err != nil {
		return err
	}
	k.altOneMinus, k.altSmoothing, k.clamping = uint32(v[0]), uint32(v[1]), v[2] != 0
	k.minRemaining, k.oneMinus, k.smoothing = uint32(v[3]), uint32(v[5]), uint32(v[6])
	k.smoothingBits, k.bits = uint(v[7]), uint(v[8])
	channels := int(v[4])
	if err := n.CheckIO(1, 1, 2); err != nil {
		return err
	}
	in, c, err := input(n, 0, "input", ops.Uint32, 1)
	if err != nil {
		return err
	}
	if c != channels {
		return fmt.Errorf("input 0: %d channels, options say num_channels = %d", c, channels)
	}
	for i, role := range []string{"output", "noise_estimate"} {
		out, err := output(n, i, role, ops.Uint32)
		if err != nil {
			return err
		}
		out.Shape = copyShape(in.Shape)
	}
	k.noise, err = ops.Alloc[uint32](n, channels, "SignalFilterBankSpectralSubtraction noise estimate")
	return err
}

// ResetState clears the noise estimate (TFLite Micro's
// FilterBankSpectralSubtractionReset); see ops.StatefulKernel.
func (k *FilterBankSpectralSubtraction) ResetState() { clear(k.noise) }

// Eval subtracts the noise estimate and updates it.
func (k *FilterBankSpectralSubtraction) Eval(n *ops.Node) error {
	in, out, est := n.Inputs[0], n.Outputs[0], n.Outputs[1]
	if !hasData(in, out, est) {
		return errShort
	}
	x, y := in.Uint32s(), out.Uint32s()
	for i := range k.noise {
		smoothing, oneMinus := k.smoothing, k.oneMinus
		if i&1 != 0 {
			smoothing, oneMinus = k.altSmoothing, k.altOneMinus
		}
		s := x[i] << k.smoothingBits
		k.noise[i] = uint32((uint64(s)*uint64(smoothing) + uint64(k.noise[i])*uint64(oneMinus)) >> k.bits)
		e := k.noise[i]
		if e > s {
			e = s
			if k.clamping {
				k.noise[i] = e
			}
		}
		floor := uint32((uint64(x[i]) * uint64(k.minRemaining)) >> k.bits)
		sub := (s - e) >> k.smoothingBits
		if sub > floor {
			y[i] = sub
		} else {
			y[i] = floor
		}
	}
	copy(est.Uint32s(), k.noise)
	return nil
}
