package ops

// im2col lays out convolution patches as matrix rows so that a
// convolution becomes a matrix product, as TFLite's optimized CONV_2D does
// (optimized_ops.h Im2col / DilatedIm2col). Row i of col holds the
// filterH×filterW×depth input values under the window of output pixel
// first+i (pixels counted row-major over outH×outW of one batch image), in
// the filter's (y, x, channel) order; taps outside the input read pad
// (0 for float, the input zero point for quantised data, so that they
// contribute nothing once the zero point is subtracted).
type im2col struct {
	h, w        window // geometry along height and width
	depth       int    // input channels read per tap
	inRowStride int    // elements per input row (inW·inC)
	inC         int    // elements per input pixel
	chanOffset  int    // first channel read (grouped convolution)
}

// k is the length of one patch row.
func (g *im2col) k() int { return g.h.filter * g.w.filter * g.depth }

// im2colFill writes n patch rows for pixels first..first+n-1 of the image x.
func im2colFill[T any](g *im2col, col, x []T, first, n int, pad T) {
	k := g.k()
	outW := g.w.out
	fw, depth := g.w.filter, g.depth
	// With dilation 1 and every channel read, the taps of one filter row
	// are contiguous in the input: one copy per row instead of one per tap.
	contiguous := g.w.dilation == 1 && depth == g.inC
	for i := 0; i < n; i++ {
		p := first + i
		oy, ox := p/outW, p%outW
		row := col[i*k : i*k+k]
		yOrigin := oy*g.h.stride - g.h.pad
		xOrigin, fxLo, fxHi := g.w.span(ox)
		j := 0
		for fy := 0; fy < g.h.filter; fy++ {
			iy := yOrigin + fy*g.h.dilation
			seg := row[j : j+fw*depth]
			j += fw * depth
			if iy < 0 || iy >= g.h.in || fxLo >= fxHi {
				fillValue(seg, pad)
				continue
			}
			fillValue(seg[:fxLo*depth], pad)
			fillValue(seg[fxHi*depth:], pad)
			base := iy*g.inRowStride + g.chanOffset
			if contiguous {
				off := base + (xOrigin+fxLo)*g.inC
				copyShort(seg[fxLo*depth:fxHi*depth], x[off:off+(fxHi-fxLo)*depth])
				continue
			}
			for fx := fxLo; fx < fxHi; fx++ {
				off := base + (xOrigin+fx*g.w.dilation)*g.inC
				copyShort(seg[fx*depth:(fx+1)*depth], x[off:off+depth])
			}
		}
	}
}

// fillValue sets every element of s to v.
func fillValue[T any](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}

// copyShort copies src into dst (equal lengths); short runs, common for
// the 1-4 channel inputs of first layers, are copied in a loop because a
// memmove call costs more than the copy itself.
func copyShort[T any](dst, src []T) {
	if len(src) > 32 {
		copy(dst, src)
		return
	}
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = v
	}
}
