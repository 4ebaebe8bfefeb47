package builtin

import (
	"errors"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
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
//
// A window wider than poolTapsPerValue taps per value allows (a
// declared filter far larger than the image) runs in time linear in the
// input and output, with the same result (pool_sliding_common.go).
type MaxPool2D struct {
	p   pool2D
	max poolMaxScratch
	// The direct paths split the output rows over threads
	// (ops.Node.Parallel): rowsFn reads the tensors in in and out
	// during Eval.
	in, out *ops.Tensor
	rowsFn  func(worker, lo, hi int)
	// taps lists, for the direct paths, the window columns that some
	// output pixel has inside the input with the run of output columns
	// that have it (window.tapRun), taken once at Prepare.
	taps []poolTap
}

// poolTap is one window column fx and the output columns [first, end)
// whose window has it inside the input.
type poolTap struct{ fx, first, end int }

// NewMaxPool2D returns a MAX_POOL_2D kernel for one node.
func NewMaxPool2D() ops.Kernel { return &MaxPool2D{} }

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpMaxPool2D, NewMaxPool2D, [2]int{1, 3})
}

// Prepare validates the node and sets the output shape.
func (k *MaxPool2D) Prepare(n *ops.Node) error {
	k.rowsFn = k.rows
	if err := k.p.prepare(n, ops.Float32, ops.Int8, ops.Uint8, ops.Int16); err != nil {
		return err
	}
	if k.p.sliding {
		return k.max.request(n, &k.p, k.p.typ.Size())
	}
	k.taps = k.taps[:0]
	if k.p.batches > 0 {
		// The direct path's budget (chooseSliding) bounds the taps
		// that matter by the input and output sizes.
		lo, hi := k.p.w.tapRange()
		for fx := lo; fx < hi; fx++ {
			if first, end := k.p.w.tapRun(fx); first < end {
				k.taps = append(k.taps, poolTap{fx, first, end})
			}
		}
	}
	return nil
}

// Eval computes the pooled output.
func (k *MaxPool2D) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("MAX_POOL_2D: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	p := &k.p
	if p.sliding {
		return k.evalSliding(n, in, out)
	}
	k.in, k.out = in, out
	rows := p.batches * p.h.out
	n.Parallel(rows, rows*p.w.out*p.depth*min(p.h.filter, p.h.in)*min(p.w.filter, p.w.in), k.rowsFn)
	k.in, k.out = nil, nil
	return nil
}

// rows computes the output rows [lo, hi) (pool2D.eachRows) of the direct
// paths.
func (k *MaxPool2D) rows(worker, lo, hi int) {
	p, in, out := &k.p, k.in, k.out
	switch p.typ {
	case ops.Float32:
		maxPoolF32(p, k.taps, in.Float32s(), out.Float32s(), lo, hi)
	case ops.Int8:
		maxPoolRows(p, k.taps, in.Int8s(), out.Int8s(), int8(p.qMin), int8(p.qMax), math.MaxInt8, arch.MaxBlocksInt8, lo, hi)
	case ops.Uint8:
		maxPoolRows(p, k.taps, in.Data, out.Data, uint8(p.qMin), uint8(p.qMax), math.MaxUint8, arch.MaxBlocksUint8, lo, hi)
	case ops.Int16:
		maxPoolRows(p, k.taps, in.Int16s(), out.Int16s(), int16(p.qMin), int16(p.qMax), math.MaxInt16, arch.MaxBlocksInt16, lo, hi)
	}
}

// maxPool runs the window maximum over channels-innermost rows, one
// output pixel at a time: the reference the row kernels maxPoolF32 and
// maxPoolRows are tested against.
func maxPool[T float32 | int8 | uint8 | int16](p *pool2D, x, o []T, lowest, lo, hi T, rowLo, rowHi int) {
	depth, rowStride := p.depth, p.w.in*p.depth
	_ = p.eachRows(rowLo, rowHi, func(oi, img, yLo, yHi, xLo, xHi int) error {
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

// maxPoolRows is the integer MAX_POOL_2D, a run of output rows at a time
// (rowRun), as maxPoolF32 runs the float one: each window tap (fy, fx) is
// a blocks call (arch.MaxBlocksInt8 and its twins, see maxPoolTaps) over
// the output pixels that have it. The row starts at the activation's lower bound lo instead
// of the type's lowest value: max(lo, window maximum) is the maximum
// clamped from below, and lo for an empty window, as maxPool gives; the
// upper clamp runs only when hi is below the type's highest value top.
// Integer maxima do not depend on the order, so the result is maxPool's.
func maxPoolRows[T int8 | uint8 | int16](p *pool2D, taps []poolTap, x, o []T, lo, hi, top T,
	blocks func(dst, src []T, n, width, dstStride, srcStride int), rowLo, rowHi int) {
	rowOut := p.w.out * p.depth
	if rowOut == 0 {
		return
	}
	for r0 := rowLo; r0 < rowHi; {
		r1 := p.rowRun(r0, rowHi)
		dst := o[r0*rowOut : r1*rowOut]
		fillValue(dst, lo)
		maxPoolTaps(p, taps, x, dst, r0, r1, blocks)
		if hi < top {
			for i, v := range dst {
				dst[i] = min(v, hi)
			}
		}
		r0 = r1
	}
}

// maxPoolRunValues bounds the output values of one run of rows (rowRun).
const maxPoolRunValues = 4096

// rowRun returns the end of the run of output rows [r0, end) (end ≤ hi)
// of one image whose windows have the same rows of taps inside the
// input: maxPoolTaps takes them together. A run holds at most
// maxPoolRunValues output values (at least one row), so that it stays in
// the L1 cache across its taps.
func (p *pool2D) rowRun(r0, hi int) int {
	oy := r0 % p.h.out
	hi = min(hi, r0-oy+p.h.out, r0+max(1, maxPoolRunValues/max(1, p.w.out*p.depth)))
	_, lo0, hi0 := p.h.span(oy)
	r1 := r0 + 1
	for ; r1 < hi; r1++ {
		if _, lo, hi := p.h.span(oy + r1 - r0); lo != lo0 || hi != hi0 {
			break
		}
	}
	return r1
}

// maxPoolTaps takes the maximum of every window tap into the output rows
// [r0, r1) (dst, filled by the caller), a run of rowRun: for each window
// row fy, then each tap column t (maxPool's order, so that every output
// value sees the same comparisons in the same order), one blocks call
// (arch.MaxBlocksF32 and its integer twins). A tap whose run of output
// pixels is one pixel, or contiguous (width stride 1), is one block per
// output row and one call for the whole run of rows; other taps take one
// call per row over the run's pixels, blocks stride·depth apart. On
// magic_wand's [1, 128, 3, 8] 3×3/3 pool (one output pixel per row) that
// is 9 calls instead of 9 per row.
func maxPoolTaps[T float32 | int8 | uint8 | int16](p *pool2D, taps []poolTap, x, dst []T, r0, r1 int,
	blocks func(dst, src []T, n, width, dstStride, srcStride int)) {
	depth, sw, sh := p.depth, p.w.stride, p.h.stride
	rowIn, rowOut := p.w.in*depth, p.w.out*depth
	b, oy := r0/p.h.out, r0%p.h.out
	yo, fyLo, fyHi := p.h.span(oy)
	nr := r1 - r0
	img := b * p.h.in * rowIn
	for fy := fyLo; fy < fyHi; fy++ {
		base := img + (yo+fy)*rowIn
		for _, t := range taps {
			ix := t.first*sw - p.w.pad + t.fx
			cnt := t.end - t.first
			if cnt == 1 || sw == 1 {
				blocks(dst[t.first*depth:], x[base+ix*depth:], nr, cnt*depth, rowOut, sh*rowIn)
				continue
			}
			for i := range nr {
				blocks(dst[i*rowOut+t.first*depth:], x[base+i*sh*rowIn+ix*depth:], cnt, depth, depth, sw*depth)
			}
		}
	}
}

// tapRange returns the taps [lo, hi) that some output position's window
// has inside the input (tapRun(t) is empty for every other t), so that a
// loop over taps costs what the input has, not what the filter declares:
// a filter of 2^31-1 columns over 4 of them has at most 4+(out-1)·stride
// taps that matter.
func (w *window) tapRange() (lo, hi int) {
	if w.dilation != 1 {
		return 0, w.filter // pools have dilation 1; this is for them
	}
	// Tap t is inside for output o when pad - o·stride ≤ t < pad -
	// o·stride + in; the union over o < out is [pad - (out-1)·stride,
	// pad + in).
	lo64 := max(int64(w.pad)-int64(w.out-1)*int64(w.stride), 0)
	hi64 := min(int64(w.pad)+int64(w.in), int64(w.filter))
	return int(lo64), int(max(hi64, lo64))
}

// maxPoolF32 is maxPool for float32 (lowest -math.MaxFloat32), a run of
// output rows at a time (rowRun): the rows are filled with the lowest
// value, each window tap (fy, fx) is an arch.MaxBlocksF32 call over the
// output pixels whose window has that tap inside the image (blocks of
// depth channels, src blocks stride·depth apart, see maxPoolTaps), and
// the rows are clamped with arch.VecClamp. Taps come in maxPool's order (rows, then columns), so each
// output value sees the same comparisons in the same order and gets the
// same bits, ±0 and NaN included. On ditto_v1_lstm's [4, 32, 64, 16] →
// [4, 16, 32, 16] pool this is 32 calls per row instead of a scalar loop
// per pixel and tap.
func maxPoolF32(p *pool2D, taps []poolTap, x, o []float32, rowLo, rowHi int) {
	rowOut := p.w.out * p.depth
	if rowOut == 0 {
		return
	}
	for r0 := rowLo; r0 < rowHi; {
		r1 := p.rowRun(r0, rowHi)
		dst := o[r0*rowOut : r1*rowOut]
		fillValue(dst, -math.MaxFloat32)
		maxPoolTaps(p, taps, x, dst, r0, r1, arch.MaxBlocksF32)
		arch.VecClamp(dst, p.fMin, p.fMax)
		r0 = r1
	}
}

// evalSliding is Eval in time linear in the input and output (Prepare
// chose it), then the activation's clamp as the direct paths apply it.
func (k *MaxPool2D) evalSliding(n *ops.Node, in, out *ops.Tensor) error {
	p := &k.p
	switch p.typ {
	case ops.Float32:
		o := out.Float32s()
		if err := maxPoolSliding(n, p, &k.max, in.Float32s(), o, -math.MaxFloat32); err != nil {
			return err
		}
		arch.VecClamp(o, p.fMin, p.fMax)
		return nil
	case ops.Int8:
		return maxPoolSlidingClamp(n, p, &k.max, in.Int8s(), out.Int8s(), math.MinInt8)
	case ops.Uint8:
		return maxPoolSlidingClamp(n, p, &k.max, in.Data, out.Data, 0)
	case ops.Int16:
		return maxPoolSlidingClamp(n, p, &k.max, in.Int16s(), out.Int16s(), math.MinInt16)
	}
	return nil
}

// maxPoolSlidingClamp is maxPoolSliding of an integer type, clamped to
// the quantised activation range.
func maxPoolSlidingClamp[T int8 | uint8 | int16](n *ops.Node, p *pool2D, s *poolMaxScratch, x, o []T, lowest T) error {
	if err := maxPoolSliding(n, p, s, x, o, lowest); err != nil {
		return err
	}
	lo, hi := T(p.qMin), T(p.qMax)
	for i, v := range o {
		o[i] = min(max(v, lo), hi)
	}
	return nil
}
