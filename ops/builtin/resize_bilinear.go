package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// ResizeBilinear is the kernel of TFLite's RESIZE_BILINEAR operator for
// float32: every output pixel interpolates the four input pixels around
// its source position, computed as TFLite's reference ResizeBilinear in
// float32: the source coordinate is y·scale (or (y+0.5)·scale − 0.5 with
// half_pixel_centers), the lower neighbour its floor clamped at 0, the
// upper its ceiling clamped at the last row, and the weights the
// fractional distances. align_corners and half_pixel_centers together are
// refused, as in TFLite. Quantised inputs are not supported.
type ResizeBilinear struct {
	g      resizeGeometry
	ys, xs []resizeTap
}

// resizeTap is one output row's (or column's) two source indices and the
// weight of the upper one.
type resizeTap struct {
	lo, hi int
	frac   float32
}

// NewResizeBilinear returns a RESIZE_BILINEAR kernel for one node.
func NewResizeBilinear() ops.Kernel { return &ResizeBilinear{} }

func init() {
	register(ops.OpResizeBilinear, NewResizeBilinear, [2]int{1, 4})
	registerOptions(schema.BuiltinOptionsResizeBilinearOptions, decodeResizeBilinearOptions)
}

// decodeResizeBilinearOptions decodes TFLite's ResizeBilinearOptions table.
func decodeResizeBilinearOptions(t ops.OptionsTable) (any, error) {
	var o schema.ResizeBilinearOptions
	initTable(&o, t)
	return &ResizeOptions{AlignCorners: o.AlignCorners(), HalfPixelCenters: o.HalfPixelCenters()}, nil
}

// Prepare validates the node, sets the output shape and precomputes the
// interpolation taps.
func (k *ResizeBilinear) Prepare(n *ops.Node) error {
	*k = ResizeBilinear{}
	in, _, err := k.g.prepare(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32); err != nil {
		return fmt.Errorf("%v; quantised RESIZE_BILINEAR is not supported", err)
	}
	if k.g.opts.AlignCorners && k.g.opts.HalfPixelCenters {
		return errors.New("options: half_pixel_centers needs align_corners false")
	}
	k.ys = bilinearTaps(k.g.outH, k.g.inH, k.g.scale(k.g.inH, k.g.outH), k.g.opts.HalfPixelCenters)
	k.xs = bilinearTaps(k.g.outW, k.g.inW, k.g.scale(k.g.inW, k.g.outW), k.g.opts.HalfPixelCenters)
	return nil
}

// bilinearTaps is TFLite's ComputeInterpolationValues for every output
// coordinate.
func bilinearTaps(out, in int, scale float32, halfPixel bool) []resizeTap {
	taps := make([]resizeTap, out)
	for i := range taps {
		var v float32
		if halfPixel {
			v = (float32(i)+0.5)*scale - 0.5
		} else {
			v = float32(i) * scale
		}
		lo := max(int(math.Floor(float64(v))), 0)
		hi := min(int(math.Ceil(float64(v))), in-1)
		taps[i] = resizeTap{lo: lo, hi: hi, frac: v - float32(lo)}
	}
	return taps
}

// Eval interpolates.
func (k *ResizeBilinear) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("RESIZE_BILINEAR: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	g := &k.g
	src, dst := in.Float32s(), out.Float32s()
	d := g.depth
	o := 0
	for b := 0; b < g.batch; b++ {
		base := b * g.inH * g.inW * d
		for _, ty := range k.ys {
			r0 := base + ty.lo*g.inW*d
			r1 := base + ty.hi*g.inW*d
			dy := ty.frac
			for _, tx := range k.xs {
				dx := tx.frac
				p00, p10 := src[r0+tx.lo*d:r0+tx.lo*d+d], src[r1+tx.lo*d:r1+tx.lo*d+d]
				p01, p11 := src[r0+tx.hi*d:r0+tx.hi*d+d], src[r1+tx.hi*d:r1+tx.hi*d+d]
				row := dst[o : o+d]
				for c := range row {
					// TFLite's order of products and sums.
					row[c] = p00[c]*(1-dy)*(1-dx) + p10[c]*dy*(1-dx) + p01[c]*(1-dy)*dx + p11[c]*dy*dx
				}
				o += d
			}
		}
	}
	return nil
}
