package builtin

import (
	"errors"
	"math"

	"github.com/tflrun/tflrun/ops"
)

// L2Pool2D is the kernel of TFLite's L2_POOL_2D operator: each output
// value is the root mean square of the input values under its window,
// counting only positions inside the image, then clamped to the fused
// activation's range:
//
//	out = act(sqrt(Σ x² · (1/count))).
//
// Input 0 and output 0 are float32 NHWC [batch, H, W, C]; the window
// geometry is Pool2DOptions' (as MAX_POOL_2D's). The arithmetic is that of
// TFLite's optimised L2Pool in float32: the squares summed in row-major
// window order, multiplied by the reciprocal of the count, square-rooted —
// TFLite's result bit for bit. A window with no position inside the image
// gives NaN, as TFLite's 0·(1/0). TFLite has no quantised L2_POOL_2D;
// version 1, TFLite's register.cc.
type L2Pool2D struct {
	p pool2D
}

// NewL2Pool2D returns an L2_POOL_2D kernel for one node.
func NewL2Pool2D() ops.Kernel { return &L2Pool2D{} }

func init() {
	register(ops.OpL2Pool2D, NewL2Pool2D, [2]int{1, 1})
}

// Prepare validates the node and sets the output shape.
func (k *L2Pool2D) Prepare(n *ops.Node) error {
	return k.p.prepare(n, ops.Float32)
}

// Eval computes the pooled output.
func (k *L2Pool2D) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("L2_POOL_2D: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	p := &k.p
	x, o := in.Float32s(), out.Float32s()
	depth, rowStride := p.depth, p.w.in*p.depth
	return p.each(func(oi, img, yLo, yHi, xLo, xHi int) error {
		count := (yHi - yLo) * (xHi - xLo)
		dst := o[oi : oi+depth]
		clear(dst)
		for iy := yLo; iy < yHi; iy++ {
			for ix := xLo; ix < xHi; ix++ {
				off := img + iy*rowStride + ix*depth
				for c, v := range x[off : off+depth] {
					dst[c] += float32(v * v)
				}
			}
		}
		inv := float32(1) / float32(count)
		for c, v := range dst {
			r := float32(math.Sqrt(float64(float32(v * inv))))
			dst[c] = clampF32(r, p.fMin, p.fMax)
		}
		return nil
	})
}
