package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Conv3DTranspose is the kernel of TFLite's CONV_3D_TRANSPOSE operator: the
// transposed 3-D convolution over NDHWC volumes (the gradient of CONV_3D
// with respect to its input). Every input position scatters its products
// with the filter taps into output positions o·stride − pad + tap·dilation:
//
//	out[b, z, y, x, c] = act(bias[c] + Σ in[b, iz, iy, ix, i]·filter[fz, fy, fx, c, i])
//
// over the input positions and taps that land on (z, y, x). Inputs: 0
// output_shape, an int32 vector [batch, oD, oH, oW, outC] that must be
// constant (otherwise the interpreter prepares it at Invoke, see
// ops.NotConstantError); 1 filter [fD, fH, fW,
// outC, inC]; 2 input [batch, D, H, W, inC]; 3 bias [outC], optional. The
// padding is that of the CONV_3D with the same options from the output,
// which must give the input's spatial sizes. Float32 only, as TFLite's
// conv3d_transpose.cc; the fused activation is RELU, RELU_N1_TO_1, RELU6 or
// NONE (which clamps to ±FLT_MAX). The products run through arch.GemmF32
// (every input position against the filter's [fD·fH·fW·outC][inC] rows,
// which is the filter's own layout) and a col2im scatter, as TFLite's
// optimised kernel; with dilation TFLite uses its reference kernel, whose
// sums differ from these only in the order of the additions. Version 1,
// TFLite's register.cc.
type Conv3DTranspose struct {
	opts    Conv3DOptions
	g       deconvGeom
	batches int
	inC     int
	n       int // product row length fD·fH·fW·outC
	tile    int
	colID   int
	packed  []float32
	constW  bool
	matVec  bool
	zeroF   []float32
	fMin    float32
	fMax    float32
	ready   bool
}

// NewConv3DTranspose returns a CONV_3D_TRANSPOSE kernel for one node.
func NewConv3DTranspose() ops.Kernel { return &Conv3DTranspose{} }

func init() {
	// Conv3DOptions, shared with CONV_3D, is decoded by conv_3d.go.
	register(ops.OpConv3DTranspose, NewConv3DTranspose, [2]int{1, 1})
}

// Prepare validates the node, sets the output shape from the constant
// output_shape input and packs a constant filter.
func (k *Conv3DTranspose) Prepare(n *ops.Node) error {
	*k = Conv3DTranspose{}
	var err error
	if k.opts, err = conv3DOptions(n, "CONV_3D_TRANSPOSE"); err != nil {
		return err
	}
	if err := n.CheckIO(3, 4, 1); err != nil {
		return err
	}
	shapeT, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	filter, err := n.RequireInput(1)
	if err != nil {
		return fmt.Errorf("%v (filter)", err)
	}
	in, err := n.RequireInput(2)
	if err != nil {
		return err
	}
	bias := n.Input(3)
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	if shapeT.Rank() != 1 || shapeT.NumElements() != 5 {
		return fmt.Errorf("input 0 (output_shape): shape %v, need a vector of 5", shapeT.Shape)
	}
	if shapeT.Type != ops.Int32 {
		return fmt.Errorf("input 0 (output_shape): type %s, need int32", shapeT.Type)
	}
	if !shapeT.IsConstant() {
		return ops.NotConstant("input 0 (output_shape)")
	}
	if in.Rank() != 5 {
		return fmt.Errorf("input 2: rank %d, need 5 (NDHWC)", in.Rank())
	}
	if filter.Rank() != 5 {
		return fmt.Errorf("input 1 (filter): rank %d, need 5", filter.Rank())
	}
	if err := requireType(in, "input 2", ops.Float32); err != nil {
		return err
	}
	if err := requireType(filter, "input 1 (filter)", ops.Float32); err != nil {
		return err
	}
	if out.Type != ops.Float32 {
		return fmt.Errorf("output 0: type %s, need float32", out.Type)
	}
	if _, err := numElementsChecked(in, "input 2"); err != nil {
		return err
	}
	if _, err := numElementsChecked(filter, "input 1 (filter)"); err != nil {
		return err
	}
	for d := 0; d < 5; d++ {
		if filter.Shape[d] <= 0 {
			return fmt.Errorf("input 1 (filter): shape %v, need positive sizes", filter.Shape)
		}
	}
	k.inC = in.Shape[4]
	if filter.Shape[4] != k.inC {
		return fmt.Errorf("input 1 (filter): %d input channels, the input has %d", filter.Shape[4], k.inC)
	}
	outC := filter.Shape[3]
	dims := shapeT.Int32s()[:5]
	outShape := make([]int, 5)
	for i, d := range dims {
		outShape[i] = int(d)
	}
	if _, err := ops.ShapeElements(outShape, 4); err != nil {
		return fmt.Errorf("input 0 (output_shape): %v", err)
	}
	if outShape[0] != in.Shape[0] {
		return fmt.Errorf("input 0 (output_shape): batch %d differs from the input's %d", outShape[0], in.Shape[0])
	}
	if outShape[4] != outC {
		return fmt.Errorf("input 0 (output_shape): %d channels, the filter has %d", outShape[4], outC)
	}
	if bias != nil {
		if bias.Type != ops.Float32 {
			return fmt.Errorf("input 3 (bias): type %s, need float32", bias.Type)
		}
		if bias.NumElements() != outC {
			return fmt.Errorf("input 3 (bias): %d elements, need %d (output channels)", bias.NumElements(), outC)
		}
	}
	o := k.opts
	strides := [3]int{o.StrideD, o.StrideH, o.StrideW}
	dil := [3]int{o.DilationDFactor, o.DilationHFactor, o.DilationWFactor}
	names := [3]string{"depth", "height", "width"}
	g := &k.g
	for d := 0; d < 3; d++ {
		if g.pad[d], err = newDeconvDim(o.Padding, in.Shape[d+1], outShape[d+1], filter.Shape[d], strides[d], dil[d], names[d]); err != nil {
			return err
		}
		g.in[d], g.out[d], g.f[d], g.s[d], g.dil[d] = in.Shape[d+1], outShape[d+1], filter.Shape[d], strides[d], dil[d]
	}
	g.outC = outC
	k.batches = in.Shape[0]
	k.n = g.taps() * outC
	if _, err := ops.ShapeElements([]int{k.n, k.inC}, 4); err != nil {
		return fmt.Errorf("input 1 (filter): %v", err)
	}
	k.fMin, k.fMax = ActivationRangeFloat(o.Activation)
	out.Shape = outShape
	k.ready = true
	if k.batches == 0 || g.inPixels() == 0 || g.outPixels() == 0 || k.inC == 0 {
		return nil
	}
	gemm, _ := arch.GemmPreferred()
	k.matVec = !gemm || deconvForceMatVec
	k.tile = deconvTile(g.inPixels(), k.n, 4)
	k.colID = n.RequestScratch(4 * k.tile * k.n)
	k.zeroF = make([]float32, k.n)
	k.constW = filter.IsConstant()
	if !k.matVec {
		k.packed = make([]float32, arch.PackedGemmF32Len(k.n, k.inC))
		if k.constW {
			arch.PackGemmF32(k.packed, filter.Float32s(), k.n, k.inC)
		}
	}
	return nil
}

// Eval computes the transposed convolution.
func (k *Conv3DTranspose) Eval(n *ops.Node) error {
	filter, in, bias, out := n.Input(1), n.Input(2), n.Input(3), n.Output(0)
	if filter == nil || in == nil || out == nil {
		return errors.New("CONV_3D_TRANSPOSE: filter, input or output missing at Eval")
	}
	if err := checkData(filter, in, bias, out); err != nil {
		return err
	}
	if !k.ready {
		return errors.New("CONV_3D_TRANSPOSE: Eval before a successful Prepare")
	}
	g := &k.g
	inPix, outVol := g.inPixels(), g.outPixels()*g.outC
	o := out.Float32s()[:k.batches*outVol]
	var bv []float32
	if bias != nil {
		bv = bias.Float32s()
	}
	if k.inC == 0 || inPix == 0 {
		clear(o)
		biasClampF32(o, bv, g.outC, k.fMin, k.fMax)
		return nil
	}
	if len(o) == 0 {
		return nil
	}
	col, err := scratchFloat32(n, k.colID, k.tile*k.n)
	if err != nil {
		return err
	}
	if !k.matVec && !k.constW {
		arch.PackGemmF32(k.packed, filter.Float32s(), k.n, k.inC)
	}
	x, w := in.Float32s(), filter.Float32s()
	inf := float32(math.Inf(1))
	for b := 0; b < k.batches; b++ {
		ob := o[b*outVol : (b+1)*outVol]
		clear(ob)
		for p0 := 0; p0 < inPix; p0 += k.tile {
			cnt := min(k.tile, inPix-p0)
			a := x[(b*inPix+p0)*k.inC : (b*inPix+p0+cnt)*k.inC]
			c := col[:cnt*k.n]
			if k.matVec {
				clear(c)
				arch.MatBatchVecMulAcc(c, w, k.n, k.inC, a, cnt)
			} else {
				arch.GemmF32(c, k.n, a, k.inC, k.packed, k.zeroF, cnt, k.n, k.inC, -inf, inf)
			}
			deconvScatter(g, ob, c, k.n, p0, cnt, addF32)
		}
	}
	biasClampF32(o, bv, g.outC, k.fMin, k.fMax)
	return nil
}
