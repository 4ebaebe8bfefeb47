package builtin

import (
	"errors"
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// Conv3D is the kernel of TFLite's CONV_3D operator: a 3-D convolution
// over NDHWC volumes,
//
//	out[b, z, y, x, o] = act(bias[o] + Σ in[b, z·sD − pD + fz·dD, y·sH − pH + fy·dH,
//	                                     x·sW − pW + fx·dW, i]·filter[fz, fy, fx, i, o]),
//
// taps outside the input contributing nothing. Inputs: 0 input [batch, D,
// H, W, inC]; 1 filter [fD, fH, fW, inC, outC] (DHWIO); 2 bias [outC],
// optional. Output 0 is [batch, oD, oH, oW, outC] with each spatial size
// from the padding as CONV_2D's (SAME: ceil(in/stride); VALID:
// floor((in − effective filter)/stride) + 1). Float32 only, as TFLite's
// conv3d.cc. As TFLite's generic optimised kernel, it lays the patches
// out as rows (im2col) and multiplies them with the filter through
// arch.GemmF32, with the bias and the fused activation (RELU,
// RELU_N1_TO_1, RELU6; NONE clamps to ±FLT_MAX) in the GEMM; sums differ
// from TFLite's only in the order of the additions. Version 1, TFLite's
// register.cc.
type Conv3D struct {
	opts    Conv3DOptions
	batches int
	inC     int
	outC    int
	dims    [3]window // depth, height, width
	k       int       // patch length fD·fH·fW·inC
	pixels  int       // output positions per volume
	tile    int
	direct  bool // a 1×1×1 filter with stride 1: the input rows are the patches
	colID   int
	wT      []float32 // the filter as [outC][k]
	packed  []float32
	constW  bool
	matVec  bool
	zeroB   []float32
	fMin    float32
	fMax    float32
}

// Conv3DOptions is TFLite's Conv3DOptions (CONV_3D and
// CONV_3D_TRANSPOSE). Dilation factors default to 1.
type Conv3DOptions struct {
	Padding                   ops.Padding
	StrideD, StrideH, StrideW int
	DilationDFactor           int
	DilationHFactor           int
	DilationWFactor           int
	Activation                ops.Activation
}

// NewConv3D returns a CONV_3D kernel for one node.
func NewConv3D() ops.Kernel { return &Conv3D{} }

func init() {
	register(ops.OpConv3D, NewConv3D, [2]int{1, 1})
	registerOptions(schema.BuiltinOptionsConv3DOptions, decodeConv3DOptions)
}

// decodeConv3DOptions decodes TFLite's Conv3DOptions table.
func decodeConv3DOptions(t ops.OptionsTable) (any, error) {
	var o schema.Conv3DOptions
	initTable(&o, t)
	return &Conv3DOptions{
		Padding:         ops.Padding(o.Padding()),
		StrideD:         int(o.StrideD()),
		StrideH:         int(o.StrideH()),
		StrideW:         int(o.StrideW()),
		DilationDFactor: int(o.DilationDFactor()),
		DilationHFactor: int(o.DilationHFactor()),
		DilationWFactor: int(o.DilationWFactor()),
		Activation:      ops.Activation(o.FusedActivationFunction()),
	}, nil
}

// conv3DOptions reads the node's options (a missing table gives TFLite's
// defaults: zero strides, which Prepare refuses) and checks the
// activation.
func conv3DOptions(n *ops.Node, op string) (Conv3DOptions, error) {
	var o Conv3DOptions
	if p, ok := n.Options.(*Conv3DOptions); ok {
		if p != nil {
			o = *p
		}
	} else if n.Options != nil {
		return o, fmt.Errorf("options: have %T, need *Conv3DOptions", n.Options)
	}
	if err := checkActivation(o.Activation); err != nil {
		return o, fmt.Errorf("options: %v", err)
	}
	if o.Activation == ops.ActTanh || o.Activation == ops.ActSignBit {
		return o, fmt.Errorf("options: fused activation %s is not supported by %s", o.Activation, op)
	}
	return o, nil
}

// Prepare validates the node, sets the output shape and packs a constant
// filter.
func (k *Conv3D) Prepare(n *ops.Node) error {
	*k = Conv3D{}
	var err error
	if k.opts, err = conv3DOptions(n, "CONV_3D"); err != nil {
		return err
	}
	if err := n.CheckIO(2, 3, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	filter, err := n.RequireInput(1)
	if err != nil {
		return err
	}
	bias := n.Input(2)
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if in.Rank() != 5 {
		return fmt.Errorf("input 0: rank %d, need 5 (NDHWC)", in.Rank())
	}
	if filter.Rank() != 5 {
		return fmt.Errorf("input 1 (filter): rank %d, need 5 (DHWIO)", filter.Rank())
	}
	if err := requireType(in, "input 0", ops.Float32); err != nil {
		return err
	}
	if err := requireType(filter, "input 1 (filter)", ops.Float32); err != nil {
		return err
	}
	if out.Type != ops.Float32 {
		return fmt.Errorf("output 0: type %s, need float32", out.Type)
	}
	for d := 1; d < 5; d++ {
		if in.Shape[d] <= 0 || filter.Shape[d-1] <= 0 {
			return fmt.Errorf("input 0/1: shapes %v and %v, need positive spatial sizes and channels", in.Shape, filter.Shape)
		}
	}
	if filter.Shape[4] <= 0 {
		return fmt.Errorf("input 1 (filter): shape %v, need positive output channels", filter.Shape)
	}
	k.batches, k.inC, k.outC = in.Shape[0], in.Shape[4], filter.Shape[4]
	if filter.Shape[3] != k.inC {
		return fmt.Errorf("input 1 (filter): %d input channels, the input has %d", filter.Shape[3], k.inC)
	}
	if bias != nil {
		if bias.Type != ops.Float32 {
			return fmt.Errorf("input 2 (bias): type %s, need float32", bias.Type)
		}
		if bias.NumElements() != k.outC {
			return fmt.Errorf("input 2 (bias): %d elements, need %d (output channels)", bias.NumElements(), k.outC)
		}
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	if _, err := numElementsChecked(filter, "input 1 (filter)"); err != nil {
		return err
	}
	o := k.opts
	strides := [3]int{o.StrideD, o.StrideH, o.StrideW}
	dil := [3]int{o.DilationDFactor, o.DilationHFactor, o.DilationWFactor}
	names := [3]string{"depth", "height", "width"}
	for d := 0; d < 3; d++ {
		if k.dims[d], err = newWindow(o.Padding, in.Shape[d+1], filter.Shape[d], strides[d], dil[d], names[d]); err != nil {
			return err
		}
	}
	outShape := []int{k.batches, k.dims[0].out, k.dims[1].out, k.dims[2].out, k.outC}
	if _, err := ops.ShapeElements(outShape, 4); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = outShape
	k.pixels = k.dims[0].out * k.dims[1].out * k.dims[2].out
	k.k = filter.Shape[0] * filter.Shape[1] * filter.Shape[2] * k.inC
	if _, err := ops.ShapeElements([]int{k.k, k.outC}, 4); err != nil {
		return fmt.Errorf("input 1 (filter): %v", err)
	}
	k.fMin, k.fMax = ActivationRangeFloat(o.Activation)
	if k.pixels == 0 || k.batches == 0 {
		return nil
	}
	k.direct = k.k == k.inC && strides == [3]int{1, 1, 1} && k.dims[0].pad == 0 && k.dims[1].pad == 0 && k.dims[2].pad == 0
	gemm, _ := arch.GemmPreferred()
	k.matVec = !gemm || deconvForceMatVec
	k.tile = k.pixels
	if !k.direct {
		k.tile = max(1, min(k.pixels, convTileBytes/(4*k.k)))
		k.colID = n.RequestScratch(4 * k.tile * k.k)
	}
	k.wT = make([]float32, k.outC*k.k)
	if !k.matVec {
		k.packed = make([]float32, arch.PackedGemmF32Len(k.outC, k.k))
	}
	k.zeroB = make([]float32, k.outC)
	k.constW = filter.IsConstant()
	if k.constW {
		k.loadFilter(filter)
	}
	return nil
}

// loadFilter transposes the DHWIO filter to [outC][fD·fH·fW·inC] rows and
// packs them.
func (k *Conv3D) loadFilter(filter *ops.Tensor) {
	transposeInto(k.wT, filter.Float32s(), k.k, k.outC)
	if !k.matVec {
		arch.PackGemmF32(k.packed, k.wT, k.outC, k.k)
	}
}

// Eval computes the convolution.
func (k *Conv3D) Eval(n *ops.Node) error {
	in, filter, bias, out := n.Input(0), n.Input(1), n.Input(2), n.Output(0)
	if in == nil || filter == nil || out == nil {
		return errors.New("CONV_3D: input, filter or output missing at Eval")
	}
	if err := checkData(in, filter, bias, out); err != nil {
		return err
	}
	if k.pixels == 0 || k.batches == 0 {
		return nil
	}
	if k.wT == nil {
		return errors.New("CONV_3D: Eval before a successful Prepare")
	}
	if !k.constW {
		k.loadFilter(filter)
	}
	var col []float32
	if !k.direct {
		var err error
		if col, err = scratchFloat32(n, k.colID, k.tile*k.k); err != nil {
			return err
		}
	}
	b := k.zeroB
	if bias != nil {
		b = bias.Float32s()[:k.outC]
	}
	x, o := in.Float32s(), out.Float32s()
	inVol := k.dims[0].in * k.dims[1].in * k.dims[2].in * k.inC
	for batch := 0; batch < k.batches; batch++ {
		xb := x[batch*inVol : (batch+1)*inVol]
		ob := o[batch*k.pixels*k.outC : (batch+1)*k.pixels*k.outC]
		for p0 := 0; p0 < k.pixels; p0 += k.tile {
			cnt := min(k.tile, k.pixels-p0)
			var src []float32
			if k.direct {
				src = xb[p0*k.k : (p0+cnt)*k.k]
			} else {
				k.im2col(col[:cnt*k.k], xb, p0, cnt)
				src = col[:cnt*k.k]
			}
			dst := ob[p0*k.outC : (p0+cnt)*k.outC]
			if k.matVec {
				fillBias(dst, b, k.outC)
				arch.MatBatchVecMulAcc(dst, k.wT, k.outC, k.k, src, cnt)
				arch.VecClamp(dst, k.fMin, k.fMax)
				continue
			}
			arch.GemmF32(dst, k.outC, src, k.k, k.packed, b, cnt, k.outC, k.k, k.fMin, k.fMax)
		}
	}
	return nil
}

// im2col writes the patch rows of output positions first..first+cnt-1 of
// one volume x: taps (fz, fy, fx, channel) in the filter's order, zeros
// for taps outside the input. Along the width, the in-range taps of an
// undilated filter are one contiguous run of the input.
func (k *Conv3D) im2col(col, x []float32, first, cnt int) {
	dz, dy, dx := &k.dims[0], &k.dims[1], &k.dims[2]
	c := k.inC
	fw := dx.filter
	seg := fw * c
	outHW := dy.out * dx.out
	for i := 0; i < cnt; i++ {
		p := first + i
		oz, oy, ox := p/outHW, p%outHW/dx.out, p%dx.out
		row := col[i*k.k : (i+1)*k.k]
		zOrigin := oz*dz.stride - dz.pad
		yOrigin := oy*dy.stride - dy.pad
		xOrigin, fxLo, fxHi := dx.span(ox)
		j := 0
		for fz := 0; fz < dz.filter; fz++ {
			iz := zOrigin + fz*dz.dilation
			for fy := 0; fy < dy.filter; fy++ {
				iy := yOrigin + fy*dy.dilation
				dst := row[j : j+seg]
				j += seg
				if iz < 0 || iz >= dz.in || iy < 0 || iy >= dy.in || fxLo >= fxHi {
					clear(dst)
					continue
				}
				clear(dst[:fxLo*c])
				clear(dst[fxHi*c:])
				base := (iz*dy.in + iy) * dx.in
				if dx.dilation == 1 {
					off := (base + xOrigin + fxLo) * c
					copy(dst[fxLo*c:fxHi*c], x[off:off+(fxHi-fxLo)*c])
					continue
				}
				for fx := fxLo; fx < fxHi; fx++ {
					off := (base + xOrigin + fx*dx.dilation) * c
					copy(dst[fx*c:(fx+1)*c], x[off:off+c])
				}
			}
		}
	}
}
