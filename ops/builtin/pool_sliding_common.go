package builtin

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/tflrun/tflrun/ops"
)

// This file holds the pooling paths whose work does not grow with the
// window: MAX_POOL_2D, AVERAGE_POOL_2D and L2_POOL_2D visit every tap of
// every window (TFLite's order) while that costs at most
// poolTapsPerValue taps per input and output value, and otherwise run in
// time linear in the input and the output, whatever the declared filter
// size: a 2^31-1 wide window on a 32768-wide row made the direct loop
// O(W²) (17 s for one 536-byte model).
//
//   - Sums (average and L2 pool): each output row keeps the running sum
//     of its rows' window sums; every input row is added once when the
//     window reaches it and subtracted once when it leaves, and its
//     window sums come from the row's prefix sums. Integers sum in int32
//     with wraparound as the direct loop (and TFLite's int32
//     accumulator), so the sums — and the averages, with the same
//     rounding — are bit for bit the direct ones. Floats sum in float64:
//     within float32 rounding of TFLite's float32 sum in window order.
//   - Maxima: van Herk/Gil-Werman along each axis, with blocks of the
//     filter size: a window of filter length meets at most two blocks,
//     so its maximum is that of a block suffix and a block prefix. Along
//     H the suffix pass writes the output rows and the prefix pass
//     completes them, so the scratch is a few rows. The maximum is the
//     direct loop's, bits included: of equal values (±0) the first in
//     row-major order, NaN never taken (a value below the lowest float
//     counts as the lowest, which the direct loop starts from).

// poolTapsPerValue is the direct loop's budget: window taps per input
// and output value. A variable so that tests can force either path.
var poolTapsPerValue = 32.0

// poolWork, when tests set it, counts the values the sliding paths visit
// (a row's values and its output row's, per row pass), so that a test can
// bound the work without a clock.
var poolWork *int64

func countPoolWork(p *pool2D) {
	if poolWork != nil {
		*poolWork += int64((p.w.in + p.w.out) * p.depth)
	}
}

// chooseSliding sets p.sliding when the direct loop would visit more
// than poolTapsPerValue taps per input and output value. inElems is the
// input's value count; p.batches is 0 for an empty output.
func (p *pool2D) chooseSliding(inElems int) {
	p.sliding = false
	if p.batches == 0 {
		return
	}
	var rows, cols float64
	for o := 0; o < p.h.out; o++ {
		_, lo, hi := p.h.span(o)
		rows += float64(hi - lo)
	}
	for o := 0; o < p.w.out; o++ {
		_, lo, hi := p.w.span(o)
		cols += float64(hi - lo)
	}
	taps := float64(p.batches) * float64(p.depth) * rows * cols
	outElems := float64(p.batches) * float64(p.h.out) * float64(p.w.out) * float64(p.depth)
	p.sliding = taps > poolTapsPerValue*(float64(inElems)+outElems)
}

// requestScratchElems requests scratch for count values of size bytes,
// failing (where int is 32 bits) when the byte count does not fit.
func requestScratchElems(n *ops.Node, count, size int, what string) (int, error) {
	b := int64(count) * int64(size)
	if count < 0 || b > math.MaxInt32 && unsafe.Sizeof(int(0)) == 4 {
		return 0, fmt.Errorf("%s: %d values of %d bytes do not fit in memory", what, count, size)
	}
	return n.RequestScratch(int(b)), nil
}

// scratchOf views scratch buffer id as count values of E.
func scratchOf[E any](n *ops.Node, id, count int) ([]E, error) {
	var zero E
	b, err := scratchBytes(n, id, count*int(unsafe.Sizeof(zero)))
	if err != nil {
		return nil, err
	}
	return ops.View[E](b)[:count:count], nil
}

// poolSums holds the scratch ids of the sliding sums: the prefix sums of
// one input row ((W+1)·C) and the running sums of one output row
// (outW·C), of the accumulator type.
type poolSums struct{ preID, accID int }

// request asks for the scratch, of accumulators of accSize bytes.
func (s *poolSums) request(n *ops.Node, p *pool2D, accSize int) error {
	var err error
	if s.preID, err = requestScratchElems(n, (p.w.in+1)*p.depth, accSize, "pooling prefix sums"); err != nil {
		return err
	}
	s.accID, err = requestScratchElems(n, p.w.out*p.depth, accSize, "pooling row sums")
	return err
}

// slidingSums calls emit once per output row, in order, with the output
// offset of the row, the number of input rows of its window and acc, the
// sums over each output pixel's window of val(x) per channel (outW·C
// values). pre and acc are the scratch of poolSums.
func slidingSums[T int8 | uint8 | int16 | float32, A int32 | float64](p *pool2D, x []T, val func(T) A,
	pre, acc []A, emit func(oi, rows int, acc []A) error) error {
	rowIn, rowOut := p.w.in*p.depth, p.w.out*p.depth
	oi := 0
	for b := 0; b < p.batches; b++ {
		img := x[b*p.h.in*rowIn : (b+1)*p.h.in*rowIn]
		clear(acc)
		curLo, curHi := 0, 0 // the input rows summed in acc
		for oy := 0; oy < p.h.out; oy++ {
			yo, lo, hi := p.h.span(oy)
			yLo, yHi := yo+lo, yo+hi
			if yLo >= curHi { // no row in common: start afresh
				clear(acc)
				curLo, curHi = yLo, yLo
			}
			for ; curHi < yHi; curHi++ {
				addRowSums(p, img[curHi*rowIn:(curHi+1)*rowIn], val, pre, acc, false)
			}
			for ; curLo < yLo; curLo++ {
				addRowSums(p, img[curLo*rowIn:(curLo+1)*rowIn], val, pre, acc, true)
			}
			if err := emit(oi, yHi-yLo, acc); err != nil {
				return err
			}
			oi += rowOut
		}
	}
	return nil
}

// addRowSums adds (or subtracts) to acc the window sums of one input row:
// for each output column, the sum of val over its clipped window.
func addRowSums[T int8 | uint8 | int16 | float32, A int32 | float64](p *pool2D, row []T, val func(T) A, pre, acc []A, sub bool) {
	countPoolWork(p)
	d := p.depth
	clear(pre[:d])
	for i, v := range row {
		pre[i+d] = pre[i] + val(v)
	}
	for ox := 0; ox < p.w.out; ox++ {
		xo, lo, hi := p.w.span(ox)
		a, e := pre[(xo+lo)*d:(xo+lo+1)*d], pre[(xo+hi)*d:(xo+hi+1)*d]
		dst := acc[ox*d : (ox+1)*d]
		if sub {
			for c := range dst {
				dst[c] -= e[c] - a[c]
			}
		} else {
			for c := range dst {
				dst[c] += e[c] - a[c]
			}
		}
	}
}

// poolMaxScratch holds the scratch ids of the sliding maximum: block
// prefix and suffix maxima of one input row (W·C each), one row reduced
// along W and the running maximum along H (outW·C each).
type poolMaxScratch struct{ preID, sufID, rowID, runID int }

func (s *poolMaxScratch) request(n *ops.Node, p *pool2D, size int) error {
	var err error
	for _, r := range []struct {
		id    *int
		count int
	}{{&s.preID, p.w.in * p.depth}, {&s.sufID, p.w.in * p.depth}, {&s.rowID, p.w.out * p.depth}, {&s.runID, p.w.out * p.depth}} {
		if *r.id, err = requestScratchElems(n, r.count, size, "max pooling rows"); err != nil {
			return err
		}
	}
	return nil
}

// firstMax is the direct loop's step "take v when the maximum so far is
// less": a, the earlier value, unless b is greater. On values of at least
// the lowest it is associative, so blocks can be combined in any
// grouping that keeps their order.
func firstMax[T float32 | int8 | uint8 | int16](a, b T) T {
	if a < b {
		return b
	}
	return a
}

// maxPoolSliding is MAX_POOL_2D, before the activation's clamp, in time
// linear in the input and output (see the file comment); lowest is the
// type's lowest value.
func maxPoolSliding[T float32 | int8 | uint8 | int16](n *ops.Node, p *pool2D, s *poolMaxScratch, x, o []T, lowest T) error {
	d := p.depth
	pre, err := scratchOf[T](n, s.preID, p.w.in*d)
	if err != nil {
		return err
	}
	suf, err := scratchOf[T](n, s.sufID, p.w.in*d)
	if err != nil {
		return err
	}
	row, err := scratchOf[T](n, s.rowID, p.w.out*d)
	if err != nil {
		return err
	}
	run, err := scratchOf[T](n, s.runID, p.w.out*d)
	if err != nil {
		return err
	}
	rowIn, rowOut := p.w.in*d, p.w.out*d
	fh := p.h.filter
	for b := 0; b < p.batches; b++ {
		img := x[b*p.h.in*rowIn : (b+1)*p.h.in*rowIn]
		out := o[b*p.h.out*rowOut : (b+1)*p.h.out*rowOut]
		yWin := func(oy int) (int, int) {
			yo, l, h := p.h.span(oy)
			return yo + l, yo + h
		}
		// Suffix pass, bottom up: run is the maximum from row iy to the
		// end of its block; it becomes the output rows whose window
		// starts at iy.
		oy := p.h.out - 1
		for iy := p.h.in - 1; iy >= 0; iy-- {
			maxRowReduce(p, img[iy*rowIn:(iy+1)*rowIn], pre, suf, row, lowest)
			if iy == p.h.in-1 || (iy+1)%fh == 0 {
				copy(run, row)
			} else {
				for i, v := range row {
					run[i] = firstMax(v, run[i])
				}
			}
			for ; oy >= 0; oy-- {
				yLo, yHi := yWin(oy)
				if yLo < iy {
					break
				}
				if yHi > yLo {
					copy(out[oy*rowOut:(oy+1)*rowOut], run)
				}
			}
		}
		// Prefix pass, top down: run is the maximum from the start of
		// row iy's block to iy; it completes the output rows whose
		// window ends at iy.
		oy = 0
		for iy := 0; iy < p.h.in && oy < p.h.out; iy++ {
			maxRowReduce(p, img[iy*rowIn:(iy+1)*rowIn], pre, suf, row, lowest)
			if iy%fh == 0 {
				copy(run, row)
			} else {
				for i, v := range row {
					run[i] = firstMax(run[i], v)
				}
			}
			for ; oy < p.h.out; oy++ {
				yLo, yHi := yWin(oy)
				if yHi == yLo {
					fillValue(out[oy*rowOut:(oy+1)*rowOut], lowest)
					continue
				}
				if yHi-1 > iy {
					break
				}
				dst := out[oy*rowOut : (oy+1)*rowOut]
				switch {
				case yLo/fh != iy/fh: // two blocks: suffix then prefix
					for i, v := range run {
						dst[i] = firstMax(dst[i], v)
					}
				case yLo%fh == 0: // the block's start to iy
					copy(dst, run)
				}
				// Otherwise the window is the end of the last block:
				// the suffix already written.
			}
		}
		for ; oy < p.h.out; oy++ { // windows wholly in the padding
			fillValue(out[oy*rowOut:(oy+1)*rowOut], lowest)
		}
	}
	return nil
}

// maxRowReduce sets dst (outW·C) to the maximum of each output column's
// window of one input row, with pre and suf (W·C) the row's block
// prefix and suffix maxima. Values below lowest (NaN, -Inf) count as
// lowest, which the direct loop starts from and never replaces by them.
func maxRowReduce[T float32 | int8 | uint8 | int16](p *pool2D, src, pre, suf, dst []T, lowest T) {
	countPoolWork(p)
	d, fw, w := p.depth, p.w.filter, p.w.in
	for ix := 0; ix < w; ix++ {
		cur, prev := pre[ix*d:(ix+1)*d], src[ix*d:(ix+1)*d]
		if ix%fw == 0 {
			for c, v := range prev {
				if !(v >= lowest) {
					v = lowest
				}
				cur[c] = v
			}
			continue
		}
		last := pre[(ix-1)*d : ix*d]
		for c, v := range prev {
			if !(v >= lowest) {
				v = lowest
			}
			cur[c] = firstMax(last[c], v)
		}
	}
	for ix := w - 1; ix >= 0; ix-- {
		cur, v0 := suf[ix*d:(ix+1)*d], src[ix*d:(ix+1)*d]
		if ix == w-1 || (ix+1)%fw == 0 {
			for c, v := range v0 {
				if !(v >= lowest) {
					v = lowest
				}
				cur[c] = v
			}
			continue
		}
		next := suf[(ix+1)*d : (ix+2)*d]
		for c, v := range v0 {
			if !(v >= lowest) {
				v = lowest
			}
			cur[c] = firstMax(v, next[c])
		}
	}
	for ox := 0; ox < p.w.out; ox++ {
		xo, l, h := p.w.span(ox)
		out := dst[ox*d : (ox+1)*d]
		lo, hi := xo+l, xo+h
		switch {
		case hi == lo:
			fillValue(out, lowest)
		case lo/fw != (hi-1)/fw: // two blocks
			a, b := suf[lo*d:(lo+1)*d], pre[(hi-1)*d:hi*d]
			for c := range out {
				out[c] = firstMax(a[c], b[c])
			}
		case lo%fw == 0:
			copy(out, pre[(hi-1)*d:hi*d])
		default: // the end of the last block
			copy(out, suf[lo*d:(lo+1)*d])
		}
	}
}
