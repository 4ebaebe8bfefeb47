package builtin

import "unsafe"

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
	fh := g.h.filter
	seg := g.w.filter * g.depth
	// With dilation 1 and every channel read, the taps of one filter row
	// are contiguous in the input, and a window inside the input
	// horizontally (most pixels) reads one run per filter row.
	contiguous := g.w.dilation == 1 && g.depth == g.inC
	// Output columns [xLo, xHi) have such windows.
	xLo, xHi := 0, 0
	if contiguous {
		xLo = min(ceilDiv(g.w.pad, g.w.stride), outW)
		if last := g.w.in - g.w.filter + g.w.pad; last >= 0 {
			xHi = max(min(last/g.w.stride+1, outW), xLo)
		} else {
			xHi = xLo
		}
	}
	xStep := g.w.stride * g.depth
	oy, ox := first/outW, first%outW
	for i := 0; i < n; {
		yOrigin := oy*g.h.stride - g.h.pad
		rowEnd := min(n, i+outW-ox) // pixels of this output row
		for ; i < rowEnd && ox < xLo; i, ox = i+1, ox+1 {
			im2colEdge(g, col[i*k:i*k+k], x, yOrigin, ox, pad)
		}
		if ox < xHi && i < rowEnd {
			run := min(rowEnd-i, xHi-ox)
			xBase := (ox*g.w.stride - g.w.pad) * g.depth
			for fy := 0; fy < fh; fy++ {
				iy := yOrigin + fy*g.h.dilation
				j := fy * seg
				if iy < 0 || iy >= g.h.in {
					for p := 0; p < run; p++ {
						fillValue(col[(i+p)*k+j:(i+p)*k+j+seg], pad)
					}
					continue
				}
				copyRuns(col[i*k+j:], k, x[iy*g.inRowStride+xBase:], xStep, seg, run)
			}
			i, ox = i+run, ox+run
		}
		for ; i < rowEnd; i, ox = i+1, ox+1 {
			im2colEdge(g, col[i*k:i*k+k], x, yOrigin, ox, pad)
		}
		ox, oy = 0, oy+1
	}
}

// im2colEdge writes the patch row of an output pixel whose window may
// cross the left or right edge of the input (or that reads a channel
// subset, or a dilated window).
func im2colEdge[T any](g *im2col, row, x []T, yOrigin, ox int, pad T) {
	fw, depth := g.w.filter, g.depth
	contiguous := g.w.dilation == 1 && depth == g.inC
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

// copyRuns copies run segments of seg elements: segment p from
// src[p·srcStride:] to dst[p·dstStride:]. Bounds are checked once for the
// whole run; segments of at most 64 bytes (a 3×3 window over 1-3 int8 or
// float channels: the input layer of most CNNs) are moved with two
// overlapping fixed-size loads and stores instead of a memmove call each,
// segments of 65-256 bytes in 32-byte steps. dst and src must not overlap.
func copyRuns[T any](dst []T, dstStride int, src []T, srcStride, seg, run int) {
	if run <= 0 || seg <= 0 {
		return
	}
	dst = dst[:(run-1)*dstStride+seg]
	src = src[:(run-1)*srcStride+seg]
	var zero T
	size := uintptr(seg) * unsafe.Sizeof(zero)
	if size > 64 && size <= 256 {
		// 3×3 windows over 22-85 int8 channels (ResNet-style layers):
		// 32-byte steps and an overlapping last 32 bytes (longer runs
		// are faster through memmove's wider moves).
		d0, s0 := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
		ds, ss := uintptr(dstStride)*unsafe.Sizeof(zero), uintptr(srcStride)*unsafe.Sizeof(zero)
		for p := 0; p < run; p++ {
			d, s := unsafe.Add(d0, uintptr(p)*ds), unsafe.Add(s0, uintptr(p)*ss)
			for off := uintptr(0); off < size-32; off += 32 {
				*(*[16]byte)(unsafe.Add(d, off)) = *(*[16]byte)(unsafe.Add(s, off))
				*(*[16]byte)(unsafe.Add(d, off+16)) = *(*[16]byte)(unsafe.Add(s, off+16))
			}
			*(*[16]byte)(unsafe.Add(d, size-32)) = *(*[16]byte)(unsafe.Add(s, size-32))
			*(*[16]byte)(unsafe.Add(d, size-16)) = *(*[16]byte)(unsafe.Add(s, size-16))
		}
		return
	}
	if size >= 4 && size <= 64 {
		d0, s0 := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
		ds, ss := uintptr(dstStride)*unsafe.Sizeof(zero), uintptr(srcStride)*unsafe.Sizeof(zero)
		// One loop per size class, each segment as two (or four)
		// possibly overlapping fixed-size moves (a [32]byte move would
		// be a memmove call).
		switch {
		case size >= 32:
			for p := 0; p < run; p++ {
				d, s := unsafe.Add(d0, uintptr(p)*ds), unsafe.Add(s0, uintptr(p)*ss)
				*(*[16]byte)(d) = *(*[16]byte)(s)
				*(*[16]byte)(unsafe.Add(d, 16)) = *(*[16]byte)(unsafe.Add(s, 16))
				*(*[16]byte)(unsafe.Add(d, size-32)) = *(*[16]byte)(unsafe.Add(s, size-32))
				*(*[16]byte)(unsafe.Add(d, size-16)) = *(*[16]byte)(unsafe.Add(s, size-16))
			}
		case size >= 16:
			for p := 0; p < run; p++ {
				d, s := unsafe.Add(d0, uintptr(p)*ds), unsafe.Add(s0, uintptr(p)*ss)
				*(*[16]byte)(d) = *(*[16]byte)(s)
				*(*[16]byte)(unsafe.Add(d, size-16)) = *(*[16]byte)(unsafe.Add(s, size-16))
			}
		case size >= 8:
			for p := 0; p < run; p++ {
				d, s := unsafe.Add(d0, uintptr(p)*ds), unsafe.Add(s0, uintptr(p)*ss)
				*(*[8]byte)(d) = *(*[8]byte)(s)
				*(*[8]byte)(unsafe.Add(d, size-8)) = *(*[8]byte)(unsafe.Add(s, size-8))
			}
		default:
			for p := 0; p < run; p++ {
				d, s := unsafe.Add(d0, uintptr(p)*ds), unsafe.Add(s0, uintptr(p)*ss)
				*(*[4]byte)(d) = *(*[4]byte)(s)
				*(*[4]byte)(unsafe.Add(d, size-4)) = *(*[4]byte)(unsafe.Add(s, size-4))
			}
		}
		return
	}
	for p := 0; p < run; p++ {
		copy(dst[p*dstStride:p*dstStride+seg:p*dstStride+seg], src[p*srcStride:])
	}
}

// fillValue sets every element of s to v: one at a time up to 32
// elements (small enough to inline where depthwise kernels repeat a value
// per multiplier channel), longer slices through fillLong.
func fillValue[T any](s []T, v T) {
	if len(s) > 32 {
		fillLong(s, v)
		return
	}
	for i := range s {
		s[i] = v
	}
}

// fillLong is fillValue for more than 32 elements: 32 stores, then copies
// of what is filled so far, doubling (memmove runs at vector width; a
// store per element of a 1536-value pool row cost more than the pool's
// own maxima).
func fillLong[T any](s []T, v T) {
	for i := range s[:32] {
		s[i] = v
	}
	for filled := 32; filled < len(s); filled *= 2 {
		copy(s[filled:], s[:filled])
	}
}

// copyShort copies src into dst (equal lengths); short runs, common for
// the 1-4 channel inputs of first layers, are copied in a loop because a
// memmove call costs more than the copy itself.
func copyShort[T any](dst, src []T) {
	if len(src) > 4 {
		copy(dst, src)
		return
	}
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = v
	}
}

// floorDiv and ceilDiv divide rounding toward -Inf and +Inf (b > 0).
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }
