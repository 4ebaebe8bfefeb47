package builtin

import (
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
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
// the output. Image adds into the output, so the caller sets the output's
// starting values (zeros, or the bias); input pixels are added in raster
// order, each as one dot product over inC.
type DeconvF32 struct {
	g      deconvGeom
	inC    int
	n      int  // product row length fH·fW·outC
	tile   int  // input pixels per product tile
	matVec bool // per-pixel matrix-vector products

	wT     []float32 // weights as [fH·fW·outC][inC]
	packed []float32 // wT packed for arch.GemmF32 (nil with matVec)
	zero   []float32 // the GEMM's bias: n zeros
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
	const limit = 1 << 40
	mul := func(vs ...int) (int, bool) {
		p := 1
		for _, v := range vs {
			if v > limit/p {
				return 0, false
			}
			p *= v
		}
		return p, true
	}
	n, ok1 := mul(s.FH, s.FW, s.OutC)
	_, ok2 := mul(n, s.InC)
	_, ok3 := mul(s.InH, s.InW, s.InC)
	_, ok4 := mul(s.OutH, s.OutW, s.OutC)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, fmt.Errorf("sizes %+v are too large", s)
	}
	d := &DeconvF32{inC: s.InC, n: n}
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
	d.tile = deconvTile(d.g.inPixels(), n, 4)
	d.wT = make([]float32, n*s.InC)
	if !d.matVec {
		d.packed = make([]float32, arch.PackedGemmF32Len(n, s.InC))
	}
	d.zero = make([]float32, n)
	return d, nil
}

// WeightsLen is the number of float32 weights LoadWeights reads,
// outC·fH·fW·inC.
func (d *DeconvF32) WeightsLen() int { return d.n * d.inC }

// ColLen is the number of float32s of the scratch Image needs.
func (d *DeconvF32) ColLen() int { return d.tile * d.n }

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
	if !d.matVec {
		arch.PackGemmF32(d.packed, d.wT, d.n, inC)
	}
}

// Image adds the transposed convolution of one input image in (InLen
// values) into out (OutLen values), using col (ColLen values) as scratch.
// It panics if a slice is too short (a kernel bug: sizes are checked at
// Prepare).
func (d *DeconvF32) Image(out, in, col []float32) {
	inPix := d.g.inPixels()
	out, in, col = out[:d.OutLen()], in[:d.InLen()], col[:d.ColLen()]
	inf := float32(math.Inf(1))
	for p0 := 0; p0 < inPix; p0 += d.tile {
		cnt := min(d.tile, inPix-p0)
		a := in[p0*d.inC : (p0+cnt)*d.inC]
		c := col[:cnt*d.n]
		if d.matVec {
			clear(c)
			arch.MatBatchVecMulAcc(c, d.wT, d.n, d.inC, a, cnt)
		} else {
			arch.GemmF32(c, d.n, a, d.inC, d.packed, d.zero, cnt, d.n, d.inC, -inf, inf)
		}
		deconvScatter(&d.g, out, c, d.n, p0, cnt, addF32)
	}
}
