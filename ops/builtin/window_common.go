package builtin

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// This file holds the sliding-window geometry shared by CONV_2D,
// DEPTHWISE_CONV_2D and the pooling kernels: output sizes and leading
// padding as TFLite computes them (tflite/kernels/padding.h,
// ComputePaddingHeightWidth, matching TensorFlow's GetWindowedOutputSize).

// window is the geometry of one spatial dimension of a windowed operator.
type window struct {
	in, filter, stride, dilation int
	out, pad                     int
}

// newWindow computes the output size and the leading padding of one
// spatial dimension. SAME gives ceil(in/stride) outputs, VALID
// floor((in - effective_filter)/stride) + 1 (0 when the filter does not
// fit), where effective_filter = (filter-1)·dilation + 1. The leading
// padding is half the total padding, rounded down, and never negative; the
// odd extra pixel goes to the trailing side. Arithmetic is done in int64 so
// hostile strides or dilations cannot overflow on 32-bit targets.
func newWindow(p ops.Padding, in, filter, stride, dilation int, what string) (window, error) {
	w := window{in: in, filter: filter, stride: stride, dilation: dilation}
	if stride <= 0 {
		return w, fmt.Errorf("options: %s stride %d must be > 0", what, stride)
	}
	if dilation <= 0 {
		return w, fmt.Errorf("options: %s dilation factor %d must be > 0", what, dilation)
	}
	if filter <= 0 {
		return w, fmt.Errorf("%s filter size %d must be > 0", what, filter)
	}
	eff := int64(filter-1)*int64(dilation) + 1
	in64, s := int64(in), int64(stride)
	var out int64
	switch p {
	case ops.PaddingSame:
		out = (in64 + s - 1) / s
	case ops.PaddingValid:
		// C's truncating division, as TFLite: a filter larger than the
		// input gives 0 (or a negative count, refused below).
		out = (in64 + s - eff) / s
	default:
		return w, fmt.Errorf("options: padding %s is not SAME or VALID", p)
	}
	if out < 0 {
		return w, fmt.Errorf("%s: effective filter size %d exceeds the input size %d", what, eff, in)
	}
	if out > math.MaxInt32 {
		return w, fmt.Errorf("%s: output size %d overflows", what, out)
	}
	pad := ((out-1)*s + eff - in64) / 2
	if pad < 0 {
		pad = 0
	}
	if pad > math.MaxInt32 {
		return w, fmt.Errorf("%s: padding %d overflows", what, pad)
	}
	w.out, w.pad = int(out), int(pad)
	return w, nil
}

// newWindowPadded is the geometry of a VALID window over the input
// grown by before and after elements of padding: the window of a
// convolution that reads its input through a folded PAD (the
// interpreter's fusion; see Conv2DOptions.ExplicitPad). in stays the
// real input size, so positions outside [0, in) are padding as for
// SAME; the output size and the windows are those of VALID over the
// padded input of in+before+after elements: out = (in + before + after
// − effective_filter)/stride + 1, the leading padding before. With
// before = after = 0 it is newWindow's VALID window.
func newWindowPadded(in, filter, stride, dilation, before, after int, what string) (window, error) {
	if before < 0 || after < 0 || before > math.MaxInt32 || after > math.MaxInt32 {
		return window{}, fmt.Errorf("options: %s explicit padding %d, %d must be in [0, 2^31)", what, before, after)
	}
	padded := int64(in) + int64(before) + int64(after)
	if padded > math.MaxInt32 {
		return window{}, fmt.Errorf("%s: padded input size %d overflows", what, padded)
	}
	w, err := newWindow(ops.PaddingValid, int(padded), filter, stride, dilation, what)
	if err != nil {
		return w, err
	}
	w.in, w.pad = in, before
	return w, nil
}

// span returns, for output position o, the first input coordinate of the
// window (possibly negative) and the range [lo, hi) of filter taps whose
// input coordinate origin + tap·dilation lies inside [0, in).
func (w *window) span(o int) (origin, lo, hi int) {
	origin = o*w.stride - w.pad
	lo, hi = 0, w.filter
	if origin < 0 {
		lo = (-origin + w.dilation - 1) / w.dilation
	}
	if end := w.in - origin; end < hi*w.dilation {
		// Taps t with origin + t·dilation < in: t < ceil((in-origin)/dilation).
		if end <= 0 {
			hi = 0
		} else {
			hi = min(hi, (end+w.dilation-1)/w.dilation)
		}
	}
	if hi < lo {
		hi = lo
	}
	return origin, lo, hi
}

// check4D checks that t is 4-D and names it otherwise.
func check4D(t *ops.Tensor, label string) error {
	if t.Rank() != 4 {
		return fmt.Errorf("%s: rank %d, need 4", label, t.Rank())
	}
	return nil
}
