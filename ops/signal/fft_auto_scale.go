package signal

import (
	"github.com/tflrun/tflrun/ops"
)

// FftAutoScaleName is the custom code of TFLite Micro's FFT auto-scale
// (signal/micro/kernels/fft_auto_scale_kernel.cc and _common.cc,
// arithmetic in signal/src/fft_auto_scale.cc and max_abs.cc).
const FftAutoScaleName = "SignalFftAutoScale"

// FftAutoScale is the kernel of SignalFftAutoScale: it shifts a block of
// samples left as far as the largest magnitude allows, to use the int16
// FFT's whole range, and returns the shift.
//
// Input 0 is int16 [n]; output 0 is int16 [n], output 1 the int32 scalar
// shift s. With m the largest |x| as MaxAbs16 finds it (scanning in
// order; a −32768 is stored as −32768, which the next sample above it
// replaces), s = max(0, 16 − MostSignificantBit32(m) − 1), where
// MostSignificantBit32 is the GCC build's (32 for 0, so silence and a
// block holding −32768 give s = 0), and output[i] = int16(x[i]·2^s),
// wrapping. No options.
type FftAutoScale struct{}

// NewFftAutoScale returns a SignalFftAutoScale kernel for one node.
func NewFftAutoScale() ops.Kernel { return &FftAutoScale{} }

func init() { register(FftAutoScaleName, NewFftAutoScale) }

// Prepare validates the node and sets the output shapes.
func (k *FftAutoScale) Prepare(n *ops.Node) error {
	if err := n.CheckIO(1, 1, 2); err != nil {
		return err
	}
	in, _, err := input(n, 0, "input", ops.Int16, 1)
	if err != nil {
		return err
	}
	out, err := output(n, 0, "output", ops.Int16)
	if err != nil {
		return err
	}
	sb, err := output(n, 1, "scale_bits", ops.Int32)
	if err != nil {
		return err
	}
	out.Shape = copyShape(in.Shape)
	sb.Shape = []int{}
	return nil
}

// Eval scales the block.
func (k *FftAutoScale) Eval(n *ops.Node) error {
	in, out, sb := n.Inputs[0], n.Outputs[0], n.Outputs[1]
	if !hasData(in, out, sb) {
		return errShort
	}
	x := in.Int16s()[:in.NumElements()]
	sb.Int32s()[0] = int32(fftAutoScale(x, out.Int16s()))
	return nil
}

// fftAutoScale is tflm_signal::FftAutoScale.
func fftAutoScale(x, y []int16) int {
	var m int16
	for _, v := range x {
		// C compares in int: -(-32768) is 32768, stored back as
		// -32768, after which any larger sample replaces it.
		if v > m {
			m = v
		} else if -int32(v) > int32(m) {
			m = int16(-int32(v))
		}
	}
	bits := 16 - int(msb32(uint32(int32(m)))) - 1
	if bits <= 0 {
		bits = 0
	}
	for i, v := range x {
		y[i] = int16(int32(v) << bits)
	}
	return bits
}
