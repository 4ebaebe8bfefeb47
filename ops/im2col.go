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
	for i := 0; i < n; i++ {
		p := first + i
		oy, ox := p/outW, p%outW
		row := col[i*k : i*k+k]
		yOrigin := oy*g.h.stride - g.h.pad
		xOrigin := ox*g.w.stride - g.w.pad
		j := 0
		for fy := 0; fy < g.h.filter; fy++ {
			iy := yOrigin + fy*g.h.dilation
			if iy < 0 || iy >= g.h.in {
				fillValue(row[j:j+fw*depth], pad)
				j += fw * depth
				continue
			}
			base := iy*g.inRowStride + g.chanOffset
			for fx := 0; fx < fw; fx++ {
				ix := xOrigin + fx*g.w.dilation
				dst := row[j : j+depth]
				if ix < 0 || ix >= g.w.in {
					fillValue(dst, pad)
				} else {
					off := base + ix*g.inC
					copy(dst, x[off:off+depth])
				}
				j += depth
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
