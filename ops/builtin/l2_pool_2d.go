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
//
// A window wider than poolTapsPerValue taps per value allows (a
// declared filter far larger than the image) sums the squares with
// sliding float64 sums, in time linear in the input and output
// (pool_sliding_common.go).
type L2Pool2D struct {
	p    pool2D
	sums poolSums
}

// NewL2Pool2D returns an L2_POOL_2D kernel for one node.
func NewL2Pool2D() ops.Kernel { return &L2Pool2D{} }

func init() {
	register(ops.OpL2Pool2D, NewL2Pool2D, [2]int{1, 1})
}

// Prepare validates the node and sets the output shape.
func (k *L2Pool2D) Prepare(n *ops.Node) error {
	if err := k.p.prepare(n, ops.Float32); err != nil {
		return err
	}
	if k.p.sliding {
		return k.sums.request(n, &k.p, 8)
	}
	return nil
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
	if p.sliding {
		return k.evalSliding(n, x, o)
	}
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

// evalSliding is Eval with sliding float64 sums of the float32 squares
// (Prepare chose them), each then taken as TFLite's float32 sum would be.
func (k *L2Pool2D) evalSliding(n *ops.Node, x, o []float32) error {
	p := &k.p
	pre, err := scratchOf[float64](n, k.sums.preID, (p.w.in+1)*p.depth)
	if err != nil {
		return err
	}
	acc, err := scratchOf[float64](n, k.sums.accID, p.w.out*p.depth)
	if err != nil {
		return err
	}
	return slidingSums(p, x, func(v float32) float64 { return float64(float32(v * v)) }, pre, acc,
		func(oi, rows int, acc []float64) error {
			for ox := 0; ox < p.w.out; ox++ {
				_, lo, hi := p.w.span(ox)
				inv := float32(1) / float32(rows*(hi-lo))
				dst := o[oi+ox*p.depth : oi+(ox+1)*p.depth]
				for c, v := range acc[ox*p.depth : (ox+1)*p.depth] {
					r := float32(math.Sqrt(float64(float32(float32(v) * inv))))
					dst[c] = clampF32(r, p.fMin, p.fMax)
				}
			}
			return nil
		})
}
