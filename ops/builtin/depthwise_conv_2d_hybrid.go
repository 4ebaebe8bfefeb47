package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// The hybrid path of DEPTHWISE_CONV_2D (version 6): float32 input, bias
// and output, int8 filter with per-channel scales (channels along
// dimension 3). It follows TFLite's depthwise_conv.cc EvalHybridPerChannel
// with the generic optimised DepthwiseConvHybridPerChannel that TFLite's
// x86 build runs:
//   - each batch image is quantised asymmetrically to int8 with its own
//     scale and zero point zp (TFLite's AsymmetricQuantizeFloats, here
//     ops.AsymmetricQuantizeFloats);
//   - each output channel sums w·(q − zp) over the filter taps inside the
//     image (taps outside are skipped, which is the same as padding with
//     zp), exactly in int32;
//   - the sum becomes float32 and is scaled as the kernel's scalar loop
//     writes it, (float(acc)·image_scale)·channel_scale, each product
//     rounded to float32, then the bias is added and the fused activation
//     clamps.
//
// A filter with one scale is taken as that scale for every channel: the
// form TFLite's Prepare accepts (a single scale along a dimension of size
// 1), whose kernel reads one scale per output channel. As for the int16
// path, the kernel takes the depth multiplier from the options, which
// Prepare requires to match the shapes.

// prepareHybrid finishes Prepare for the hybrid path.
func (k *DepthwiseConv2D) prepareHybrid(n *ops.Node, in, filter, bias *ops.Tensor) error {
	if err := k.checkOptionMultiplier(); err != nil {
		return err
	}
	fq := filter.Quant
	if fq == nil || len(fq.Scale) == 0 {
		return errors.New("input 1 (filter): int8 filter of a hybrid depthwise convolution has no quantization parameters")
	}
	if qd := fq.QuantizedDimension; qd < 0 || qd >= filter.Rank() || filter.Shape[qd] != len(fq.Scale) {
		return fmt.Errorf("input 1 (filter): %d scales along dimension %d of shape %v, need one per index of that dimension", len(fq.Scale), fq.QuantizedDimension, filter.Shape)
	}
	if len(fq.Scale) != 1 && len(fq.Scale) != k.outC {
		return fmt.Errorf("input 1 (filter): %d scales, need 1 or one per output channel (%d)", len(fq.Scale), k.outC)
	}
	k.chanScale = make([]float32, k.outC)
	for c := range k.chanScale {
		s := fq.Scale[min(c, len(fq.Scale)-1)]
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return fmt.Errorf("input 1 (filter): scale %d is %g, must be finite and > 0", min(c, len(fq.Scale)-1), s)
		}
		k.chanScale[c] = s
	}
	if bias != nil && bias.Type != ops.Float32 {
		return fmt.Errorf("input 2 (bias): type %s, need float32", bias.Type)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	k.fMin, k.fMax = ActivationRangeFloat(k.opts.Activation)
	k.qID = n.RequestScratch(in.NumElements())
	k.accID = n.RequestScratch(4 * k.outC)
	return nil
}

// evalHybrid runs the hybrid depthwise convolution.
func (k *DepthwiseConv2D) evalHybrid(n *ops.Node, in, filter, bias, out *ops.Tensor) error {
	acc, err := scratchInt32(n, k.accID, k.outC)
	if err != nil {
		return err
	}
	inImage := k.h.in * k.w.in * k.inC
	q, err := scratchInt8(n, k.qID, k.batches*inImage)
	if err != nil {
		return err
	}
	var bv []float32
	if bias != nil {
		bv = bias.Float32s()[:k.outC]
	}
	x, w, o := in.Float32s(), filter.Int8s(), out.Float32s()
	inC, outC, fW, mult := k.inC, k.outC, k.w.filter, k.mult
	oi := 0
	for batch := 0; batch < k.batches; batch++ {
		qb := q[batch*inImage : (batch+1)*inImage]
		sf, zp := ops.AsymmetricQuantizeFloats(x[batch*inImage:(batch+1)*inImage], qb)
		for oy := 0; oy < k.h.out; oy++ {
			yOrigin, fyLo, fyHi := k.h.span(oy)
			for ox := 0; ox < k.w.out; ox++ {
				xOrigin, fxLo, fxHi := k.w.span(ox)
				clear(acc)
				for fy := fyLo; fy < fyHi; fy++ {
					iy := yOrigin + fy*k.h.dilation
					for fx := fxLo; fx < fxHi; fx++ {
						ix := xOrigin + fx*k.w.dilation
						xs := qb[(iy*k.w.in+ix)*inC:][:inC]
						ws := w[(fy*fW+fx)*outC:][:outC]
						if mult == 1 {
							arch.MulAccOffsetInt8(acc, ws, xs, zp)
							continue
						}
						for ic, v := range xs {
							xv := int32(v) - zp
							for m := ic * mult; m < (ic+1)*mult; m++ {
								acc[m] += int32(ws[m]) * xv
							}
						}
					}
				}
				row := o[oi : oi+outC]
				for c, a := range acc {
					// Each product rounded to float32 on its own (the
					// explicit conversions forbid a fused multiply-add).
					v := float32(float32(float32(a)*sf) * k.chanScale[c])
					if bv != nil {
						v += bv[c]
					}
					row[c] = clampF32(v, k.fMin, k.fMax)
				}
				oi += outC
			}
		}
	}
	return nil
}
