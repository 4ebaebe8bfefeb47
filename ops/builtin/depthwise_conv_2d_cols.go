package builtin

import (
	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Narrow bands of the float depthwise convolution. The depthwise kernels
// (arch.DepthwiseConvF32) keep four output pixels of a row in flight and
// take the 1-3 left in a row one at a time, a single chain of dependent
// additions per channel block. A band of one to three output columns
// (the edge columns of SAME padding, or every column of an image 3 wide)
// then runs entirely on that slow path, one pixel per row. (magic_wand's
// [1, 128, 3, 8] layer, a multiplier over one channel, now takes the
// multiplier path of depthwise_conv_2d_mult.go instead.) runRectCols hands such a band to the kernel
// one image column at a time with the kernel's rows and columns swapped
// (the image rows become a kernel row of pixels, four in flight) into a
// per-thread tile, and copies the tile to the output. Every output value
// is the same sum of the same taps in the same order (bias, then the
// taps by filter row, then column), so the bits are those of the direct
// call.

// dwColsTile is the per-thread tile of runRectCols, in floats.
const dwColsTile = 2048

// prepareCols requests the tiles when some band of the float path is
// narrow (see narrowCols).
func (k *DepthwiseConv2D) prepareCols(n *ops.Node) {
	k.colsID = -1
	if k.outC > dwColsTile/4 || k.h.out < 4 {
		return
	}
	for _, cb := range k.colBands {
		if cols := k.bandLeftover(cb.n); cols > 0 && cols < 4 {
			k.colsID = n.RequestScratch(4 * dwColsTile * n.Threads())
			return
		}
	}
}

// bandLeftover is the number of a column band's n pixels that run
// unpacked (all of them without pixel packing).
func (k *DepthwiseConv2D) bandLeftover(n int) int {
	if f := k.pack; f > 1 && n >= f {
		return n % f
	}
	return n
}

// narrowCols reports whether runRectCols takes the rectangle g of the
// float path: fewer than four columns, at least four rows, some taps.
func (k *DepthwiseConv2D) narrowCols(o rectOut, g arch.DepthwiseGeom) bool {
	return o.f != nil && k.colsID >= 0 && g.Cols < 4 && g.Rows >= 4 && g.TapRows > 0 && g.TapCols > 0
}

// runRectCols computes the float rectangle g (narrowCols) into dst, one
// image column at a time through the tile: kernel pixel q of the swapped
// rectangle is image row q of the column, its input XRowStep further on.
func (k *DepthwiseConv2D) runRectCols(tile, dst, x, w, bf []float32, g arch.DepthwiseGeom) {
	C := g.C
	per := len(tile) / C
	t := g
	t.Rows, t.XColStep, t.DstRowStep = 1, g.XRowStep, 0
	for q := 0; q < g.Cols; q++ {
		for r0 := 0; r0 < g.Rows; r0 += per {
			nr := min(per, g.Rows-r0)
			t.Cols = nr
			arch.DepthwiseConvF32(tile, x[r0*g.XRowStep+q*g.XColStep:], w, bf, t, k.fMin, k.fMax)
			d := r0*g.DstRowStep + q*C
			if C > 16 {
				for i := range nr {
					copy(dst[d+i*g.DstRowStep:d+i*g.DstRowStep+C], tile[i*C:(i+1)*C])
				}
				continue
			}
			// A few values per pixel: element moves cost less than a
			// memmove call each.
			for i := range nr {
				o := d + i*g.DstRowStep
				src, out := tile[i*C:i*C+C:i*C+C], dst[o:o+C:o+C]
				for j, v := range src {
					out[j] = v
				}
			}
		}
	}
}
