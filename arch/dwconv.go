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

// dwArgs is the geometry in bytes as the kernels read it, the output
// mode and the requantisation parameters. Modes: 0 float32 with bias and
// clamp; 1 int32 sums plus int32 bias (DepthwiseConvF32Int32); 2 those
// requantised to bytes (DepthwiseConvRequantizeInt8/Uint8).
type dwArgs struct {
	rows, cols, c4, th, tw              int
	xRowStep, xColStep                  int
	xTapRow, xTapCol, dRowStep, wTapRow int
	mode                                int
	dC                                  int    // bytes per output pixel
	qp                                  *int32 // mode 2: ChannelRequant rows
	qStride                             int    // mode 2: bytes between rows
	zp, lo, hi                          int32  // mode 2
	rqFlags                             uint64 // mode 2: ChannelRequant.rqFlags
}

func (g *DepthwiseGeom) args(mode int) dwArgs {
	es := 4 // bytes per output element
	if mode == 2 {
		es = 1
	}
	return dwArgs{
		rows: g.Rows, cols: g.Cols, c4: 4 * g.C, th: g.TapRows, tw: g.TapCols,
		xRowStep: 4 * g.XRowStep, xColStep: 4 * g.XColStep,
		xTapRow: 4 * g.XTapRow, xTapCol: 4 * g.XTapCol,
		dRowStep: es * g.DstRowStep, wTapRow: 4 * g.WTapRow,
		mode: mode, dC: es * g.C,
	}
}

// The kernel slot: dst holds float32 (mode 0), int32 (mode 1) or byte
// (mode 2) values, bias float32 (mode 0) or int32 values.
var (
	dwConv      func(dst []byte, x, w []float32, bias []uint32, a dwArgs, lo, hi float32)
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
// adding the taps in order (ty, then tx) without fused multiply-adds on
// amd64 and in the portable version, as TensorFlow Lite's optimized float
// depthwise kernel on x86 (an accumulator buffer that starts at the bias,
// taps by filter row, then column); the NEON versions fuse (results agree
// with float64 math to a few float32 ulps of Σ|terms|); clamp as in GemmF32 (±Inf for none). dst must not
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
	dwConv(viewBytes(dst), x, w, viewU32(bias), g.args(0), lo, hi)
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
	dwConv(viewBytes(dst), x, w, viewU32(bias), g.args(1), 0, 0)
}

// DepthwiseConvRequantizeInt8 is DepthwiseConvF32Int32 followed by
// RequantizeChannelsInt8 of every output pixel, without storing the int32
// sums (the output stage of TFLite's int8 DEPTHWISE_CONV_2D):
//
//	dst[pixel (r,q), ch] = int8(clamp(MBQM(int32(Σ x·w) + bias[ch], channel ch) + zp, lo, hi))
//
// with the layout of DepthwiseGeom (dst offsets in bytes = elements), the
// exactness conditions of DepthwiseConvF32Int32, q made for g.C channels
// and lo ≤ hi in [-128, 127]. Every implementation gives the same bits.
func DepthwiseConvRequantizeInt8(dst []int8, x, w []float32, bias []int32, g DepthwiseGeom, q *ChannelRequant, zp, lo, hi int32) {
	if lo < -128 || hi > 127 || lo > hi {
		panic("arch.DepthwiseConvRequantizeInt8: clamp range outside [-128, 127]")
	}
	dwRequant(viewBytes(dst), x, w, bias, g, q, zp, lo, hi)
}

// DepthwiseConvRequantizeUint8 is DepthwiseConvRequantizeInt8 for uint8
// outputs: lo ≤ hi in [0, 255].
func DepthwiseConvRequantizeUint8(dst []uint8, x, w []float32, bias []int32, g DepthwiseGeom, q *ChannelRequant, zp, lo, hi int32) {
	if lo < 0 || hi > 255 || lo > hi {
		panic("arch.DepthwiseConvRequantizeUint8: clamp range outside [0, 255]")
	}
	dwRequant(dst, x, w, bias, g, q, zp, lo, hi)
}

func dwRequant(dst []byte, x, w []float32, bias []int32, g DepthwiseGeom, q *ChannelRequant, zp, lo, hi int32) {
	xn, wn, dn, err := g.span()
	if err != nil {
		panic(err)
	}
	if dn == 0 {
		return
	}
	if q.n != g.C {
		panic("arch.DepthwiseConvRequantize: requantisation parameters for another channel count")
	}
	_ = dst[dn-1]
	_ = x[:xn]
	_ = w[:wn]
	_ = bias[g.C-1]
	a := g.args(2)
	a.qp, a.qStride, a.zp, a.lo, a.hi = &q.p[0], 4*q.stride, zp, lo, hi
	a.rqFlags = q.rqFlags(lo, hi)
	dwConv(dst, x, w, viewU32(bias), a, 0, 0)
}

// viewBytes reinterprets a slice as its bytes.
func viewBytes[T float32 | int32 | int8](s []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// viewU32 reinterprets float32 or int32 values as their bits.
func viewU32[T float32 | int32](s []T) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
