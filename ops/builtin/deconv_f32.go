package builtin

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// DeconvF32 is the float32 engine of TRANSPOSE_CONV (see
// conv_transpose_common.go): per tile of input pixels, one GEMM of the
// pixels' channels against the weights laid out as [fH·fW·outC][inC]
// (arch.GemmF32, or per-pixel matrix-vector products where
// arch.GemmPreferred says so), then the col2im scatter of the products
// into the output. It is exported so that the custom transposed
// convolutions of package ops/perception (MediaPipe's
// Convolution2DTransposeBias) run on the same code as the builtin one.
//
// Images are NHWC float32: input [inH][inW][inC], output
// [outH][outW][outC]; weights are OHWI [outC][fH][fW][inC]. Input pixel
// (iy, ix) adds its products with tap (fy, fx) into output pixel
// (iy·strideH − padT + fy, ix·strideW − padL + fx) when that lies inside
// the output. Image starts every output at its bias (or zero) and adds
// the input pixels in raster order, each as one dot product over inC.
//
// When the taps cannot overlap (strides equal to the filter size, no
// leading column padding and no column cropped: every output pixel gets
// exactly one product, as in the 2×2, stride-2 upsampling of MediaPipe's
// decoders) and a filter row's fW·outC products are a multiple of 8
// (the GEMM's fast widths), there is nothing to accumulate: Image runs
// one GEMM per input row and filter row straight into the output row,
// with the bias as the GEMM's (the sum first, then the bias). Otherwise
// the products of a tile of pixels go to a scratch buffer and are
// scattered (col2im) into the output set to the bias.
//
// With DeconvShape.AnyOrder the product rows are padded with zero
// weights to a multiple of 8 values, which arch.GemmF32 runs several
// times faster than a remainder of 1-7 channels (it reproduces Eigen's
// order of the sums for those); TRANSPOSE_CONV leaves it off to keep
// that order.
type DeconvF32 struct {
	g      deconvGeom
	inC    int
	n      int  // product row length fH·fW·outC
	tile   int  // input pixels per product tile
	matVec bool // per-pixel matrix-vector products
	direct bool // non-overlapping taps: GEMMs straight into the output
	apart  bool // non-overlapping taps (strides = filter): each output set once

	ldc int // product row stride: n, or n padded to 8 (AnyOrder)

	wT     []float32   // weights as [fH·fW·outC][inC] (ldc rows)
	packed []float32   // wT packed for arch.GemmF32 (nil with matVec or direct)
	rows   [][]float32 // direct: per filter row fy, its fW·outC rows of wT packed
	zero   []float32   // the GEMM's bias: n zeros
	biasT  []float32   // direct, apart: the bias repeated over fW taps
}

// DeconvShape is the geometry of a DeconvF32: input and output image
// sizes (height, width), channels, filter size, strides and the leading
// paddings (top, left) of the output.
type DeconvShape struct {
	InH, InW, InC    int
	OutH, OutW, OutC int
	FH, FW           int
	StrideH, StrideW int
	PadT, PadL       int
	// AnyOrder lets the engine change the order of the GEMM's sums for
	// speed (see DeconvF32); results still agree to a few float32 ulps
	// of Σ|terms|.
	AnyOrder bool
}

// NewDeconvF32 checks s and returns an engine for it with no weights
// (call LoadWeights). Every size must be positive (paddings ≥ 0), strides
// at most math.MaxInt16, and the products and images must fit in memory
// sizes; the error says which does not.
func NewDeconvF32(s DeconvShape) (*DeconvF32, error) {
	for _, v := range []struct {
		name string
		v    int
	}{{"input height", s.InH}, {"input width", s.InW}, {"input channels", s.InC},
		{"output height", s.OutH}, {"output width", s.OutW}, {"output channels", s.OutC},
		{"filter height", s.FH}, {"filter width", s.FW}} {
		if v.v <= 0 {
			return nil, fmt.Errorf("%s %d, need > 0", v.name, v.v)
		}
	}
	if s.StrideH <= 0 || s.StrideH > math.MaxInt16 || s.StrideW <= 0 || s.StrideW > math.MaxInt16 {
		return nil, fmt.Errorf("strides %d×%d, need each in [1, %d]", s.StrideH, s.StrideW, math.MaxInt16)
	}
	if s.PadT < 0 || s.PadL < 0 {
		return nil, fmt.Errorf("paddings %d, %d, need ≥ 0", s.PadT, s.PadL)
	}
	for _, shape := range [][]int{{s.FH, s.FW, s.OutC, s.InC}, {s.InH, s.InW, s.InC}, {s.OutH, s.OutW, s.OutC}} {
		if _, err := ops.ShapeElements(shape, 4); err != nil {
			return nil, fmt.Errorf("sizes %+v: %v", s, err)
		}
	}
	n := s.FH * s.FW * s.OutC
	if _, err := ops.ShapeElements([]int{(n + 7) &^ 7, s.InC}, 4); err != nil {
		return nil, fmt.Errorf("sizes %+v: %v", s, err)
	}
	d := &DeconvF32{inC: s.InC, n: n, ldc: n}
	d.g = deconvGeom{
		in:   [3]int{1, s.InH, s.InW},
		out:  [3]int{1, s.OutH, s.OutW},
		f:    [3]int{1, s.FH, s.FW},
		s:    [3]int{1, s.StrideH, s.StrideW},
		dil:  [3]int{1, 1, 1},
		pad:  [3]int{0, s.PadT, s.PadL},
		outC: s.OutC,
	}
	gemm, _ := arch.GemmPreferred()
	d.matVec = !gemm || deconvForceMatVec
	// Apart also needs every output covered by some tap (TRANSPOSE_CONV's
	// output may extend up to stride−1 past the last input's taps).
	d.apart = s.StrideH == s.FH && s.StrideW == s.FW &&
		s.OutH+s.PadT <= s.StrideH*s.InH && s.OutW+s.PadL <= s.StrideW*s.InW
	d.direct = !d.matVec && d.apart && s.PadL == 0 && s.OutW == s.InW*s.FW && s.FW*s.OutC%8 == 0
	if s.AnyOrder && !d.matVec && !d.direct {
		d.ldc = (n + 7) &^ 7
	}
	d.tile = deconvTile(d.g.inPixels(), d.ldc, 4)
	d.wT = make([]float32, d.ldc*s.InC)
	switch {
	case d.direct:
		nr := s.FW * s.OutC
		d.rows = make([][]float32, s.FH)
		for fy := range d.rows {
			d.rows[fy] = make([]float32, arch.PackedGemmF32Len(nr, s.InC))
		}
	case !d.matVec:
		d.packed = make([]float32, arch.PackedGemmF32Len(d.ldc, s.InC))
	}
	d.zero = make([]float32, d.ldc)
	if d.apart {
		d.biasT = make([]float32, s.FW*s.OutC)
	}
	return d, nil
}

// WeightsLen is the number of float32 weights LoadWeights reads,
// outC·fH·fW·inC.
func (d *DeconvF32) WeightsLen() int { return d.n * d.inC }

// ColLen is the number of float32s of the scratch Image needs (0 when
// the GEMMs write straight into the output).
func (d *DeconvF32) ColLen() int {
	if d.direct {
		return 0
	}
	return d.tile * d.ldc
}

// InLen and OutLen are the float32 sizes of one input and one output
// image.
func (d *DeconvF32) InLen() int  { return d.g.inPixels() * d.inC }
func (d *DeconvF32) OutLen() int { return d.g.outPixels() * d.g.outC }

// LoadWeights lays out the OHWI weights w (WeightsLen values) for the
// products and packs them for the GEMM. Call it once for constant
// weights, or before every Image when they change.
func (d *DeconvF32) LoadWeights(w []float32) {
	outC, taps, inC := d.g.outC, d.g.taps(), d.inC
	w = w[:d.n*inC]
	for oc := 0; oc < outC; oc++ {
		for t := 0; t < taps; t++ {
			copy(d.wT[(t*outC+oc)*inC:(t*outC+oc+1)*inC], w[(oc*taps+t)*inC:(oc*taps+t+1)*inC])
		}
	}
	switch {
	case d.direct:
		nr := d.g.f[2] * outC
		for fy, p := range d.rows {
			arch.PackGemmF32(p, d.wT[fy*nr*inC:(fy+1)*nr*inC], nr, inC)
		}
	case !d.matVec:
		arch.PackGemmF32(d.packed, d.wT, d.ldc, inC) // rows n..ldc-1 stay zero
	}
}

// Image sets out (OutLen values) to the transposed convolution of one
// input image in (InLen values) plus bias (outC values; nil: none), using
// col (ColLen values) as scratch. It panics if a slice is too short (a
// kernel bug: sizes are checked at Prepare).
func (d *DeconvF32) Image(out, in, col, bias []float32) {
	if d.apart {
		d.SetBias(bias)
		d.ImageRows(out, in, col, 0, d.g.in[1])
		return
	}
	outC := d.g.outC
	out = out[:d.OutLen()]
	if bias != nil {
		bias = bias[:outC]
		copy(out[:outC], bias)
		for filled := outC; filled < len(out); filled *= 2 {
			copy(out[filled:], out[:filled])
		}
	} else {
		clear(out)
	}
	d.pixels(out, in, col, 0, d.g.inPixels())
}

// Apart reports whether no two taps land on one output (strides equal to
// the filter, every output covered): then the input rows of an image
// write disjoint outputs, and ImageRows may compute them on several
// threads at once.
func (d *DeconvF32) Apart() bool { return d.apart }

// SetBias sets the bias (outC values; nil: none) ImageRows adds; call it
// before the ImageRows of an image, not concurrently with them. Only for
// an Apart engine.
func (d *DeconvF32) SetBias(bias []float32) {
	if bias != nil {
		for j := range d.biasT {
			d.biasT[j] = bias[j%d.g.outC]
		}
	} else {
		clear(d.biasT)
	}
}

// ImageRows sets the outputs of input rows lo ≤ iy < hi of the image
// (Image's arguments; col is this call's own scratch) of an Apart
// engine, to bias + product. Calls for disjoint row ranges may run
// concurrently.
func (d *DeconvF32) ImageRows(out, in, col []float32, lo, hi int) {
	outC := d.g.outC
	out, in, col = out[:d.OutLen()], in[:d.InLen()], col[:d.ColLen()]
	if !d.direct {
		inW := d.g.in[2]
		d.pixels(out, in, col, lo*inW, hi*inW)
		return
	}
	// Output row y = iy·fH − padT + fy holds, for every input pixel of
	// row iy, its fW taps of filter row fy side by side: the GEMM's rows
	// of fW·outC values, back to back.
	inf := float32(math.Inf(1))
	inW, outW, nr := d.g.in[2], d.g.out[2], len(d.biasT)
	for iy := lo; iy < hi; iy++ {
		a := in[iy*inW*d.inC : (iy+1)*inW*d.inC]
		for fy, p := range d.rows {
			y := iy*d.g.s[1] - d.g.pad[1] + fy
			if y < 0 || y >= d.g.out[1] {
				continue
			}
			arch.GemmF32(out[y*outW*outC:(y+1)*outW*outC], nr, a, d.inC, p, d.biasT, inW, nr, d.inC, -inf, inf)
		}
	}
}

// pixels computes the products of input pixels [p0, p1) tile by tile and
// scatters them into out (prefilled with the bias unless apart).
func (d *DeconvF32) pixels(out, in, col []float32, p0, p1 int) {
	inf := float32(math.Inf(1))
	for ; p0 < p1; p0 += d.tile {
		cnt := min(d.tile, p1-p0)
		a := in[p0*d.inC : (p0+cnt)*d.inC]
		c := col[:cnt*d.ldc]
		if d.matVec {
			clear(c)
			arch.MatBatchVecMulAcc(c, d.wT, d.n, d.inC, a, cnt)
		} else {
			arch.GemmF32(c, d.ldc, a, d.inC, d.packed, d.zero, cnt, d.ldc, d.inC, -inf, inf)
		}
		d.scatter(out, c, p0, cnt)
	}
}

// scatter is deconvScatter for float32 and dilation 1, with the short
// runs of taps (a few channels) added inline rather than through
// arch.VecAdd: the same sums, without a call per run. With apart (no two
// taps land on one output) it sets each output to biasT's value plus its
// product instead of adding into a prefilled output.
func (d *DeconvF32) scatter(out, col []float32, first, cnt int) {
	g := &d.g
	c := g.outC
	inW, outH, outW, fH, fW := g.in[2], g.out[1], g.out[2], g.f[1], g.f[2]
	sH, sW, padT, padL := g.s[1], g.s[2], g.pad[1], g.pad[2]
	iy, ix := first/inW, first%inW
	for p := 0; p < cnt; p++ {
		row := col[p*d.ldc : p*d.ldc+d.n]
		oy0, ox0 := iy*sH-padT, ix*sW-padL
		if ix++; ix == inW {
			ix = 0
			iy++
		}
		xLo, xHi := max(0, -ox0), min(fW, outW-ox0)
		if xLo >= xHi {
			continue
		}
		run := (xHi - xLo) * c
		for fy := max(0, -oy0); fy < min(fH, outH-oy0); fy++ {
			o := out[((oy0+fy)*outW+ox0+xLo)*c:][:run]
			r := row[(fy*fW+xLo)*c:][:run]
			switch {
			case d.apart:
				b := d.biasT[xLo*c:][:run]
				if run < 16 {
					for i, v := range r {
						o[i] = b[i] + v
					}
				} else {
					arch.VecAdd(o, b, r)
				}
			case run < 16:
				for i, v := range r {
					o[i] += v
				}
			default:
				arch.VecAdd(o, o, r)
			}
		}
	}
}
