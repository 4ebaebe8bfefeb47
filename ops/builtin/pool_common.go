package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// pool2D is the Prepare shared by MAX_POOL_2D and AVERAGE_POOL_2D
// (TFLite's pooling.cc GenericPrepare): a 4-D NHWC input, an output of the
// same type shaped [batch, outH, outW, channels] with the window geometry
// of Pool2DOptions (dilation 1), and the fused activation's clamp range.
// Quantised tensors are expected to share the input's scale and zero
// point; like TFLite's release build, the kernel does not check it and
// pools the raw values.
type pool2D struct {
	opts           Pool2DOptions
	typ            ops.DataType
	batches, depth int
	h, w           window
	fMin, fMax     float32
	qMin, qMax     int32
	// sliding: the direct loop would visit too many window taps; Eval
	// takes the linear paths of pool_sliding_common.go.
	sliding bool
}

// prepare validates the node for the given operator name and types.
func (p *pool2D) prepare(n *ops.Node, types ...ops.DataType) error {
	*p = pool2D{}
	if o, ok := n.Options.(*Pool2DOptions); ok && o != nil {
		p.opts = *o
	} else {
		return fmt.Errorf("options: have %T, need *Pool2DOptions", n.Options)
	}
	if err := checkActivation(p.opts.Activation); err != nil {
		return fmt.Errorf("options: %v", err)
	}
	if err := n.CheckIO(1, 1, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if err := check4D(in, "input 0"); err != nil {
		return err
	}
	if err := requireType(in, "input 0", types...); err != nil {
		return err
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	inElems, err := numElementsChecked(in, "input 0")
	if err != nil {
		return err
	}
	p.typ = in.Type
	p.batches, p.depth = in.Shape[0], in.Shape[3]
	if p.h, err = newWindow(p.opts.Padding, in.Shape[1], p.opts.FilterHeight, p.opts.StrideH, 1, "height"); err != nil {
		return err
	}
	if p.w, err = newWindow(p.opts.Padding, in.Shape[2], p.opts.FilterWidth, p.opts.StrideW, 1, "width"); err != nil {
		return err
	}
	out.Shape = []int{p.batches, p.h.out, p.w.out, p.depth}
	if elems, err := ops.ShapeElements(out.Shape, in.Type.Size()); err != nil {
		return fmt.Errorf("output 0: %v", err)
	} else if elems == 0 {
		// No output values (0 channels, say): Eval then loops over
		// nothing, not over every pixel of a huge declared image.
		p.batches = 0
	}
	p.chooseSliding(inElems)
	if in.Type == ops.Float32 {
		p.fMin, p.fMax = ActivationRangeFloat(p.opts.Activation)
		return nil
	}
	p.qMin, p.qMax, err = ActivationRangeQuantized(p.opts.Activation, out)
	return err
}

// tapRun returns the run [first, end) of output positions o whose window
// has tap t inside the input: 0 ≤ o·stride - pad + t·dilation < in. The
// run is empty (first ≥ end) when no window has it. It agrees with span:
// o is in the run exactly when span(o) returns lo ≤ t < hi.
func (w *window) tapRun(t int) (first, end int) {
	off := w.pad - t*w.dilation // o·stride ≥ off and o·stride < in + off
	if off > 0 {
		first = (off + w.stride - 1) / w.stride
	}
	if lim := w.in + off; lim > 0 {
		end = min(w.out, (lim+w.stride-1)/w.stride)
	}
	return first, end
}

// each calls f for every output pixel with the pixel's output offset and
// its window: rows [yLo, yHi) and columns [xLo, xHi) of the input, already
// clipped to the image, and the input offset of the image.
func (p *pool2D) each(f func(outOff, imgOff, yLo, yHi, xLo, xHi int) error) error {
	return p.eachRows(0, p.batches*p.h.out, f)
}

// eachRows is each over the output rows [lo, hi) of all images, counted
// across batches (row r is row r mod outH of image r / outH): the units
// a threaded pool splits (ops.Node.Parallel).
func (p *pool2D) eachRows(lo, hi int, f func(outOff, imgOff, yLo, yHi, xLo, xHi int) error) error {
	if p.h.out == 0 {
		return nil
	}
	oi := lo * p.w.out * p.depth
	for r := lo; r < hi; r++ {
		b, oy := r/p.h.out, r%p.h.out
		img := b * p.h.in * p.w.in * p.depth
		yo, fyLo, fyHi := p.h.span(oy)
		for ox := 0; ox < p.w.out; ox++ {
			xo, fxLo, fxHi := p.w.span(ox)
			if err := f(oi, img, yo+fyLo, yo+fyHi, xo+fxLo, xo+fxHi); err != nil {
				return err
			}
			oi += p.depth
		}
	}
	return nil
}

// Pool2DOptions is TFLite's Pool2DOptions (MAX_POOL_2D, AVERAGE_POOL_2D,
// L2_POOL_2D).
type Pool2DOptions struct {
	Padding                   ops.Padding
	StrideW, StrideH          int
	FilterWidth, FilterHeight int
	Activation                ops.Activation
}

func init() {
	registerOptions(schema.BuiltinOptionsPool2DOptions, decodePool2DOptions)
}

// decodePool2DOptions decodes TFLite's Pool2DOptions table.
func decodePool2DOptions(t ops.OptionsTable) (any, error) {
	var o schema.Pool2DOptions
	initTable(&o, t)
	return &Pool2DOptions{
		Padding:      ops.Padding(o.Padding()),
		StrideW:      int(o.StrideW()),
		StrideH:      int(o.StrideH()),
		FilterWidth:  int(o.FilterWidth()),
		FilterHeight: int(o.FilterHeight()),
		Activation:   ops.Activation(o.FusedActivationFunction()),
	}, nil
}
