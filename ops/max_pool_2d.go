package ops

import (
	"errors"
	"math"
)

// MaxPool2D is the kernel of TFLite's MAX_POOL_2D operator: each output
// value is the largest input value under its window (positions in the
// padding are skipped), then clamped to the fused activation's range.
//
// Input 0 and output 0 are NHWC [batch, H, W, C] of one type: float32,
// int8, uint8 or int16 (quantised tensors share scale and zero point, so
// raw values are compared). Pool2DOptions give the window, strides and
// padding (SAME or VALID). Matches TFLite's pooling.cc MaxEval; a NaN
// never replaces a running maximum, as with std::max.
type MaxPool2D struct{ p pool2D }

// NewMaxPool2D returns a MAX_POOL_2D kernel for one node.
func NewMaxPool2D() Kernel { return &MaxPool2D{} }

// Prepare validates the node and sets the output shape.
func (k *MaxPool2D) Prepare(n *Node) error {
	return k.p.prepare(n, Float32, Int8, Uint8, Int16)
}

// Eval computes the pooled output.
func (k *MaxPool2D) Eval(n *Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("MAX_POOL_2D: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	p := &k.p
	switch p.typ {
	case Float32:
		maxPool(p, in.Float32s(), out.Float32s(), -math.MaxFloat32, p.fMin, p.fMax)
	case Int8:
		maxPool(p, in.Int8s(), out.Int8s(), math.MinInt8, int8(p.qMin), int8(p.qMax))
	case Uint8:
		maxPool(p, in.Data, out.Data, 0, uint8(p.qMin), uint8(p.qMax))
	case Int16:
		maxPool(p, in.Int16s(), out.Int16s(), math.MinInt16, int16(p.qMin), int16(p.qMax))
	}
	return nil
}

// maxPool runs the window maximum over channels-innermost rows.
func maxPool[T float32 | int8 | uint8 | int16](p *pool2D, x, o []T, lowest, lo, hi T) {
	depth, rowStride := p.depth, p.w.in*p.depth
	_ = p.each(func(oi, img, yLo, yHi, xLo, xHi int) error {
		dst := o[oi : oi+depth]
		fillValue(dst, lowest)
		for iy := yLo; iy < yHi; iy++ {
			for ix := xLo; ix < xHi; ix++ {
				off := img + iy*rowStride + ix*depth
				src := x[off : off+depth]
				for c, v := range src {
					if dst[c] < v {
						dst[c] = v
					}
				}
			}
		}
		for c, v := range dst {
			if v < lo {
				v = lo
			}
			if v > hi {
				v = hi
			}
			dst[c] = v
		}
		return nil
	})
}
