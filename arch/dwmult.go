package arch

import "fmt"

// Depthwise convolution with a depth multiplier over few channels: every
// output pixel is one vector of its C output channels (blocks of 8
// lanes), eight output pixels in flight whatever the rectangle's shape
// (its pixels taken in row order across row ends, the last group padded
// by repeating its last pixel), so that narrow and short rectangles (the
// border bands of an image a few pixels wide) run as fast as wide ones.
// Output channel c reads input channel c/Mult, so the input needs no
// repeating: with one input channel, or a multiplier that is a multiple
// of the block's lanes, each block reads a single input value per tap
// (one broadcast); otherwise the few input channels a block reads are
// loaded together and permuted onto its lanes.

// DepthwiseMultGeom describes one rectangle for DepthwiseMultF32 and
// DepthwiseMultF32Int32. Offsets are in elements.
//
// Output pixel (r, q), r < Rows, q < Cols, channel ch < C is at
// dst[r·DstRowStep + q·DstColStep + ch]. Its taps (ty, tx), ty < TapRows,
// tx < TapCols, read input x[r·XRowStep + q·XColStep + ty·XTapRow +
// tx·XTapCol + ch/Mult] and weight w[ty·WTapRow + tx·C + ch] (the caller
// slices x and w to start at the first tap used). All fields must be ≥
// 0, C and Mult ≥ 1.
type DepthwiseMultGeom struct {
	Rows, Cols             int
	C, Mult                int
	TapRows, TapCols       int
	XRowStep, XColStep     int
	XTapRow, XTapCol       int
	DstRowStep, DstColStep int
	WTapRow                int
}

// span returns the number of elements of x, w and dst the rectangle
// reaches (0 for an empty one).
func (g *DepthwiseMultGeom) span() (x, w, dst int, err error) {
	for _, v := range [...]int{g.Rows, g.Cols, g.C, g.TapRows, g.TapCols, g.XRowStep, g.XColStep, g.XTapRow, g.XTapCol, g.DstRowStep, g.DstColStep, g.WTapRow} {
		if v < 0 {
			return 0, 0, 0, fmt.Errorf("arch: negative depthwise geometry %+v", *g)
		}
	}
	if g.Mult < 1 {
		return 0, 0, 0, fmt.Errorf("arch: depthwise multiplier %d", g.Mult)
	}
	if g.Rows == 0 || g.Cols == 0 || g.C == 0 {
		return 0, 0, 0, nil
	}
	dst = (g.Rows-1)*g.DstRowStep + (g.Cols-1)*g.DstColStep + g.C
	if g.TapRows == 0 || g.TapCols == 0 {
		return 0, 0, dst, nil
	}
	x = (g.Rows-1)*g.XRowStep + (g.Cols-1)*g.XColStep + (g.TapRows-1)*g.XTapRow + (g.TapCols-1)*g.XTapCol + (g.C-1)/g.Mult + 1
	w = (g.TapRows-1)*g.WTapRow + (g.TapCols-1)*g.C + g.C
	return x, w, dst, nil
}

// dwMultBroadcast reports whether every block of lanes channels of g
// reads a single input channel per tap.
func (g *DepthwiseMultGeom) dwMultBroadcast(lanes int) bool {
	return g.Mult > 1 && (g.C <= g.Mult || g.Mult%lanes == 0)
}

// The kernel slot: mode 0 float32 output (bias, clamp lo..hi), mode 1
// int32 output (DepthwiseMultF32Int32; bias int32).
var (
	dwMult      func(dst []uint32, x, w []float32, bias []uint32, g DepthwiseMultGeom, mode int, lo, hi float32)
	dwMultImpls = newImpls("DepthwiseMultF32", &dwMult, dwMultGeneric)
)

// DepthwiseMultNative reports whether DepthwiseMultF32 runs vector code
// at the current level (AVX2 and up).
func DepthwiseMultNative() bool { return dwMultImpls.list[dwMultImpls.cur].name != "generic" }

// DepthwiseMultF32 computes the rectangle g of a float32 depthwise
// convolution:
//
//	dst[pixel (r,q), ch] = clamp(bias[ch] + Σ_ty Σ_tx x[…]·w[…], lo, hi)
//
// with the indexing of DepthwiseMultGeom, the sum starting at the bias
// and adding the taps in order (ty, then tx) without fused multiply-adds
// (the order and bits of DepthwiseConvF32 on amd64 and in the portable
// version), clamp as in GemmF32 (±Inf for none). dst must not overlap x,
// w or bias. It panics if the geometry has a negative
// field or a slice is shorter than the geometry reaches.
func DepthwiseMultF32(dst, x, w, bias []float32, g DepthwiseMultGeom, lo, hi float32) {
	xn, wn, dn, err := g.span()
	if err != nil {
		panic(err)
	}
	if dn == 0 {
		return
	}
	dwMultCheck(len(dst), len(x), len(w), len(bias), dn, xn, wn, g.C)
	dwMult(viewU32(dst), x, w, viewU32(bias), g, 0, lo, hi)
}

// DepthwiseMultF32Int32 is DepthwiseMultF32 for integer convolutions
// computed in float32 (as DepthwiseConvF32Int32): the tap sums start at
// 0, are converted to int32 (truncating; they are integers) and bias is
// added in int32. It is exact under the conditions of
// DepthwiseConvF32Int32.
func DepthwiseMultF32Int32(dst []int32, x, w []float32, bias []int32, g DepthwiseMultGeom) {
	xn, wn, dn, err := g.span()
	if err != nil {
		panic(err)
	}
	if dn == 0 {
		return
	}
	dwMultCheck(len(dst), len(x), len(w), len(bias), dn, xn, wn, g.C)
	dwMult(viewU32(dst), x, w, viewU32(bias), g, 1, 0, 0)
}

// dwMultCheck panics when a slice is shorter than the rectangle reaches.
func dwMultCheck(dst, x, w, bias, dn, xn, wn, c int) {
	if dst < dn || x < xn || w < wn || bias < c {
		panic(fmt.Sprintf("arch.DepthwiseMult: slices of %d, %d, %d, %d elements, the rectangle reaches %d, %d, %d, %d", dst, x, w, bias, dn, xn, wn, c))
	}
}
