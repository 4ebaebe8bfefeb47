package builtin

import (
	"errors"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// ResizeNearestNeighbor is the kernel of TFLite's RESIZE_NEAREST_NEIGHBOR
// operator: every output pixel copies the input pixel its source position
// falls in. As TFLite's reference kernel the source index is
// floor((i + offset)·scale) (offset 0.5 with half_pixel_centers), or
// round-half-away((i + offset)·scale) with align_corners, clamped to the
// last index (and at 0 with half_pixel_centers), in float32. uint8
// without either option takes TFLite's optimised fixed-point mapping
// (i·((in<<16)/out + 1)) >> 16, which is what TFLite runs there. Types:
// any fixed-size type.
type ResizeNearestNeighbor struct {
	g      resizeGeometry
	elem   int
	ys, xs []int
	// Output rows are split over threads (ops.Node.Parallel); rowsFn
	// reads the tensors in in and out during Eval.
	in, out *ops.Tensor
	rowsFn  func(worker, lo, hi int)
}

// NewResizeNearestNeighbor returns a RESIZE_NEAREST_NEIGHBOR kernel for one
// node.
func NewResizeNearestNeighbor() ops.Kernel { return &ResizeNearestNeighbor{} }

func init() {
	register(ops.OpResizeNearestNeighbor, NewResizeNearestNeighbor, [2]int{1, 4})
	registerOptions(schema.BuiltinOptionsResizeNearestNeighborOptions, decodeResizeNearestNeighborOptions)
}

// decodeResizeNearestNeighborOptions decodes TFLite's ResizeNearestNeighborOptions table.
func decodeResizeNearestNeighborOptions(t ops.OptionsTable) (any, error) {
	var o schema.ResizeNearestNeighborOptions
	initTable(&o, t)
	return &ResizeOptions{AlignCorners: o.AlignCorners(), HalfPixelCenters: o.HalfPixelCenters()}, nil
}

// Prepare validates the node, sets the output shape and precomputes the
// source indices.
func (k *ResizeNearestNeighbor) Prepare(n *ops.Node) error {
	*k = ResizeNearestNeighbor{}
	k.rowsFn = k.evalRows
	in, _, err := k.g.prepare(n)
	if err != nil {
		return err
	}
	k.elem = in.Type.Size()
	fixed := in.Type == ops.Uint8 && !k.g.opts.AlignCorners && !k.g.opts.HalfPixelCenters
	k.ys = k.nearest(k.g.outH, k.g.inH, fixed)
	k.xs = k.nearest(k.g.outW, k.g.inW, fixed)
	return nil
}

func (k *ResizeNearestNeighbor) nearest(out, in int, fixed bool) []int {
	if out <= 0 {
		return nil // an empty output (resizeGeometry zeroes the sizes)
	}
	idx := make([]int, out)
	if fixed {
		s := int64(in)<<16/int64(out) + 1
		for i := range idx {
			idx[i] = min(int(int64(i)*s>>16), in-1)
		}
		return idx
	}
	scale := k.g.scale(in, out)
	var offset float32
	if k.g.opts.HalfPixelCenters {
		offset = 0.5
	}
	for i := range idx {
		v := (float32(i) + offset) * scale
		var j int
		if k.g.opts.AlignCorners {
			j = int(roundf(v))
		} else {
			j = int(math.Floor(float64(v)))
		}
		j = min(j, in-1)
		if k.g.opts.HalfPixelCenters {
			j = max(j, 0)
		}
		idx[i] = j
	}
	return idx
}

// Eval copies the chosen pixels.
func (k *ResizeNearestNeighbor) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("RESIZE_NEAREST_NEIGHBOR: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	g := &k.g
	rows := g.batch * g.outH
	k.in, k.out = in, out
	n.Parallel(rows, rows*g.outW*g.depth*k.elem/4, k.rowsFn)
	k.in, k.out = nil, nil
	return nil
}

// evalRows copies the output rows [lo, hi), counted across batches.
func (k *ResizeNearestNeighbor) evalRows(worker, lo, hi int) {
	g, in, out := &k.g, k.in, k.out
	px := g.depth * k.elem
	rowBytes := len(k.xs) * px
	o := lo * rowBytes
	for r := lo; r < hi; r++ {
		b, i := r/g.outH, r%g.outH
		base := b * g.inH * g.inW * px
		y := k.ys[i]
		if r > lo && i > 0 && y == k.ys[i-1] {
			// The same source row as the output row above (every
			// upsampling repeats rows), computed by this call: one
			// copy of that row.
			copy(out.Data[o:o+rowBytes], out.Data[o-rowBytes:o])
			o += rowBytes
			continue
		}
		row := base + y*g.inW*px
		for _, x := range k.xs {
			s := row + x*px
			copy(out.Data[o:o+px], in.Data[s:s+px])
			o += px
		}
	}
}
