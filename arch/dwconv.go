package arch

import (
	"fmt"
	"unsafe"
)

// Depthwise convolution over a rectangle of output pixels, channels
// innermost (NHWC), vectorised across channels: for each block of 16 (or
// 8) channels and each group of 4 output pixels, the sums stay in
// registers while every filter tap adds its input·weight products; one
// weight vector load serves the 4 pixels. The caller splits an image into
// rectangles whose pixels all see the same filter taps (the interior, and
// the border bands where padding cuts taps off), so the kernel needs no
// bounds tests.

// DepthwiseGeom describes one rectangle of a depthwise convolution for
// DepthwiseConvF32 and DepthwiseConvF32Int32. Offsets are in elements.
//
// Output pixel (r, q), r < Rows, q < Cols, channel ch < C is at dst[r·DstRowStep
// + q·C + ch]. Its taps (ty, tx), ty < TapRows, tx < TapCols, read input
// x[r·XRowStep + q·XColStep + ty·XTapRow + tx·XTapCol + ch] and weight
// w[ty·WTapRow + tx·C + ch] (the caller slices x and w to start at the
// first tap used). All fields must be ≥ 0, C ≥ 1.
type DepthwiseGeom struct {
	Rows, Cols         int
	C                  int
	TapRows, TapCols   int
	XRowStep, XColStep int
	XTapRow, XTapCol   int
	DstRowStep         int
	WTapRow            int
}

// span returns the number of elements of x, w and dst the rectangle
// reaches (0 for an empty one).
func (g *DepthwiseGeom) span() (x, w, dst int, err error) {
	for _, v := range []int{g.Rows, g.Cols, g.C, g.TapRows, g.TapCols, g.XRowStep, g.XColStep, g.XTapRow, g.XTapCol, g.DstRowStep, g.WTapRow} {
		if v < 0 {
			return 0, 0, 0, fmt.Errorf("arch: negative depthwise geometry %+v", *g)
		}
	}
	if g.Rows == 0 || g.Cols == 0 || g.C == 0 {
		return 0, 0, 0, nil
	}
	dst = (g.Rows-1)*g.DstRowStep + (g.Cols-1)*g.C + g.C
	if g.TapRows == 0 || g.TapCols == 0 {
		return 0, 0, dst, nil
	}
	x = (g.Rows-1)*g.XRowStep + (g.Cols-1)*g.XColStep + (g.TapRows-1)*g.XTapRow + (g.TapCols-1)*g.XTapCol + g.C
	w = (g.TapRows-1)*g.WTapRow + (g.TapCols-1)*g.C + g.C
	return x, w, dst, nil
}

// dwArgs is the geometry in bytes as the kernels read it, and the output
// mode (0: float32 with bias and clamp; 1: int32, see
// DepthwiseConvF32Int32).
type dwArgs struct {
	rows, cols, c4, th, tw              int
	xRowStep, xColStep                  int
	xTapRow, xTapCol, dRowStep, wTapRow int
	intOut                              int
}

func (g *DepthwiseGeom) args(intOut int) dwArgs {
	return dwArgs{
		rows: g.Rows, cols: g.Cols, c4: 4 * g.C, th: g.TapRows, tw: g.TapCols,
		xRowStep: 4 * g.XRowStep, xColStep: 4 * g.XColStep,
		xTapRow: 4 * g.XTapRow, xTapCol: 4 * g.XTapCol,
		dRowStep: 4 * g.DstRowStep, wTapRow: 4 * g.WTapRow,
		intOut: intOut,
	}
}

// The kernel slot: dst and bias are float32 (intOut 0) or int32 (intOut
// 1) values.
var (
	dwConv      func(dst []uint32, x, w []float32, bias []uint32, a dwArgs, lo, hi float32)
	dwConvImpls = newImpls("DepthwiseConvF32", &dwConv, dwConvGeneric)
)

// DepthwiseConvF32 computes the rectangle g of a float32 depthwise
// convolution with depth multiplier 1 (TFLite's DEPTHWISE_CONV_2D float
// path; a multiplier m > 1 is this on the input with every channel
// repeated m times):
//
//	dst[pixel (r,q), ch] = clamp(bias[ch] + Σ_ty Σ_tx x[…]·w[…], lo, hi)
//
// with the indexing of DepthwiseGeom, the sum starting at the bias and
// adding the taps in order (ty, then tx), with fused multiply-adds in the
// assembly versions (results agree with float64 math to a few float32 ulps
// of Σ|terms|), and clamp as in GemmF32 (±Inf for none). dst must not
// overlap x, w or bias. It panics if the geometry has a negative field or
// a slice is shorter than the geometry reaches.
func DepthwiseConvF32(dst, x, w, bias []float32, g DepthwiseGeom, lo, hi float32) {
	xn, wn, dn, err := g.span()
	if err != nil {
		panic(err)
	}
	if dn == 0 {
		return
	}
	_ = dst[dn-1]
	_ = x[:xn]
	_ = w[:wn]
	_ = bias[g.C-1]
	a := g.args(0)
	dwConv(viewU32(dst), x, w, viewU32(bias), a, lo, hi)
}

// DepthwiseConvF32Int32 is DepthwiseConvF32 for integer convolutions
// computed in float32: the tap sums start at 0, are converted to int32
// (truncating; they are integers) and bias is added in int32:
//
//	dst[pixel (r,q), ch] = int32(Σ_ty Σ_tx x[…]·w[…]) + bias[ch]
//
// It is exact, and equal to TFLite's int32 accumulation, when x and w
// hold integers (input + input offset, filter + filter offset) whose
// products and every partial sum are below 2^24 in magnitude (for int8
// and uint8 data: taps·255·255 < 2^24); the caller checks that. Layout
// and panics as DepthwiseConvF32.
func DepthwiseConvF32Int32(dst []int32, x, w []float32, bias []int32, g DepthwiseGeom) {
	xn, wn, dn, err := g.span()
	if err != nil {
		panic(err)
	}
	if dn == 0 {
		return
	}
	_ = dst[dn-1]
	_ = x[:xn]
	_ = w[:wn]
	_ = bias[g.C-1]
	a := g.args(1)
	dwConv(viewU32(dst), x, w, viewU32(bias), a, 0, 0)
}

// viewU32 reinterprets float32 or int32 values as their bits.
func viewU32[T float32 | int32](s []T) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
