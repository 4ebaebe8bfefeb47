package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
)

// The int16x8 path of DEPTHWISE_CONV_2D: int16 input and output (zero
// points 0), int8 filter with per-tensor or per-channel scales (its zero
// points ignored, as TFLite does), int64 bias. TFLite's
// depthwise_conv.cc runs it through the reference
// DepthwiseConvPerChannel for int16 (there is no optimised one): int64
// sums of int8·int16 products over the taps inside the image, plus the
// bias, rescaled with the 64-bit MultiplyByQuantizedMultiplier
// (ops.MultiplyByQuantizedMultiplier64) and clamped. That kernel takes the
// depth multiplier from the options, not from the shapes, so Prepare
// requires the two to agree (TFLite would leave channels unwritten or read
// past the filter otherwise).

// prepareInt16 finishes Prepare for the int16x8 path.
func (k *DepthwiseConv2D) prepareInt16(n *ops.Node, in, filter, bias, out *ops.Tensor) error {
	if in.ZeroPoint() != 0 || out.ZeroPoint() != 0 {
		return fmt.Errorf("input 0/output 0: int16 zero points %d and %d, need 0", in.ZeroPoint(), out.ZeroPoint())
	}
	if err := k.checkOptionMultiplier(); err != nil {
		return err
	}
	if bias != nil {
		if bias.Type != ops.Int64 {
			return fmt.Errorf("input 2 (bias): type %s, need int64 for int16 input", bias.Type)
		}
		if bias.ZeroPoint() != 0 {
			return fmt.Errorf("input 2 (bias): zero point %d, need 0", bias.ZeroPoint())
		}
	}
	if err := k.q.prepare(in, filter, nil, out, k.opts.Activation, k.outC, 3, false); err != nil {
		return err
	}
	for c, s := range k.q.shift {
		if s > 14 {
			// The 64-bit MultiplyByQuantizedMultiplier shifts right by
			// 15 - shift, which must stay positive.
			return fmt.Errorf("output 0: channel %d rescale factor 2^%d is too large for the int16 kernel", c, s)
		}
	}
	k.acc64ID = n.RequestScratch(8 * k.outC)
	return nil
}

// checkOptionMultiplier checks that the options' depth multiplier, which
// TFLite's int16 and hybrid kernels use, is the one the shapes imply.
func (k *DepthwiseConv2D) checkOptionMultiplier() error {
	if k.opts.DepthMultiplier != k.mult {
		return fmt.Errorf("options: depth_multiplier %d, but the filter's %d channels over the input's %d need %d", k.opts.DepthMultiplier, k.outC, k.inC, k.mult)
	}
	return nil
}

// evalInt16 runs the int16x8 depthwise convolution.
func (k *DepthwiseConv2D) evalInt16(n *ops.Node, in, filter, bias, out *ops.Tensor) error {
	b, err := scratchBytes(n, k.acc64ID, 8*k.outC)
	if err != nil {
		return err
	}
	acc := ops.View[int64](b)[:k.outC]
	var b64 []int64
	if bias != nil {
		b64 = bias.Int64s()[:k.outC]
	}
	x, w, o := in.Int16s(), filter.Int8s(), out.Int16s()
	inC, outC, fW, mult := k.inC, k.outC, k.w.filter, k.mult
	q := &k.q
	oi := 0
	for batch := 0; batch < k.batches; batch++ {
		base := batch * k.h.in * k.w.in * inC
		for oy := 0; oy < k.h.out; oy++ {
			yOrigin, fyLo, fyHi := k.h.span(oy)
			for ox := 0; ox < k.w.out; ox++ {
				xOrigin, fxLo, fxHi := k.w.span(ox)
				if b64 != nil {
					copy(acc, b64)
				} else {
					clear(acc)
				}
				for fy := fyLo; fy < fyHi; fy++ {
					iy := yOrigin + fy*k.h.dilation
					for fx := fxLo; fx < fxHi; fx++ {
						ix := xOrigin + fx*k.w.dilation
						xs := x[base+(iy*k.w.in+ix)*inC:][:inC]
						ws := w[(fy*fW+fx)*outC:][:outC]
						if mult == 1 {
							for c, v := range xs {
								acc[c] += int64(int32(ws[c]) * int32(v))
							}
							continue
						}
						for ic, v := range xs {
							xv := int32(v)
							for m := ic * mult; m < (ic+1)*mult; m++ {
								acc[m] += int64(int32(ws[m]) * xv)
							}
						}
					}
				}
				row := o[oi : oi+outC]
				for c, a := range acc {
					v := ops.MultiplyByQuantizedMultiplier64(a, q.mult[c], q.shift[c])
					row[c] = int16(min(max(v, q.actMin), q.actMax))
				}
				oi += outC
			}
		}
	}
	return nil
}
