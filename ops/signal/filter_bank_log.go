package signal

import (
	"github.com/tflrun/tflrun/ops"
)

// FilterBankLogName is the custom code of TFLite Micro's filter bank
// logarithm (signal/micro/kernels/filter_bank_log.cc, arithmetic in
// signal/src/filter_bank_log.cc and log.cc).
const FilterBankLogName = "SignalFilterBankLog"

// FilterBankLog is the kernel of SignalFilterBankLog: a fixed-point
// natural logarithm of each channel, scaled.
//
// Input 0 is uint32 [c]; output 0 is int16 [c]. With s = input <<
// input_correction_bits (uint32, wrapping), output = min(Log32(s,
// output_scale), 32767) when s > 1, else 0. Log32 is TFLite Micro's:
// log2 from the highest set bit plus a 128-segment interpolated table of
// the fraction (16 fractional bits), times 45426/65536 (ln 2) rounded,
// times output_scale/65536 rounded, in uint32.
//
// Options (custom_options, a FlexBuffer map): input_correction_bits (0
// to 31), output_scale (≥ 1, the TensorFlow op's bound).
type FilterBankLog struct {
	correction uint
	scale      uint32
}

// NewFilterBankLog returns a SignalFilterBankLog kernel for one node.
func NewFilterBankLog() ops.Kernel { return &FilterBankLog{} }

func init() { register(FilterBankLogName, NewFilterBankLog) }

// Prepare decodes the options, validates the node and sets the output
// shape.
func (k *FilterBankLog) Prepare(n *ops.Node) error {
	*k = FilterBankLog{}
	v, err := readOptions(n, option{"input_correction_bits", optInt}, option{"output_scale", optInt})
	if err != nil {
		return err
	}
	if err := checkRange("input_correction_bits", v[0], 0, 31); err != nil {
		return err
	}
	if err := checkRange("output_scale", v[1], 1, 1<<31-1); err != nil {
		return err
	}
	k.correction, k.scale = uint(v[0]), uint32(v[1])
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, _, err := input(n, 0, "input", ops.Uint32, 1)
	if err != nil {
		return err
	}
	out, err := output(n, 0, "output", ops.Int16)
	if err != nil {
		return err
	}
	out.Shape = copyShape(in.Shape)
	return nil
}

// Eval takes the logarithms.
func (k *FilterBankLog) Eval(n *ops.Node) error {
	in, out := n.Inputs[0], n.Outputs[0]
	if !hasData(in, out) {
		return errShort
	}
	y := out.Int16s()
	for i, v := range in.Uint32s()[:in.NumElements()] {
		s := v << k.correction
		if s > 1 {
			l := log32(s, k.scale)
			if l > 32767 {
				l = 32767
			}
			y[i] = int16(l)
		} else {
			y[i] = 0
		}
	}
	return nil
}

// logLUT is TFLite Micro's kLogLut (signal/src/log.cc): the correction
// log2(1+x) − x at the 129 segment ends of [0, 1), scaled by 65536.
var logLUT = [130]uint16{
	0, 224, 442, 654, 861, 1063, 1259, 1450, 1636, 1817, 1992, 2163,
	2329, 2490, 2646, 2797, 2944, 3087, 3224, 3358, 3487, 3611, 3732, 3848,
	3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714, 4791, 4864, 4934,
	5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507,
	5533, 5557, 5578, 5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633,
	5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498, 5470, 5439, 5406, 5370,
	5332, 5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762,
	4697, 4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935, 3848,
	3759, 3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981, 2875, 2768, 2659,
	2549, 2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353, 1224,
	1094, 963, 830, 695, 559, 421, 282, 142, 0, 0,
}

// log2Fraction is Log2FractionPart32.
func log2Fraction(x, log2x uint32) uint32 {
	frac := int32(int64(x) - int64(1)<<log2x)
	if log2x < 16 {
		frac <<= 16 - log2x
	} else {
		frac >>= log2x - 16
	}
	seg := uint32(frac) >> (16 - 7)
	c0, c1 := int32(logLUT[seg]), int32(logLUT[seg+1])
	segBase := int32((uint32(1) << 16 >> 7) * seg)
	rel := ((c1 - c0) * (frac - segBase)) >> 16
	return uint32(frac + c0 + rel)
}

// log32 is tflm_signal::Log32 (x ≥ 2).
func log32(x, scale uint32) uint32 {
	integer := msb32(x) - 1
	log2 := integer<<16 + log2Fraction(x, integer)
	const round = 65536 / 2
	loge := uint32((uint64(45426)*uint64(log2) + round) >> 16)
	return (scale*loge + round) >> 16
}
