package builtin

import (
	"errors"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// ResizeBilinear is the kernel of TFLite's RESIZE_BILINEAR operator:
// every output pixel interpolates the four input pixels around its source
// position. align_corners and half_pixel_centers together are refused, as
// in TFLite. The values are resized as they are (TFLite assumes the
// output's quantisation equals the input's and checks nothing). Types, as
// TFLite's optimised kernel on x86:
//   - float32: the source coordinate is y·scale (or (y+0.5)·scale − 0.5
//     with half_pixel_centers), the lower neighbour its floor clamped at
//     0, the upper its ceiling clamped at the last row, and the weights
//     the fractional distances, in float32; the four weights are
//     products of those, and the output the sum of corner·weight in the
//     order (y0,x0), (y0,x1), (y1,x0), (y1,x1), as ResizeBilinearGeneric
//     computes it; an exact doubling without align_corners or
//     half_pixel_centers takes ResizeBilinear2x2's halvings instead;
//   - uint8: the same coordinates and weights in float32
//     (ResizeBilinearGenericSmallChannel), each value the sum
//     v00·w00 + v01·w01 + v10·w10 + v11·w11 + 0.5 truncated. TFLite's
//     special kernel for ×8 half-pixel upsampling of depths divisible by 8
//     (ResizeBilinear888Uint8) computes the same bits: its weights are
//     sixteenths, so both sums are exact;
//   - int8 and int16: TFLite's ResizeBilinearInteger, in integers: the
//     scales and coordinates in 1/1024 steps (rounded quotients, truncated
//     divisions), the weighted sum in int64 on a 2^-20 scale, rounded
//     half away from zero.
type ResizeBilinear struct {
	g      resizeGeometry
	typ    ops.DataType
	ys, xs []resizeTap
	// Integer taps (int8, int16).
	yi, xi []resizeTapInt
	// taps is xs for arch.BilinearRowF32 (float32) and
	// arch.BilinearRowU8 (uint8 from bilinearU8VectorDepth channels);
	// nil otherwise.
	taps *arch.BilinearTaps
	// Output rows (input rows of the 2×2 path) are split over threads
	// (ops.Node.Parallel); rowsFn reads the tensors in in and out
	// during Eval.
	in, out *ops.Tensor
	rowsFn  func(worker, lo, hi int)
}

// resizeTapInt is one output row's (or column's) two source indices and
// their weights on the 2^-10 scale (w0 + w1 = 1024; w0 may exceed 1024
// where the coordinate lies left of the first pixel, lo = hi then).
type resizeTapInt struct {
	lo, hi int
	w0, w1 int64
}

// resizeTap is one output row's (or column's) two source indices and the
// weight of the upper one.
type resizeTap struct {
	lo, hi int
	frac   float32
}

// NewResizeBilinear returns a RESIZE_BILINEAR kernel for one node.
func NewResizeBilinear() ops.Kernel { return &ResizeBilinear{} }

func init() {
	register(ops.OpResizeBilinear, NewResizeBilinear, [2]int{1, 4})
	registerOptions(schema.BuiltinOptionsResizeBilinearOptions, decodeResizeBilinearOptions)
}

// decodeResizeBilinearOptions decodes TFLite's ResizeBilinearOptions table.
func decodeResizeBilinearOptions(t ops.OptionsTable) (any, error) {
	var o schema.ResizeBilinearOptions
	initTable(&o, t)
	return &ResizeOptions{AlignCorners: o.AlignCorners(), HalfPixelCenters: o.HalfPixelCenters()}, nil
}

// Prepare validates the node, sets the output shape and precomputes the
// interpolation taps.
func (k *ResizeBilinear) Prepare(n *ops.Node) error {
	*k = ResizeBilinear{}
	k.rowsFn = k.evalRows
	in, _, err := k.g.prepare(n)
	if err != nil {
		return err
	}
	if err := requireType(in, "input 0", ops.Float32, ops.Uint8, ops.Int8, ops.Int16); err != nil {
		return err
	}
	if k.g.opts.AlignCorners && k.g.opts.HalfPixelCenters {
		return errors.New("options: half_pixel_centers needs align_corners false")
	}
	k.typ = in.Type
	if k.g.batch == 0 {
		// An empty output (see resizeGeometry.prepare): no taps, and
		// the integer scale would divide by the 0 it left for the size.
		return nil
	}
	if k.typ == ops.Int8 || k.typ == ops.Int16 {
		k.yi = bilinearTapsInt(k.g.outH, k.g.inH, k.g.opts)
		k.xi = bilinearTapsInt(k.g.outW, k.g.inW, k.g.opts)
		return nil
	}
	k.ys = bilinearTaps(k.g.outH, k.g.inH, k.g.scale(k.g.inH, k.g.outH), k.g.opts.HalfPixelCenters)
	k.xs = bilinearTaps(k.g.outW, k.g.inW, k.g.scale(k.g.inW, k.g.outW), k.g.opts.HalfPixelCenters)
	if k.typ == ops.Float32 || k.g.depth >= bilinearU8VectorDepth {
		lo, hi, frac := make([]int, len(k.xs)), make([]int, len(k.xs)), make([]float32, len(k.xs))
		for i, tx := range k.xs {
			lo[i], hi[i], frac[i] = tx.lo, tx.hi, tx.frac
		}
		if k.taps, err = arch.NewBilinearTaps(lo, hi, frac, k.g.depth); err != nil {
			return err
		}
	}
	return nil
}

// bilinearTaps is TFLite's ComputeInterpolationValues for every output
// coordinate (the conversions keep each step a float32 operation).
func bilinearTaps(out, in int, scale float32, halfPixel bool) []resizeTap {
	taps := make([]resizeTap, out)
	for i := range taps {
		var v float32
		if halfPixel {
			v = float32((float32(i)+0.5)*scale) - 0.5
		} else {
			v = float32(i) * scale
		}
		lo := max(int(math.Floor(float64(v))), 0)
		hi := min(int(math.Ceil(float64(v))), in-1)
		taps[i] = resizeTap{lo: lo, hi: hi, frac: v - float32(lo)}
	}
	return taps
}

// bilinearTapsInt is TFLite's ComputeInterpolationValuesInteger for
// every output coordinate, with its int32 scale on the 2^-10 scale
// (rounded quotient) and its truncating divisions.
func bilinearTapsInt(out, in int, o ResizeOptions) []resizeTapInt {
	o32, i32 := int32(out), int32(in)
	scale := ((1<<10)*i32 + o32/2) / o32
	if o.AlignCorners && out > 1 {
		scale = ((1<<10)*(i32-1) + (o32-1)/2) / (o32 - 1)
	}
	taps := make([]resizeTapInt, out)
	for i := range taps {
		v := int32(i) * scale
		if o.HalfPixelCenters {
			v += scale/2 - 1<<9
		}
		lo := max(v/(1<<10), 0)
		hi := min((v+(1<<10)-1)/(1<<10), i32-1)
		w1 := int64(v - (1<<10)*lo)
		taps[i] = resizeTapInt{lo: int(lo), hi: int(hi), w0: 1<<10 - w1, w1: w1}
	}
	return taps
}

// Eval interpolates.
func (k *ResizeBilinear) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("RESIZE_BILINEAR: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	g := &k.g
	rows := g.batch * g.outH
	if k.twoByTwo() {
		rows = g.batch * g.inH
	}
	k.in, k.out = in, out
	n.Parallel(rows, g.batch*g.outH*g.outW*g.depth*8, k.rowsFn)
	k.in, k.out = nil, nil
	return nil
}

// twoByTwo reports whether the float path is TFLite's ResizeBilinear2x2.
func (k *ResizeBilinear) twoByTwo() bool {
	g := &k.g
	return k.typ == ops.Float32 && !g.opts.AlignCorners && !g.opts.HalfPixelCenters && g.outH == 2*g.inH && g.outW == 2*g.inW
}

// evalRows computes the output rows [lo, hi), counted across batches
// (input rows, each giving two output rows, on the 2×2 path).
func (k *ResizeBilinear) evalRows(worker, lo, hi int) {
	in, out := k.in, k.out
	switch k.typ {
	case ops.Uint8:
		k.evalUint8(in.Data, out.Data, lo, hi)
		return
	case ops.Int8:
		resizeBilinearInt8(k, in.Int8s(), out.Int8s(), lo, hi)
		return
	case ops.Int16:
		resizeBilinearInteger(k, in.Int16s(), out.Int16s(), lo, hi)
		return
	}
	g := &k.g
	src, dst := in.Float32s(), out.Float32s()
	if k.twoByTwo() {
		resizeBilinear2x2(g, src, dst, lo, hi)
		return
	}
	// TFLite's ResizeBilinearGeneric, one output row per call: the
	// four weights of a pixel as float32 products, then the output,
	// zeroed, accumulates corner by corner in the order (y0,x0),
	// (y0,x1), (y1,x0), (y1,x1), every product and sum rounded on its
	// own (arch.BilinearRowF32).
	rowLen := g.inW * g.depth
	outLen := g.outW * g.depth
	for r := lo; r < hi; r++ {
		base := r / g.outH * g.inH * rowLen
		ty := k.ys[r%g.outH]
		r0 := base + ty.lo*rowLen
		r1 := base + ty.hi*rowLen
		arch.BilinearRowF32(dst[r*outLen:(r+1)*outLen], src[r0:r0+rowLen], src[r1:r1+rowLen], k.taps, ty.frac)
	}
}

// resizeBilinear2x2 is TFLite's ResizeBilinear2x2, the kernel its
// optimised float path takes for an exact doubling of both sides without
// align_corners or half_pixel_centers. Input pixel p00 (right neighbour
// p01, lower p10, diagonal p11; the pixel itself past the last column or
// row) gives the 2×2 block p00, (p00+p01)/2 on top and l = (p00+p10)/2,
// (l + (p01+p11)/2)/2 below, each sum and halving rounded in float32.
//
// It computes the output rows of the input rows [lo, hi), counted across
// batches.
func resizeBilinear2x2(g *resizeGeometry, src, dst []float32, lo, hi int) {
	d := g.depth
	for r := lo; r < hi; r++ {
		b, y0 := r/g.inH, r%g.inH
		in := src[b*g.inH*g.inW*d:]
		out := dst[b*g.outH*g.outW*d:]
		{
			y1 := min(y0+1, g.inH-1)
			for x0 := 0; x0 < g.inW; x0++ {
				x1 := min(x0+1, g.inW-1)
				p00 := in[(y0*g.inW+x0)*d:][:d]
				p01 := in[(y0*g.inW+x1)*d:][:d]
				p10 := in[(y1*g.inW+x0)*d:][:d]
				p11 := in[(y1*g.inW+x1)*d:][:d]
				top := out[(2*y0*g.outW+2*x0)*d:][:2*d]
				bot := out[((2*y0+1)*g.outW+2*x0)*d:][:2*d]
				for c := 0; c < d; c++ {
					top[c] = p00[c]
					top[d+c] = (p00[c] + p01[c]) / 2
					left := (p00[c] + p10[c]) / 2
					bot[c] = left
					bot[d+c] = (left + (p01[c]+p11[c])/2) / 2
				}
			}
		}
	}
}

// evalUint8 is TFLite's ResizeBilinearGenericSmallChannel<uint8_t>: the
// four weights of a pixel as float32 products, then per channel
// v00·w00 + v01·w01 + v10·w10 + v11·w11 + 0.5 in float32, left to right,
// truncated (every product and sum rounded to float32 on its own, never
// fused). From bilinearU8VectorDepth channels on, arch.BilinearRowU8
// computes each output row (the same operations, vectorised over a
// pixel's channels); below, the scalar loop.
//
// It computes the output rows [lo, hi), counted across batches.
func (k *ResizeBilinear) evalUint8(src, dst []byte, lo, hi int) {
	if k.taps != nil {
		k.evalUint8Vector(src, dst, lo, hi)
		return
	}
	k.evalUint8Scalar(src, dst, lo, hi)
}

// bilinearU8VectorDepth is the depth from which the uint8 path computes
// rows with arch.BilinearRowU8 (whose vector kernels start at 8 channels;
// BenchmarkResizeBilinearUint8 measures both paths at each depth).
const bilinearU8VectorDepth = 8

// evalUint8Vector is evalUint8 through arch.BilinearRowU8, one call per
// output row.
func (k *ResizeBilinear) evalUint8Vector(src, dst []byte, lo, hi int) {
	g := &k.g
	rowLen := g.inW * g.depth
	outLen := g.outW * g.depth
	for r := lo; r < hi; r++ {
		base := r / g.outH * g.inH * rowLen
		ty := k.ys[r%g.outH]
		r0 := base + ty.lo*rowLen
		r1 := base + ty.hi*rowLen
		arch.BilinearRowU8(dst[r*outLen:(r+1)*outLen], src[r0:r0+rowLen], src[r1:r1+rowLen], k.taps, ty.frac)
	}
}

// evalUint8Scalar is evalUint8 one channel at a time.
func (k *ResizeBilinear) evalUint8Scalar(src, dst []byte, lo, hi int) {
	g := &k.g
	d := g.depth
	o := lo * g.outW * d
	for r := lo; r < hi; r++ {
		base := r / g.outH * g.inH * g.inW * d
		ty := k.ys[r%g.outH]
		{
			r0 := base + ty.lo*g.inW*d
			r1 := base + ty.hi*g.inW*d
			dy := ty.frac
			for _, tx := range k.xs {
				dx := tx.frac
				w00 := float32((1 - dy) * (1 - dx))
				w01 := float32((1 - dy) * dx)
				w10 := float32(dy * (1 - dx))
				w11 := float32(dy * dx)
				p00, p01 := src[r0+tx.lo*d:r0+tx.lo*d+d], src[r0+tx.hi*d:r0+tx.hi*d+d]
				p10, p11 := src[r1+tx.lo*d:r1+tx.lo*d+d], src[r1+tx.hi*d:r1+tx.hi*d+d]
				row := dst[o : o+d]
				for c := range row {
					v := float32(float32(p00[c])*w00) + float32(float32(p01[c])*w01)
					v = float32(v+float32(float32(p10[c])*w10)) + float32(float32(p11[c])*w11)
					row[c] = uint8(f32ToInt32(v + 0.5))
				}
				o += d
			}
		}
	}
}

// resizeBilinearInteger is TFLite's ResizeBilinearInteger for int8 and
// int16: Σ v·wy·wx in int64 on the 2^-20 scale, then (sum ± 2^19) / 2^20
// truncated (half away from zero).
//
// It computes the output rows [lo, hi), counted across batches.
func resizeBilinearInteger[T int8 | int16](k *ResizeBilinear, src, dst []T, lo, hi int) {
	g := &k.g
	d := g.depth
	o := lo * g.outW * d
	for r := lo; r < hi; r++ {
		base := r / g.outH * g.inH * g.inW * d
		ty := k.yi[r%g.outH]
		{
			r0 := base + ty.lo*g.inW*d
			r1 := base + ty.hi*g.inW*d
			for _, tx := range k.xi {
				w00, w10 := ty.w0*tx.w0, ty.w1*tx.w0
				w01, w11 := ty.w0*tx.w1, ty.w1*tx.w1
				p00, p01 := src[r0+tx.lo*d:r0+tx.lo*d+d], src[r0+tx.hi*d:r0+tx.hi*d+d]
				p10, p11 := src[r1+tx.lo*d:r1+tx.lo*d+d], src[r1+tx.hi*d:r1+tx.hi*d+d]
				row := dst[o : o+d]
				for c := range row {
					s := int64(p00[c])*w00 + int64(p10[c])*w10 + int64(p01[c])*w01 + int64(p11[c])*w11
					r := int64(1 << 19)
					if s <= 0 {
						r = -r
					}
					row[c] = T((s + r) / (1 << 20))
				}
				o += d
			}
		}
	}
}

// resizeBilinearInt8 is resizeBilinearInteger for int8 in int32
// arithmetic, which holds every sum: |w0|, |w1| ≤ 1536 and |w0| + |w1| ≤
// 2048 on each axis, so |Σ v·wy·wx| ≤ 128·2048² = 2^29, and the rounding
// term keeps it below 2^31. The same sums, rounding and truncating
// division (and wrapping conversion, as TFLite's static_cast) give the
// same bytes at a fraction of the int64 loop's cost, and the rounding
// of the magnitude takes no data-dependent branch.
func resizeBilinearInt8(k *ResizeBilinear, src, dst []int8, lo, hi int) {
	g := &k.g
	d := g.depth
	o := lo * g.outW * d
	for r := lo; r < hi; r++ {
		base := r / g.outH * g.inH * g.inW * d
		ty := k.yi[r%g.outH]
		r0 := base + ty.lo*g.inW*d
		r1 := base + ty.hi*g.inW*d
		wy0, wy1 := int32(ty.w0), int32(ty.w1)
		for _, tx := range k.xi {
			wx0, wx1 := int32(tx.w0), int32(tx.w1)
			w00, w10 := wy0*wx0, wy1*wx0
			w01, w11 := wy0*wx1, wy1*wx1
			row := dst[o : o+d]
			p00 := src[r0+tx.lo*d:][:len(row)]
			p01 := src[r0+tx.hi*d:][:len(row)]
			p10 := src[r1+tx.lo*d:][:len(row)]
			p11 := src[r1+tx.hi*d:][:len(row)]
			for c := range row {
				s := int32(p00[c])*w00 + int32(p10[c])*w10 + int32(p01[c])*w01 + int32(p11[c])*w11
				// (s ± 2^19) / 2^20 truncated, without a branch: the
				// magnitude rounds half up, the sign comes back after
				// (s = 0 gives 0 either way).
				neg := s >> 31
				q := ((s ^ neg) - neg + 1<<19) >> 20
				row[c] = int8((q ^ neg) - neg)
			}
			o += d
		}
	}
}
