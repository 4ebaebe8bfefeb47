package builtin

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// convQuant is the requantisation of an integer CONV_2D or
// DEPTHWISE_CONV_2D, derived as TFLite's PopulateConvolutionQuantizationParams
// (tflite/kernels/kernel_util.cc) does:
//   - int8: one multiplier per output channel from the double-precision
//     product input_scale·filter_scale[c]/output_scale (a per-tensor filter
//     scale is broadcast to every channel);
//   - uint8: one multiplier from the float32 product input_scale·filter_scale
//     divided by output_scale, after checking that the bias scale is within
//     2% of an output step of that product (GetQuantizedConvolutionMultipler).
//
// Accumulators are rescaled with MultiplyByQuantizedMultiplier (TFLite's
// default double rounding), offset by the output zero point and clamped to
// the fused activation's range.
type convQuant struct {
	inOffset  int32 // -input zero point
	wOffset   int32 // -filter zero point (uint8 only; 0 for int8)
	outOffset int32 // output zero point
	mult      []int32
	shift     []int
	actMin    int32
	actMax    int32
	chans     []quantChannel // mult/shift pre-split for requantRow
}

// quantChannel is one output channel's MultiplyByQuantizedMultiplier
// split for the inner loop: x·2^left (wrapping), a rounding doubling high
// multiply by mult, then a rounding right shift by right, whose rounding
// adds half = 2^(right-1) and, for negative values and right > 0, neg = -1
// (see requantRow).
type quantChannel struct {
	mult  int64
	half  int64
	neg   int64
	left  uint8
	right uint8
}

// newQuantChannel splits a QuantizeMultiplier result (multiplier, shift ≤
// 31) for requantRow.
func newQuantChannel(mult int32, shift int) quantChannel {
	ch := quantChannel{mult: int64(mult)}
	if shift > 0 {
		ch.left = uint8(shift)
	} else if shift < 0 {
		ch.right = uint8(-shift)
		ch.half = int64(1) << (ch.right - 1)
		ch.neg = -1
	}
	return ch
}

// prepare derives the parameters for a filter with channels output
// channels along dimension chanDim (0 for CONV_2D, 3 for
// DEPTHWISE_CONV_2D). filterZPMustBeZero enforces TFLite's CONV_2D check
// that an int8 filter is symmetric (DEPTHWISE_CONV_2D ignores the filter
// zero points of int8 filters instead).
func (q *convQuant) prepare(in, filter, bias, out *ops.Tensor, act ops.Activation, channels, chanDim int, filterZPMustBeZero bool) error {
	inScale, inZP, err := perTensorQuant(in, "input 0")
	if err != nil {
		return err
	}
	outScale, outZP, err := perTensorQuant(out, "output 0")
	if err != nil {
		return err
	}
	fq := filter.Quant
	if fq == nil || len(fq.Scale) == 0 {
		return fmt.Errorf("input 1 (filter): %s filter has no quantization parameters", filter.Type)
	}
	if len(fq.Scale) != 1 && len(fq.Scale) != channels {
		return fmt.Errorf("input 1 (filter): %d scales, need 1 or one per output channel (%d)", len(fq.Scale), channels)
	}
	perChannel := len(fq.Scale) > 1
	if perChannel {
		if in.Type != ops.Int8 && in.Type != ops.Int16 {
			return fmt.Errorf("input 1 (filter): per-channel quantization needs int8 or int16 input, have %s", in.Type)
		}
		// TFLite only checks that the quantized dimension has one entry per
		// output channel; the scales are then read per output channel.
		if qd := fq.QuantizedDimension; qd < 0 || qd >= filter.Rank() || filter.Shape[qd] != channels {
			return fmt.Errorf("input 1 (filter): per-channel quantization along dimension %d of shape %v, need a dimension of size %d (normally %d)", qd, filter.Shape, channels, chanDim)
		}
	}
	for i, s := range fq.Scale {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return fmt.Errorf("input 1 (filter): scale %d is %g, must be finite and > 0", i, s)
		}
	}
	for i, z := range fq.ZeroPoint {
		if in.Type == ops.Int8 && filterZPMustBeZero && z != 0 {
			return fmt.Errorf("input 1 (filter): zero point %d at %d; int8 filters must be symmetric", z, i)
		}
	}
	if bias != nil {
		if bias.Type != ops.Int32 {
			return fmt.Errorf("input 2 (bias): type %s, need int32 for %s input", bias.Type, in.Type)
		}
		if bias.ZeroPoint() != 0 {
			return fmt.Errorf("input 2 (bias): zero point %d, need 0", bias.ZeroPoint())
		}
	}
	q.inOffset, q.outOffset = -inZP, outZP
	q.mult = make([]int32, channels)
	q.shift = make([]int, channels)
	if in.Type == ops.Uint8 {
		fScale, fZP, err := perTensorQuant(filter, "input 1 (filter)")
		if err != nil {
			return err
		}
		q.wOffset = -fZP
		if bias != nil {
			prod := float64(inScale) * float64(fScale)
			if math.Abs(prod-float64(bias.Scale()))/float64(outScale) > 0.02 {
				return fmt.Errorf("input 2 (bias): scale %g too far from input scale × filter scale = %g", bias.Scale(), prod)
			}
		}
		m, s := ops.QuantizeMultiplier(float64(inScale*fScale) / float64(outScale))
		for c := range q.mult {
			q.mult[c], q.shift[c] = m, s
		}
	} else {
		for c := range q.mult {
			fs := fq.Scale[0]
			if perChannel {
				fs = fq.Scale[c]
			}
			q.mult[c], q.shift[c] = ops.QuantizeMultiplier(float64(inScale) * float64(fs) / float64(outScale))
		}
	}
	if q.actMin, q.actMax, err = ActivationRangeQuantized(act, out); err != nil {
		return err
	}
	q.chans = make([]quantChannel, channels)
	for c := range q.chans {
		s := q.shift[c]
		if s > 30 {
			return fmt.Errorf("output 0: scale %g is too small for input scale %g and the filter scales (rescale factor 2^%d)", outScale, inScale, s)
		}
		q.chans[c] = newQuantChannel(q.mult[c], s)
	}
	return nil
}

// requantRow writes dst[i] = clamp(MultiplyByQuantizedMultiplier(acc[i],
// channel i) + output zero point), channel i being chans[i]. It is the
// arithmetic of MultiplyByQuantizedMultiplier (TFLite's double rounding)
// in a form of few instructions; TestRequantRowMatchesReference checks it
// against the plain function:
//   - the rounding doubling high multiply (x·m + nudge)/2^31, truncating,
//     with nudge 2^30 for x·m ≥ 0 and 1−2^30 below, equals
//     floor((x·m + 2^30)/2^31) for both signs, an arithmetic shift;
//   - the rounding right shift by e > 0 (remainder above half, or for
//     negative values above half plus one, rounds up) equals
//     floor((h + 2^(e−1) − [h < 0])/2^e), again a shift, in int64 so
//     nothing overflows.
//
// The multipliers come from QuantizeMultiplier and are never MinInt32, so
// the saturating corner of the high multiply cannot occur.
func requantRow[T int8 | uint8 | int16](dst []T, acc []int32, chans []quantChannel, zp, lo, hi int32) {
	chans = chans[:len(acc)]
	dst = dst[:len(acc)]
	for i, a := range acc {
		ch := &chans[i]
		h := (int64(a<<(ch.left&31))*ch.mult + 1<<30) >> 31
		r := int32((h + ch.half + (h>>63)&ch.neg) >> (ch.right & 63))
		dst[i] = T(min(max(r+zp, lo), hi))
	}
}

// requantize turns one accumulator of output channel c into the output
// value (before the cast to the output type).
func (q *convQuant) requantize(acc int32, c int) int32 {
	v := ops.MultiplyByQuantizedMultiplier(acc, q.mult[c], q.shift[c]) + q.outOffset
	return ops.ClampInt32(v, q.actMin, q.actMax)
}

// convPath is the arithmetic a CONV_2D or DEPTHWISE_CONV_2D node runs,
// chosen at Prepare from its tensor types.
type convPath uint8

const (
	convFloat convPath = iota
	convInt8
	convUint8
	convHybrid
	convInt16
)
