package builtin

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
)

// resizeGeometry is the shape handling RESIZE_BILINEAR and
// RESIZE_NEAREST_NEIGHBOR share: a 4-D NHWC input, a constant int32 size
// tensor [2] holding the new height and width, an output [batch, height,
// width, depth] of the input's type.
type resizeGeometry struct {
	batch, inH, inW, depth int
	outH, outW             int
	opts                   ResizeOptions
}

func (g *resizeGeometry) prepare(n *ops.Node) (in, out *ops.Tensor, err error) {
	*g = resizeGeometry{}
	if o, ok := n.Options.(*ResizeOptions); ok {
		if o != nil {
			g.opts = *o
		}
	} else if n.Options != nil {
		return nil, nil, fmt.Errorf("options: have %T, need *ResizeOptions", n.Options)
	}
	if err := n.CheckIO(2, 2, 1); err != nil {
		return nil, nil, err
	}
	if in, out, err = unaryCopyIO(n); err != nil {
		return nil, nil, err
	}
	if in.Rank() != 4 {
		return nil, nil, fmt.Errorf("input 0: rank %d, need 4 (NHWC)", in.Rank())
	}
	st, err := n.RequireInput(1)
	if err != nil {
		return nil, nil, err
	}
	if st.Type != ops.Int32 {
		return nil, nil, fmt.Errorf("input 1 (size): type %s, need int32", st.Type)
	}
	size, err := constIntVector(st, "input 1 (size)", 2)
	if err != nil {
		return nil, nil, err
	}
	if st.Rank() != 1 {
		return nil, nil, fmt.Errorf("input 1 (size): shape %v, need [2]", st.Shape)
	}
	for i, s := range size {
		if s <= 0 || s > math.MaxInt32 {
			return nil, nil, fmt.Errorf("input 1 (size): entry %d is %d; sizes must be > 0", i, s)
		}
	}
	g.batch, g.inH, g.inW, g.depth = in.Shape[0], in.Shape[1], in.Shape[2], in.Shape[3]
	g.outH, g.outW = int(size[0]), int(size[1])
	shape := []int{g.batch, g.outH, g.outW, g.depth}
	elems, err := ops.ShapeElements(shape, in.Type.Size())
	if err != nil {
		return nil, nil, fmt.Errorf("output 0: %v", err)
	}
	out.Shape = shape
	if elems == 0 {
		// Nothing to compute: the kernels build no tables and Eval loops
		// over nothing, whatever the other declared sizes (a 0-batch
		// input resized to 2^31-1 × 2^31-1).
		g.batch, g.outH, g.outW = 0, 0, 0
		return in, out, nil
	}
	if g.inH == 0 || g.inW == 0 {
		return nil, nil, fmt.Errorf("input 0: shape %v has no pixels to resize to %dx%d", in.Shape, g.outH, g.outW)
	}
	// The per-row and per-column tables of either kernel (at most one
	// resizeTap each), charged before the kernel makes them.
	if err := n.Reserve((g.outH+g.outW)*int(unsafe.Sizeof(resizeTap{})), "resize interpolation tables"); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// scale is TFLite's input/output coordinate scale for one axis, in
// float32: in/out, or (in−1)/(out−1) with align_corners and out > 1.
func (g *resizeGeometry) scale(in, out int) float32 {
	if g.opts.AlignCorners && out > 1 {
		return float32(in-1) / float32(out-1)
	}
	return float32(in) / float32(out)
}

// ResizeOptions is TFLite's ResizeBilinearOptions and
// ResizeNearestNeighborOptions (operators RESIZE_BILINEAR and
// RESIZE_NEAREST_NEIGHBOR), which have the same fields.
type ResizeOptions struct {
	// AlignCorners maps the corner pixels of input and output onto each
	// other (scale (in−1)/(out−1)).
	AlignCorners bool
	// HalfPixelCenters samples at pixel centres (x+0.5)·scale − 0.5.
	HalfPixelCenters bool
}
