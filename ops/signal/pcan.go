package signal

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// PCANName is the custom code of TFLite Micro's per-channel amplitude
// normalisation (signal/micro/kernels/pcan.cc, arithmetic in
// signal/src/pcan_argc_fixed.cc).
const PCANName = "SignalPCAN"

// PCAN is the kernel of SignalPCAN: per-channel automatic gain control
// that divides each channel by a power of its noise estimate, then
// compresses it.
//
// Inputs: 0 the uint32 channels [c], 1 the uint32 noise estimate [c], 2
// the int16 gain table [125 or more] (WideDynamicFunction reads entries up
// to 4·32−6+2). Output 0 is uint32 [c]. Per channel, gain =
// WideDynamicFunction(noise) (a piecewise quadratic read from the table by
// the estimate's highest bit and next ten bits, an int16 sign-extended to
// uint32), snr = (input·gain) >> snr_shift (uint64 product, truncated to
// uint32), and output = PcanShrink(snr): snr²>>20 below 2<<12, else
// (snr>>6) − 64; all as TFLite Micro computes it, wrapping where it wraps.
//
// Options (custom_options, a FlexBuffer map): snr_shift, 0 to 63.
type PCAN struct {
	shift uint
}

// pcanLUTSize is the least gain table WideDynamicFunction can index:
// 4·interval − 6 + 2 with interval up to 32, plus one.
const pcanLUTSize = 4*32 - 6 + 3

// NewPCAN returns a SignalPCAN kernel for one node.
func NewPCAN() ops.Kernel { return &PCAN{} }

func init() { register(PCANName, NewPCAN) }

// Prepare decodes the options, validates the node and sets the output
// shape.
func (k *PCAN) Prepare(n *ops.Node) error {
	*k = PCAN{}
	v, err := readOptions(n, option{"snr_shift", optInt})
	if err != nil {
		return err
	}
	if err := checkRange("snr_shift", v[0], 0, 63); err != nil {
		return err
	}
	k.shift = uint(v[0])
	if err := n.CheckIO(3, 3, 1); err != nil {
		return err
	}
	in, c, err := input(n, 0, "input", ops.Uint32, 1)
	if err != nil {
		return err
	}
	_, ce, err := input(n, 1, "noise_estimate", ops.Uint32, 1)
	if err != nil {
		return err
	}
	if ce != c {
		return fmt.Errorf("input 1 (noise_estimate): %d channels, input 0 has %d", ce, c)
	}
	_, cl, err := input(n, 2, "gain_lut", ops.Int16, 1)
	if err != nil {
		return err
	}
	if cl < pcanLUTSize {
		return fmt.Errorf("input 2 (gain_lut): %d entries, need at least %d", cl, pcanLUTSize)
	}
	out, err := output(n, 0, "output", ops.Uint32)
	if err != nil {
		return err
	}
	out.Shape = copyShape(in.Shape)
	return nil
}

// Eval applies the gain control.
func (k *PCAN) Eval(n *ops.Node) error {
	in, est, lutT, out := n.Inputs[0], n.Inputs[1], n.Inputs[2], n.Outputs[0]
	if !hasData(in, est, lutT, out) {
		return errShort
	}
	x, e, lut := in.Uint32s()[:in.NumElements()], est.Uint32s(), lutT.Int16s()
	y := out.Uint32s()
	for i, v := range x {
		gain := uint32(int32(wideDynamicFunction(e[i], lut)))
		snr := uint32((uint64(v) * uint64(gain)) >> k.shift)
		y[i] = pcanShrink(snr)
	}
	return nil
}

// wideDynamicFunction is tflm_signal::WideDynamicFunction.
func wideDynamicFunction(x uint32, lut []int16) int16 {
	if x <= 2 {
		return lut[x]
	}
	interval := int32(msb32(x))
	l := lut[4*interval-6:]
	var f uint32
	if interval < 11 {
		f = x << uint(11-interval)
	} else {
		f = x >> uint(interval-11)
	}
	frac := int32(f & 0x3FF)
	result := (int32(l[2]) * frac) >> 5
	result += int32(uint32(int32(l[1])) << 5)
	result *= frac
	result = (result + 1<<14) >> 15
	result += int32(l[0])
	return int16(result)
}

// pcanShrink is tflm_signal::PcanShrink (kPcanSnrBits 12, kPcanOutputBits
// 6).
func pcanShrink(x uint32) uint32 {
	if x < 2<<12 {
		return (x * x) >> (2 + 2*12 - 6)
	}
	return x>>(12-6) - 1<<6
}
