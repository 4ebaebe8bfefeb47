package builtin

import (
	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// The byte path of the int8 and uint8 DEPTHWISE_CONV_2D kernels (see
// DepthwiseConv2D), taken when arch.DepthwiseQ8Native (AVX-512 with
// VNNI and VBMI) and the filter is constant. Output row by output row,
// each group of four filter rows gets its input rows interleaved into a
// padded row buffer (arch.DepthwiseQ8Interleave: four bytes per column
// and channel), and arch.DepthwiseQ8Requant adds four products per lane
// and instruction and requantises. The arithmetic is TFLite's
//
//	acc = bias + Σ_taps (x + inOff)·(w + wOff)
//
// exactly, in int32 (wrapping, so the order does not matter), rewritten
// for unsigned input bytes u and signed weight bytes v:
//
//   - int8: u = x + 128 (x XOR 0x80), v = w,
//     acc = bias + (inOff - 128)·Σw + Σ u·v;
//   - uint8: u = x, v = w + wOff (split into two int8 weight sets when
//     outside int8), acc = bias + inOff·Σv + Σ u·v;
//
// the constant terms folded into the bias at Eval. Rows and columns
// outside the image are the input zero point -inOff, whose terms (x +
// inOff)·v are 0: every pixel sees every tap, so there are no border
// cases, and filter rows past the last (the groups' fourth rows) have
// weight 0. A depth multiplier m > 1 first repeats every input channel m
// times (one pass over the image into scratch).
type dwQ8 struct {
	w, w2   [][]int8 // packed [group][fW][outC][4] weights, second set or nil, per row shift
	w2Blk   [][]byte // per row shift: which 16-channel blocks of w2 are not all 0
	share   int      // output rows per row buffers (dilation 1: (4·groups - fH)/stride + 1)
	g0, ng  []int    // per row shift: the first group its taps fall in, and how many
	sum     []int32  // Σ over the taps of v, per output channel
	cst     int32    // inOff - 128 (int8) or inOff (uint8)
	flip    byte     // 0x80 (int8) or 0
	pad     []byte   // one input row (outC channels per pixel) of the zero point
	groups  int
	qCols   int // columns of a row buffer, padding included
	qLen    int // bytes of one group's row buffer
	dataCol int // columns of input in a row buffer (from column w.pad on)
	bufID   int // per-thread row buffers (groups·qLen bytes)
	expID   int // multiplier > 1: the image with repeated channels
	bias    []int32
	// One image (Eval).
	src  []byte
	dst  []byte
	bufs []byte
}

// maxQ8Bytes bounds the row buffers and copies of the byte path.
const maxQ8Bytes = 64 << 20

// prepareQ8 sets up the byte path if it applies (k.q prepared, filter
// constant) and reports whether it does.
func (k *DepthwiseConv2D) prepareQ8(n *ops.Node, filter *ops.Tensor) bool {
	if !arch.DepthwiseQ8Native() || !filter.IsConstant() || k.path == convFloat {
		return false
	}
	C := k.outC
	zp := -k.q.inOffset
	var d dwQ8
	if k.path == convInt8 {
		if zp < -128 || zp > 127 {
			return false
		}
		d.flip, d.cst = 0x80, k.q.inOffset-128
	} else {
		if zp < 0 || zp > 255 {
			return false
		}
		d.cst = k.q.inOffset
	}
	fh, fw := k.h.filter, k.w.filter
	d.groups = (fh + 3) / 4
	if k.h.dilation == 1 && k.h.stride == 2 && fh <= 4 && k.h.out > 1 {
		// A second group of rows at stride 2: for 3x3, 8 interleaved
		// rows serve 3 output rows (4 serve 1 with one group), each
		// output row running over the one or two groups its taps fall
		// in. (At stride 1 one group already serves 2 rows, and the
		// extra dot products would cost more than the interleaving
		// saved.)
		d.groups = 2
	}
	// Output rows sharing row buffers: row o0+k reads the buffer rows
	// k·stride on, with the weights shifted down by δ = k·stride rows.
	// Bound the buffers (hostile dilations or multipliers make them far
	// larger than the input or output): past it the rect path runs.
	qCols := int64(k.w.out-1)*int64(k.w.stride) + int64(fw-1)*int64(k.w.dilation) + 1
	need := qCols * 4 * int64(C) * int64(d.groups) * int64(n.Threads())
	if k.mult > 1 {
		need += int64(k.h.in) * int64(k.w.in) * int64(C)
	}
	if need+int64(k.w.in)*int64(C) > maxQ8Bytes {
		return false
	}
	d.share = 1
	if k.h.dilation == 1 {
		d.share = (4*d.groups-fh)/k.h.stride + 1
	}
	d.w, d.w2 = make([][]int8, d.share), make([][]int8, d.share)
	d.g0, d.ng = make([]int, d.share), make([]int, d.share)
	for s := range d.share {
		d.g0[s] = s * k.h.stride / 4
		d.ng[s] = (s*k.h.stride+fh-1)/4 - d.g0[s] + 1
		if k.h.dilation != 1 {
			d.g0[s], d.ng[s] = 0, d.groups
		}
	}
	for s := range d.share {
		d.w[s] = make([]int8, d.groups*fw*C*4)
	}
	d.sum = make([]int32, C)
	var raw []int8
	if k.path == convInt8 {
		raw = filter.Int8s()
	}
	for ty := 0; ty < fh; ty++ {
		for tx := 0; tx < fw; tx++ {
			for ch := 0; ch < C; ch++ {
				i := (ty*fw+tx)*C + ch
				var v int32
				if raw != nil {
					v = int32(raw[i])
				} else {
					v = int32(filter.Data[i]) + k.q.wOffset
				}
				d.sum[ch] += v
				a := max(-128, min(v, 127))
				if v-a < -128 || v-a > 127 {
					return false // 255 = 127 + 128: no two int8 halves
				}
				for s := range d.share {
					r := ty + s*k.h.stride // buffer row
					o := ((r/4*fw+tx)*C+ch)*4 + r%4
					d.w[s][o] = int8(a)
					if v != a {
						if d.w2[s] == nil {
							d.w2[s] = make([]int8, len(d.w[s]))
						}
						d.w2[s][o] = int8(v - a)
					}
				}
			}
		}
	}
	d.w2Blk = make([][]byte, d.share)
	for s, w2 := range d.w2 {
		if w2 == nil {
			continue
		}
		blk := make([]byte, (C+15)/16)
		for i, v := range w2 {
			if v != 0 {
				blk[(i/4%C)/16] = 1
			}
		}
		d.w2Blk[s] = blk
	}
	d.qCols = (k.w.out-1)*k.w.stride + (fw-1)*k.w.dilation + 1
	d.qLen = d.qCols * 4 * C
	d.dataCol = max(0, min(k.w.in, d.qCols-k.w.pad))
	d.pad = make([]byte, k.w.in*C)
	for i := range d.pad {
		d.pad[i] = byte(zp)
	}
	d.bias = make([]int32, C)
	d.bufID = n.RequestScratch(d.groups * d.qLen * n.Threads())
	d.expID = -1
	if k.mult > 1 {
		d.expID = n.RequestScratch(k.h.in * k.w.in * C)
	}
	k.q8 = &d
	k.rowsFn = k.q8Rows
	return true
}

// evalQ8 runs the byte path one batch image at a time.
func (k *DepthwiseConv2D) evalQ8(n *ops.Node, in, bias, out *ops.Tensor) error {
	d := k.q8
	C := k.outC
	defer func() { d.src, d.dst, d.bufs = nil, nil, nil }()
	var err error
	if d.bufs, err = scratchBytes(n, d.bufID, d.groups*d.qLen*n.Threads()); err != nil {
		return err
	}
	var exp []byte
	if d.expID >= 0 {
		if exp, err = scratchBytes(n, d.expID, k.h.in*k.w.in*C); err != nil {
			return err
		}
	}
	var b []int32
	if bias != nil {
		b = bias.Int32s()[:C]
	}
	for ch := range d.bias {
		v := d.cst * d.sum[ch]
		if b != nil {
			v += b[ch]
		}
		d.bias[ch] = v
	}
	inImage, outImage := k.h.in*k.w.in*k.inC, k.h.out*k.w.out*C
	work := k.h.out * k.w.out * C * k.h.filter * k.w.filter
	for batch := 0; batch < k.batches; batch++ {
		d.src = in.Data[batch*inImage : (batch+1)*inImage]
		if exp != nil {
			repeatBytes(exp, d.src, k.mult)
			d.src = exp
		}
		d.dst = out.Data[batch*outImage : (batch+1)*outImage]
		n.Parallel(k.h.out, work, k.rowsFn)
	}
	return nil
}

// repeatBytes sets dst to src with every byte repeated m times.
func repeatBytes(dst, src []byte, m int) {
	dst = dst[:len(src)*m]
	if m == 8 {
		for i, v := range src {
			putU64(dst[8*i:], uint64(v)*0x0101010101010101)
		}
		return
	}
	for i, v := range src {
		s := dst[i*m : (i+1)*m]
		for j := range s {
			s[j] = v
		}
	}
}

// putU64 stores v little-endian in b[:8].
func putU64(b []byte, v uint64) {
	_ = b[7]
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	b[4], b[5], b[6], b[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
}

// q8Rows computes the output rows [lo, hi) of the current image with the
// worker's row buffers.
func (k *DepthwiseConv2D) q8Rows(worker, lo, hi int) {
	d := k.q8
	C := k.outC
	size := d.groups * d.qLen
	bufs := d.bufs[worker*size : (worker+1)*size]
	// The padding columns never change: fill them once per call.
	padByte := d.pad[0] ^ d.flip
	left := min(k.w.pad, d.qCols)
	for g := 0; g < d.groups; g++ {
		q := bufs[g*d.qLen : (g+1)*d.qLen]
		fill(q[:left*4*C], padByte)
		fill(q[min(left+d.dataCol, d.qCols)*4*C:], padByte)
	}
	rowLen := k.w.in * C
	data := d.dataCol * C
	var rows [4][]byte
	geom := arch.DepthwiseQ8Geom{
		Cols: k.w.out, C: C, Groups: d.groups, TapCols: k.w.filter,
		ColStep: k.w.stride, TapStep: k.w.dilation, XGroupStep: d.qLen,
	}
	for o0 := lo; o0 < hi; o0 += d.share {
		origin := o0*k.h.stride - k.h.pad
		for g := 0; g < d.groups; g++ {
			for j := range rows {
				r := 4*g + j // buffer row
				iy := origin + r*k.h.dilation
				if (r < k.h.filter || d.share > 1) && iy >= 0 && iy < k.h.in {
					rows[j] = d.src[iy*rowLen : iy*rowLen+data]
				} else {
					rows[j] = d.pad[:data]
				}
			}
			q := bufs[g*d.qLen+left*4*C:]
			arch.DepthwiseQ8Interleave(q, rows[0], rows[1], rows[2], rows[3], d.flip)
		}
		for s := range min(d.share, hi-o0) {
			o := (o0 + s) * k.w.out * C
			wo := d.g0[s] * k.w.filter * 4 * C
			w2 := d.w2[s]
			if w2 != nil {
				w2 = w2[wo:]
			}
			geom.Groups = d.ng[s]
			arch.DepthwiseQ8Requant(d.dst[o:o+k.w.out*C], bufs[d.g0[s]*d.qLen:], d.w[s][wo:], w2, d.w2Blk[s], d.bias, geom, k.cq, k.q.outOffset, k.q.actMin, k.q.actMax)
		}
	}
}

// fill sets every byte of b to v.
func fill(b []byte, v byte) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}
