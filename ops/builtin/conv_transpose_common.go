package builtin

import (
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// This file holds what TRANSPOSE_CONV and CONV_3D_TRANSPOSE share: the
// geometry of a transposed convolution and the col2im scatter of TFLite's
// optimized kernels (optimized_ops.h TransposeConvV2, Conv3DTranspose and
// Col2im). A transposed convolution is run as a matrix product and a
// scatter: the product multiplies every input pixel (a row of inC values)
// by the filter laid out as [taps·outC][inC], giving per input pixel one
// row of taps·outC partial outputs; col2im then adds each tap's outC
// values into the output pixel the tap lands on,
//
//	out[o·stride − pad + t·dilation] += row(i)[t],  for input position i, tap t,
//
// skipping taps that land outside the output. TFLite's reference kernels
// (reference_ops::TransposeConv, Conv3DTranspose) do the same scatter one
// product at a time; integer sums are exact in both, float sums differ
// only in the order of the additions.

// deconvGeom is the geometry of a transposed convolution over up to three
// spatial dimensions (depth, height, width; a 2-D one has depth 1). in
// are the input's spatial sizes, out the output's, f the filter's, s the
// strides, dil the dilations, pad the leading paddings of the output
// (what the forward convolution from out to in would pad).
type deconvGeom struct {
	in, out, f, s, dil, pad [3]int
	outC                    int
}

// taps is the number of filter taps fD·fH·fW.
func (g *deconvGeom) taps() int { return g.f[0] * g.f[1] * g.f[2] }

// inPixels and outPixels count the spatial positions of one image.
func (g *deconvGeom) inPixels() int  { return g.in[0] * g.in[1] * g.in[2] }
func (g *deconvGeom) outPixels() int { return g.out[0] * g.out[1] * g.out[2] }

// newDeconvDim checks one spatial dimension of a transposed convolution
// as TFLite does: the forward convolution with this padding, stride and
// dilation from an output of size out must give exactly the input size
// in (TFLite's ComputePaddingHeightWidthChecked / ComputePadding3DValues,
// then the comparison with the input's dimension). It returns the leading
// padding.
func newDeconvDim(p ops.Padding, in, out, filter, stride, dilation int, what string) (pad int, err error) {
	w, err := newWindow(p, out, filter, stride, dilation, what)
	if err != nil {
		return 0, err
	}
	if w.out != in {
		return 0, fmt.Errorf("input 2: %s %d does not match the output %s %d (a %s convolution with filter %d, stride %d gives %d)",
			what, in, what, out, p, filter, stride, w.out)
	}
	return w.pad, nil
}

// deconvAdd adds src into dst element by element (len(src) elements);
// the scatter calls it once per run of contiguous taps.
type deconvAdd[T float32 | int32 | int64] func(dst, src []T)

// addF32 is the float scatter step, through arch.VecAdd.
func addF32(dst, src []float32) { arch.VecAdd(dst, dst, src) }

// addInt32 is the int32 scatter step; sums wrap as TFLite's WrappingAdd.
func addInt32(dst, src []int32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] += v
	}
}

// addInt64 is the int64 scatter step (the int16x8 kernel with 64-bit
// accumulators).
func addInt64(dst, src []int64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] += v
	}
}

// deconvScatter adds the product rows of input pixels first..first+cnt-1
// of one image (row p at col[p·ldc:], taps in (d, h, w) order, outC values
// each) into acc, the image's output accumulators [outD][outH][outW][outC].
// Along the width, the taps of one row that land inside the output are
// contiguous in both the product row and acc when the width dilation is
// 1, so they are added as one run.
func deconvScatter[T float32 | int32 | int64](g *deconvGeom, acc, col []T, ldc, first, cnt int, add deconvAdd[T]) {
	c := g.outC
	inHW := g.in[1] * g.in[2]
	for p := 0; p < cnt; p++ {
		pix := first + p
		iz, iy, ix := pix/inHW, pix%inHW/g.in[2], pix%g.in[2]
		row := col[p*ldc : p*ldc+g.taps()*c]
		oz0 := iz*g.s[0] - g.pad[0]
		oy0 := iy*g.s[1] - g.pad[1]
		ox0 := ix*g.s[2] - g.pad[2]
		// Taps along the width whose output column is inside [0, outW).
		xLo, xHi := 0, g.f[2]
		if g.dil[2] == 1 {
			xLo = max(0, -ox0)
			xHi = min(g.f[2], g.out[2]-ox0)
		}
		for fz := 0; fz < g.f[0]; fz++ {
			oz := oz0 + fz*g.dil[0]
			if oz < 0 || oz >= g.out[0] {
				continue
			}
			for fy := 0; fy < g.f[1]; fy++ {
				oy := oy0 + fy*g.dil[1]
				if oy < 0 || oy >= g.out[1] {
					continue
				}
				tap := (fz*g.f[1] + fy) * g.f[2]
				base := (oz*g.out[1] + oy) * g.out[2]
				if g.dil[2] == 1 {
					if xLo < xHi {
						o := (base + ox0 + xLo) * c
						add(acc[o:o+(xHi-xLo)*c], row[(tap+xLo)*c:(tap+xHi)*c])
					}
					continue
				}
				for fx := 0; fx < g.f[2]; fx++ {
					ox := ox0 + fx*g.dil[2]
					if ox < 0 || ox >= g.out[2] {
						continue
					}
					o := (base + ox) * c
					add(acc[o:o+c], row[(tap+fx)*c:(tap+fx+1)*c])
				}
			}
		}
	}
}

// deconvForceMatVec makes the transposed convolutions choose the
// per-pixel matrix-vector products over the GEMMs (tests: the path arm64
// takes, see arch.GemmPreferred).
var deconvForceMatVec bool

// deconvTile is the number of input pixels whose product rows (n values
// of elem bytes each) fit one tile of about deconvTileBytes, at least 1.
func deconvTile(pixels, n, elem int) int {
	return max(1, min(pixels, deconvTileBytes/max(1, n*elem)))
}

// deconvTileBytes bounds the product rows computed before each scatter,
// so that they stay in the L2 cache between the GEMM and the scatter.
const deconvTileBytes = 128 << 10

// biasClampF32 adds bias (nil: none) to every pixel row of c values of v
// and clamps to [lo, hi] as TFLite's BiasAdd followed by
// ActivationFunctionWithMinMax (which, with no activation, still clamps to
// ±FLT_MAX: an infinite sum comes out as ±FLT_MAX).
func biasClampF32(v, bias []float32, c int, lo, hi float32) {
	if bias != nil {
		bias = bias[:c]
		for p := 0; p+c <= len(v); p += c {
			arch.VecAdd(v[p:p+c], v[p:p+c], bias)
		}
	}
	arch.VecClamp(v, lo, hi)
}
