package builtin

import (
	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// The multiplier path of DEPTHWISE_CONV_2D: a depth multiplier m > 1
// over few channels (outC = inC·m ≤ dwMultMaxC: magic_wand,
// person_detect, micro_speech, KNIFT, the audio support model). Rect
// mode spends its time there repeating the input m times and, on images
// a few pixels wide, in bands of one to three columns (runRectCols).
// arch.DepthwiseMultF32 reads the input as it is (with one input
// channel, or m a multiple of 8, one broadcast value per tap and block
// of channels; otherwise the block's few input channels permuted onto
// its lanes), keeps every output pixel's channels in one vector and
// eight pixels in flight whatever the rectangle's shape.
//
//   - float32: the band rectangles of rect mode (rowBands × colBands),
//     each output value the same sum in the same order as there (bias,
//     then the taps by filter row, then column, no fused multiply-add),
//     so the bits are rect mode's on amd64.
//   - int8 and uint8: every block of output rows first gets the input
//     rows it reads converted to float32 x + input offset into the
//     thread's band, padded on every side with the rows and columns of
//     zeros that the zero point becomes: their products are 0, so every
//     pixel sees every tap, the sums are TFLite's int32 ones (exact in
//     float32, see maxRectTaps), and the kernel runs whole output rows
//     into an int32 tile that arch.RequantizeChannels* turns into the
//     output. Filters of more than dwMultQ8Taps taps take the byte path
//     instead where it applies (AVX-512 VNNI, Prepare tries it first):
//     four taps per instruction win there (micro_speech's 10x8).
//
// The path is taken when arch.DepthwiseMultNative (AVX2): elsewhere rect
// mode's NEON kernels fuse their multiply-adds, and its results stand.
type dwMult struct {
	// Integer paths: the padded band of wp pixels per row, blockRows
	// output rows per band, tileRows per int32 tile.
	wp                 int
	blockRows, bandLen int
	tileRows           int
	bandID, tileID     int
}

// dwMultMaxC bounds the output channels of the multiplier path.
const dwMultMaxC = 32

// dwMultQ8Taps is the most taps for which the integer paths take the
// multiplier path rather than the byte path.
const dwMultQ8Taps = 16

// dwMultTile is the int32 tile of the integer multiplier path, in values.
const dwMultTile = 4096

// dwMultMaxBand bounds a band of the integer multiplier path, in floats
// (hostile dilations make it far larger than the image).
const dwMultMaxBand = 4 << 20

// dwMultUse overrides the choice of the multiplier path in tests: 0
// automatic, 1 always (portable kernel included), -1 never.
var dwMultUse = 0

// prepareMult sets up the multiplier path if it applies (k.q and k.cq
// prepared for the integer paths) and reports whether it does.
func (k *DepthwiseConv2D) prepareMult(n *ops.Node, filter, bias *ops.Tensor) bool {
	switch {
	case dwMultUse < 0, k.mult < 2, k.outC > dwMultMaxC:
		return false
	case dwMultUse == 0 && !arch.DepthwiseMultNative():
		return false
	}
	taps := k.h.filter * k.w.filter
	if k.path != convFloat && taps > maxRectTaps {
		return false
	}
	d := &dwMult{bandID: -1, tileID: -1}
	if k.path == convFloat {
		k.rowBands, k.colBands = dwBands(&k.h), dwBands(&k.w)
		if bias == nil {
			k.zeroBiasF = make([]float32, k.outC)
		}
	} else {
		d.wp = (k.w.out-1)*k.w.stride + (k.w.filter-1)*k.w.dilation + 1
		rowLen := d.wp * k.inC
		span := (k.h.filter-1)*k.h.dilation + 1
		rows := func(b int) int { return (b-1)*k.h.stride + span }
		s := k.h.stride
		b := min(max(1, (4*(span-s)+s-1)/s), k.h.out)
		for b < k.h.out && rows(b+1)*rowLen <= dwBandTarget {
			b++
		}
		if int64(rows(b))*int64(rowLen) > dwMultMaxBand {
			return false
		}
		d.blockRows, d.bandLen = b, rows(b)*rowLen
		outRow := k.w.out * k.outC
		d.tileRows = max(1, min(dwMultTile/outRow, b))
		d.bandID = n.RequestScratch(4 * d.bandLen * n.Threads())
		d.tileID = n.RequestScratch(4 * d.tileRows * outRow * n.Threads())
		if filter.IsConstant() {
			k.wF = make([]float32, taps*k.outC)
			k.convertFilter(k.wF, filter)
		} else {
			k.wfID = n.RequestScratch(4 * taps * k.outC)
		}
		if bias == nil {
			k.zeroBiasI = make([]int32, k.outC)
		}
	}
	k.dm = d
	k.rowsFn = k.multRows
	return true
}

// evalMult runs the multiplier path one batch image at a time.
func (k *DepthwiseConv2D) evalMult(n *ops.Node, in, filter, bias, out *ops.Tensor) error {
	d := k.dm
	C := k.outC
	r := &k.run
	defer func() { k.run = dwRun{} }()
	r.rowSize = k.w.in * k.inC
	var err error
	if d.bandID >= 0 {
		if r.xf, err = scratchFloat32(n, d.bandID, d.bandLen*n.Threads()); err != nil {
			return err
		}
	}
	inImage, outImage := k.h.in*k.w.in*k.inC, k.h.out*k.w.out*C
	work := k.h.out * k.w.out * C * k.h.filter * k.w.filter
	if k.path == convFloat {
		x, o := in.Float32s(), out.Float32s()
		r.w, r.bf = filter.Float32s(), k.zeroBiasF
		if bias != nil {
			r.bf = bias.Float32s()[:C]
		}
		for batch := 0; batch < k.batches; batch++ {
			r.srcF = x[batch*inImage : (batch+1)*inImage]
			r.o = rectOut{f: o[batch*outImage : (batch+1)*outImage]}
			n.Parallel(k.h.out, work, k.rowsFn)
		}
		return nil
	}
	if r.acc, err = scratchInt32(n, d.tileID, d.tileRows*k.w.out*C*n.Threads()); err != nil {
		return err
	}
	r.w = k.wF
	if r.w == nil {
		if r.w, err = scratchFloat32(n, k.wfID, k.h.filter*k.w.filter*C); err != nil {
			return err
		}
		k.convertFilter(r.w, filter)
	}
	r.bi = k.zeroBiasI
	if bias != nil {
		r.bi = bias.Int32s()[:C]
	}
	for batch := 0; batch < k.batches; batch++ {
		if k.path == convInt8 {
			r.src8 = in.Int8s()[batch*inImage : (batch+1)*inImage]
			r.o = rectOut{i8: out.Int8s()[batch*outImage : (batch+1)*outImage]}
		} else {
			r.srcU = in.Data[batch*inImage : (batch+1)*inImage]
			r.o = rectOut{u8: out.Data[batch*outImage : (batch+1)*outImage]}
		}
		n.Parallel(k.h.out, work, k.rowsFn)
	}
	return nil
}

// multRows computes the output rows [lo, hi) of the current image.
func (k *DepthwiseConv2D) multRows(worker, lo, hi int) {
	r := &k.run
	if k.path != convFloat {
		k.multRowsQuant(worker, lo, hi)
		return
	}
	k.multBlockFloat(r.srcF, lo, hi)
}

// multBlockFloat runs the kernel over the output rows [lo, hi) of the
// float path, band rectangle by band rectangle, on the image x.
func (k *DepthwiseConv2D) multBlockFloat(x []float32, lo, hi int) {
	r := &k.run
	C, xC, m := k.outC, k.inC, k.mult
	inRow := k.w.in * xC
	for _, rb := range k.rowBands {
		r0, r1 := max(rb.o0, lo), min(rb.o0+rb.n, hi)
		if r0 >= r1 {
			continue
		}
		skip := r0 - rb.o0
		for _, cb := range k.colBands {
			g := arch.DepthwiseMultGeom{
				Rows: r1 - r0, Cols: cb.n, C: C, Mult: m,
				TapRows: rb.hi - rb.lo, TapCols: cb.hi - cb.lo,
				XRowStep: k.h.stride * inRow, XColStep: k.w.stride * xC,
				XTapRow: k.h.dilation * inRow, XTapCol: k.w.dilation * xC,
				DstRowStep: k.w.out * C, DstColStep: C, WTapRow: k.w.filter * C,
			}
			xs, ws := x[:0], r.w[:0]
			if g.TapRows > 0 && g.TapCols > 0 {
				xs = x[(rb.first+skip*k.h.stride)*inRow+cb.first*xC:]
				ws = r.w[(rb.lo*k.w.filter+cb.lo)*C:]
			}
			arch.DepthwiseMultF32(r.o.f[(r0*k.w.out+cb.o0)*C:], xs, ws, r.bf, g, k.fMin, k.fMax)
		}
	}
}

// multRowsQuant computes the output rows [lo, hi) of the integer paths:
// blocks of output rows, each with its padded band of converted input
// rows, the kernel's int32 sums in tiles of whole output rows.
func (k *DepthwiseConv2D) multRowsQuant(worker, lo, hi int) {
	d, r := k.dm, &k.run
	C := k.outC
	outRow := k.w.out * C
	band := r.xf[worker*d.bandLen : (worker+1)*d.bandLen]
	tile := r.acc[worker*d.tileRows*outRow : (worker+1)*d.tileRows*outRow]
	xC, m := k.inC, k.mult
	rowLen := d.wp * xC
	for a := lo; a < hi; a += d.blockRows {
		b := min(a+d.blockRows, hi)
		k.fillBand(band, a, b)
		for t0 := a; t0 < b; t0 += d.tileRows {
			t1 := min(t0+d.tileRows, b)
			g := arch.DepthwiseMultGeom{
				Rows: t1 - t0, Cols: k.w.out, C: C, Mult: m,
				TapRows: k.h.filter, TapCols: k.w.filter,
				XRowStep: k.h.stride * rowLen, XColStep: k.w.stride * xC,
				XTapRow: k.h.dilation * rowLen, XTapCol: k.w.dilation * xC,
				DstRowStep: outRow, DstColStep: C, WTapRow: k.w.filter * C,
			}
			acc := tile[:(t1-t0)*outRow]
			arch.DepthwiseMultF32Int32(acc, band[(t0-a)*k.h.stride*rowLen:], r.w, r.bi, g)
			q := &k.q
			o := t0 * outRow
			if r.o.i8 != nil {
				arch.RequantizeChannelsInt8(r.o.i8[o:o+len(acc)], acc, k.cq, q.outOffset, q.actMin, q.actMax)
			} else {
				arch.RequantizeChannelsUint8(r.o.u8[o:o+len(acc)], acc, k.cq, q.outOffset, q.actMin, q.actMax)
			}
		}
	}
}

// fillBand sets band to the padded input rows that the output rows
// [a, b) read: band row j is input row a·stride - pad + j, band column i
// input column i - pad, as x + input offset, 0 outside the image.
func (k *DepthwiseConv2D) fillBand(band []float32, a, b int) {
	d, r := k.dm, &k.run
	xC := k.inC
	rowLen := d.wp * xC
	y0 := a*k.h.stride - k.h.pad
	rows := (b-a-1)*k.h.stride + (k.h.filter-1)*k.h.dilation + 1
	band = band[:rows*rowLen]
	left := min(k.w.pad, d.wp)
	cols := max(0, min(k.w.in, d.wp-left)) // input columns in the band
	for j := 0; j < rows; j++ {
		row := band[j*rowLen : (j+1)*rowLen]
		iy := y0 + j
		if iy < 0 || iy >= k.h.in || cols == 0 {
			clear(row)
			continue
		}
		clear(row[:left*xC])
		clear(row[(left+cols)*xC:])
		src := iy * r.rowSize
		dst := row[left*xC : (left+cols)*xC]
		if r.src8 != nil {
			arch.Int8ToF32(dst, r.src8[src:src+cols*xC], k.q.inOffset)
		} else {
			arch.Uint8ToF32(dst, r.srcU[src:src+cols*xC], k.q.inOffset)
		}
	}
}
