package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// TransposeConv is the kernel of TFLite's TRANSPOSE_CONV operator: the
// transposed (fractionally strided) 2-D convolution over NHWC images, the
// gradient of CONV_2D with respect to its input.
//
// Inputs: 0 output_shape, an int32 vector [batch, outH, outW, outC] that
// must be constant or is read at Invoke (the interpreter prepares the
// node then, see ops.NotConstantError); 1 weights [outC, fH, fW, inC] (OHWI); 2 input
// [batch, inH, inW, inC]; 3 bias [outC], optional. Output 0 has the shape
// output_shape gives; a CONV_2D with the same padding, strides and filter
// from the output must produce the input's height and width, which fixes
// the padding. Every input position scatters its products with the filter
// taps into the output positions o·stride − pad + tap:
//
//	out[b, y, x, c] = bias[c] + Σ in[b, iy, ix, i]·w[c, fy, fx, i]
//	  over iy·strideH − padT + fy = y, ix·strideW − padL + fx = x,
//
// followed by the fused activation (version 4 on; RELU, RELU_N1_TO_1,
// RELU6; NONE still clamps to ±FLT_MAX as TFLite does).
//
// Type paths, as TFLite's builtin kernel (transpose_conv.cc, generic
// optimised variant):
//   - float32 input, weights, bias and output;
//   - hybrid: float32 input, bias and output with int8 weights (one scale
//     or one per output channel): each batch image is quantised
//     asymmetrically (AsymmetricQuantizeFloats) and the int32 products are
//     scaled back by the channel's filter scale times the image's scale;
//   - int8 input and output, int8 weights with per-tensor or per-channel
//     scales (zero points ignored, as TFLite's kernels ignore them), int32
//     bias: the exact int32 sums of (in − in_zp)·w, requantised per channel
//     with TFLite's double-rounding MultiplyByQuantizedMultiplier;
//   - uint8 input, weights and output (any zero points, one scale), int32
//     bias: Σ (in − in_zp)(w − w_zp), one multiplier;
//   - int16x8: int16 input and output (zero points 0), int8 weights, int32
//     or int64 bias. With quantized_bias_type INT32 (version 5) the sums
//     are int32 and requantised as int8's; otherwise (TFLite's reference
//     int16 kernel) they are int64 and requantised with the 64-bit
//     MultiplyByQuantizedMultiplier (a 16-bit reduced multiplier), and
//     the bias, if any, must be int64.
//
// The products run through arch.GemmF32 / arch.GemmInt8 (one row per
// input pixel against the weights transposed to [fH·fW·outC][inC], as
// TFLite's TransposeConvV2) and are scattered into the output by col2im;
// int16 inputs are split into two int8 halves so the int8 GEMM gives the
// exact sums. Integer results are TFLite's bit for bit; float results
// differ only by the order of the additions. Versions 1-5, TFLite's
// register.cc range.
type TransposeConv struct {
	opts    TransposeConvOptions
	path    tconvPath
	g       deconvGeom
	batches int
	inC     int
	n       int  // product row length fH·fW·outC
	tile    int  // input pixels per product tile
	matVec  bool // per-pixel matrix-vector products (arch.GemmPreferred)
	acc64   bool // int16x8 with int64 accumulators

	// The float path's engine (weights laid out and packed in it). The
	// integer paths' weights transposed to [fH·fW·outC][inC] (HWOI; uint8
	// weights re-centred to int8), packed for the GEMM, and the sums of
	// the rows of wT8. constW says they were made at Prepare from
	// constant weights; otherwise Eval remakes them in the same slices.
	df      *DeconvF32
	wT8     []int8
	packed8 []int8
	rowSums []int32
	constW  bool

	zero8 []int32 // a zero seed
	seed  []int32 // per-column start of the int8 products
	fMin  float32
	fMax  float32

	q         convQuant
	cq        *arch.ChannelRequant
	wZero     int32     // uint8: weight zero point − 128
	chanScale []float32 // hybrid: the filter scale of every output channel

	colID, col2ID int // product tiles (float32/int32; int16: the low half)
	col64ID       int // int16x8 with int64 sums: the combined tile
	accID         int // integer paths: one output image of accumulators
	xID, x2ID     int // int8 forms of one input tile (uint8 re-centred; int16 halves)
	xsumID        int // uint8: per-pixel sums of a re-centred tile
	qID           int // hybrid: the quantised input image
}

// tconvPath is the arithmetic a TRANSPOSE_CONV node runs.
type tconvPath uint8

const (
	tconvFloat tconvPath = iota
	tconvHybrid
	tconvInt8
	tconvUint8
	tconvInt16
)

// TransposeConvOptions is TFLite's TransposeConvOptions.
type TransposeConvOptions struct {
	Padding          ops.Padding
	StrideW, StrideH int
	// Activation is the fused activation (version 4 on).
	Activation ops.Activation
	// QuantizedBiasType is the bias type of an int16x8 kernel (version 5:
	// Int32 or Int64; Float32 = 0 means unset).
	QuantizedBiasType ops.DataType
}

// NewTransposeConv returns a TRANSPOSE_CONV kernel for one node.
func NewTransposeConv() ops.Kernel { return &TransposeConv{} }

func init() {
	// TFLite registers 1-5 (2: int8, 3: bias, 4: fused activation, 5:
	// quantized_bias_type); all are implemented.
	register(ops.OpTransposeConv, NewTransposeConv, [2]int{1, 5})
	registerOptions(schema.BuiltinOptionsTransposeConvOptions, decodeTransposeConvOptions)
}

// decodeTransposeConvOptions decodes TFLite's TransposeConvOptions table.
func decodeTransposeConvOptions(t ops.OptionsTable) (any, error) {
	var o schema.TransposeConvOptions
	initTable(&o, t)
	return &TransposeConvOptions{
		Padding:           ops.Padding(o.Padding()),
		StrideW:           int(o.StrideW()),
		StrideH:           int(o.StrideH()),
		Activation:        ops.Activation(o.FusedActivationFunction()),
		QuantizedBiasType: ops.DataType(o.QuantizedBiasType()),
	}, nil
}

// Prepare validates the node, sets the output shape from the constant
// output_shape input, derives the quantisation and packs the weights.
func (k *TransposeConv) Prepare(n *ops.Node) error {
	*k = TransposeConv{}
	// No options table: TFLite's defaults (zero strides), refused below.
	if o, ok := n.Options.(*TransposeConvOptions); ok && o != nil {
		k.opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *TransposeConvOptions", n.Options)
	}
	if err := checkActivation(k.opts.Activation); err != nil {
		return fmt.Errorf("options: %v", err)
	}
	if k.opts.Activation == ops.ActTanh || k.opts.Activation == ops.ActSignBit {
		return fmt.Errorf("options: fused activation %s is not supported by TRANSPOSE_CONV", k.opts.Activation)
	}
	if err := n.CheckIO(3, 4, 1); err != nil {
		return err
	}
	shapeT, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	w, err := n.RequireInput(1)
	if err != nil {
		return fmt.Errorf("%v (weights)", err)
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
	if shapeT.Rank() != 1 {
		return fmt.Errorf("input 0 (output_shape): rank %d, need a vector", shapeT.Rank())
	}
	if shapeT.Type != ops.Int32 {
		return fmt.Errorf("input 0 (output_shape): type %s, need int32", shapeT.Type)
	}
	if shapeT.NumElements() != 4 {
		return fmt.Errorf("input 0 (output_shape): %d elements, need 4", shapeT.NumElements())
	}
	if !shapeT.IsConstant() {
		return ops.NotConstant("input 0 (output_shape)")
	}
	if err := check4D(in, "input 2"); err != nil {
		return err
	}
	if err := check4D(w, "input 1 (weights)"); err != nil {
		return err
	}
	if k.opts.StrideH <= 0 || k.opts.StrideH > math.MaxInt16 || k.opts.StrideW <= 0 || k.opts.StrideW > math.MaxInt16 {
		return fmt.Errorf("options: strides %d×%d, need each in [1, %d]", k.opts.StrideH, k.opts.StrideW, math.MaxInt16)
	}
	for d := 1; d < 4; d++ {
		if in.Shape[d] <= 0 {
			return fmt.Errorf("input 2: shape %v, need positive height, width and channels", in.Shape)
		}
	}
	for d := 0; d < 3; d++ {
		if w.Shape[d] <= 0 {
			return fmt.Errorf("input 1 (weights): shape %v, need positive output channels, height and width", w.Shape)
		}
	}
	if _, err := numElementsChecked(in, "input 2"); err != nil {
		return err
	}
	if _, err := numElementsChecked(w, "input 1 (weights)"); err != nil {
		return err
	}
	switch {
	case in.Type == ops.Float32 && w.Type == ops.Float32:
		k.path = tconvFloat
	case in.Type == ops.Float32 && w.Type == ops.Int8:
		k.path = tconvHybrid
	case in.Type == ops.Int8 && w.Type == ops.Int8:
		k.path = tconvInt8
	case in.Type == ops.Uint8 && w.Type == ops.Uint8:
		k.path = tconvUint8
	case in.Type == ops.Int16 && w.Type == ops.Int8:
		k.path = tconvInt16
	default:
		return fmt.Errorf("input 1 (weights): type %s not supported with input type %s (supported: float32/float32, float32/int8, int8/int8, uint8/uint8, int16/int8)", w.Type, in.Type)
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	outC, fH, fW := w.Shape[0], w.Shape[1], w.Shape[2]
	k.inC = in.Shape[3]
	if w.Shape[3] != k.inC {
		return fmt.Errorf("input 1 (weights): %d input channels, the input has %d", w.Shape[3], k.inC)
	}
	dims := shapeT.Int32s()[:4]
	outShape := []int{int(dims[0]), int(dims[1]), int(dims[2]), int(dims[3])}
	if _, err := ops.ShapeElements(outShape, in.Type.Size()); err != nil {
		return fmt.Errorf("input 0 (output_shape): %v", err)
	}
	if outShape[0] != in.Shape[0] {
		return fmt.Errorf("input 0 (output_shape): batch %d differs from the input's %d", outShape[0], in.Shape[0])
	}
	if outShape[1] <= 0 || outShape[2] <= 0 {
		return fmt.Errorf("input 0 (output_shape): %v, need positive height and width", outShape)
	}
	if outShape[3] != outC {
		return fmt.Errorf("input 0 (output_shape): %d channels, the weights have %d", outShape[3], outC)
	}
	g := &k.g
	g.in = [3]int{1, in.Shape[1], in.Shape[2]}
	g.out = [3]int{1, outShape[1], outShape[2]}
	g.f = [3]int{1, fH, fW}
	g.s = [3]int{1, k.opts.StrideH, k.opts.StrideW}
	g.dil = [3]int{1, 1, 1}
	g.outC = outC
	if g.pad[1], err = newDeconvDim(k.opts.Padding, in.Shape[1], outShape[1], fH, k.opts.StrideH, 1, "height"); err != nil {
		return err
	}
	if g.pad[2], err = newDeconvDim(k.opts.Padding, in.Shape[2], outShape[2], fW, k.opts.StrideW, 1, "width"); err != nil {
		return err
	}
	k.batches = in.Shape[0]
	k.n = fH * fW * outC
	if _, err := ops.ShapeElements([]int{fH, fW, outC, k.inC}, 4); err != nil {
		return fmt.Errorf("input 1 (weights): %v", err)
	}
	if bias != nil && bias.NumElements() != outC {
		return fmt.Errorf("input 3 (bias): %d elements, need %d (output channels)", bias.NumElements(), outC)
	}
	if err := k.prepareQuant(in, w, bias, out); err != nil {
		return err
	}
	out.Shape = outShape

	gemmF32, gemmI8 := arch.GemmPreferred()
	if k.path == tconvFloat {
		k.matVec = !gemmF32 || deconvForceMatVec
	} else {
		k.matVec = !gemmI8 || deconvForceMatVec
	}
	inPix, outPix := k.g.inPixels(), k.g.outPixels()
	if _, err := ops.ShapeElements([]int{outPix, outC, 8}, 1); err != nil {
		return fmt.Errorf("output 0: accumulators %v", err)
	}
	k.tile = deconvTile(inPix, k.n, 4)
	if k.path == tconvInt16 {
		k.tile = deconvTile(inPix, k.n, 8)
	}
	k.colID = n.RequestScratch(4 * k.tile * k.n)
	switch k.path {
	case tconvFloat:
		if k.df, err = NewDeconvF32(DeconvShape{
			InH: in.Shape[1], InW: in.Shape[2], InC: k.inC,
			OutH: outShape[1], OutW: outShape[2], OutC: outC,
			FH: fH, FW: fW, StrideH: k.opts.StrideH, StrideW: k.opts.StrideW,
			PadT: g.pad[1], PadL: g.pad[2],
		}); err != nil {
			return err
		}
	case tconvHybrid:
		k.accID = n.RequestScratch(4 * outPix * outC)
		k.qID = n.RequestScratch(inPix * k.inC)
	case tconvInt8:
		k.accID = n.RequestScratch(4 * outPix * outC)
	case tconvUint8:
		k.accID = n.RequestScratch(4 * outPix * outC)
		k.xID = n.RequestScratch(k.tile * k.inC)
		k.xsumID = n.RequestScratch(4 * k.tile)
	case tconvInt16:
		k.col2ID = n.RequestScratch(4 * k.tile * k.n)
		k.xID = n.RequestScratch(k.tile * k.inC)
		k.x2ID = n.RequestScratch(k.tile * k.inC)
		if k.acc64 {
			k.col64ID = n.RequestScratch(8 * k.tile * k.n)
			k.accID = n.RequestScratch(8 * outPix * outC)
		} else {
			k.accID = n.RequestScratch(4 * outPix * outC)
		}
		k.zero8 = make([]int32, k.n)
	}
	if k.path != tconvFloat {
		k.rowSums = make([]int32, k.n)
		k.seed = make([]int32, k.n)
	}
	k.constW = w.IsConstant()
	if k.path != tconvFloat {
		k.wT8 = make([]int8, k.n*k.inC)
		if !k.matVec {
			k.packed8 = make([]int8, arch.PackedGemmInt8Len(k.n, k.inC))
		}
	}
	if k.constW {
		k.loadWeights(w)
	}
	return nil
}

// prepareQuant checks the bias and derives the requantisation of the
// integer paths and the filter scales of the hybrid one.
func (k *TransposeConv) prepareQuant(in, w, bias, out *ops.Tensor) error {
	outC := k.g.outC
	switch k.path {
	case tconvFloat:
		if bias != nil && bias.Type != ops.Float32 {
			return fmt.Errorf("input 3 (bias): type %s, need float32", bias.Type)
		}
		k.fMin, k.fMax = ActivationRangeFloat(k.opts.Activation)
		return nil
	case tconvHybrid:
		if bias != nil && bias.Type != ops.Float32 {
			return fmt.Errorf("input 3 (bias): type %s, need float32", bias.Type)
		}
		k.fMin, k.fMax = ActivationRangeFloat(k.opts.Activation)
		fq := w.Quant
		if fq == nil || len(fq.Scale) == 0 {
			return errors.New("input 1 (weights): int8 weights have no quantization parameters")
		}
		if len(fq.Scale) != 1 && (len(fq.Scale) != outC || fq.QuantizedDimension != 0) {
			return fmt.Errorf("input 1 (weights): %d scales along dimension %d, need 1 or one per output channel (%d) along dimension 0", len(fq.Scale), fq.QuantizedDimension, outC)
		}
		k.chanScale = make([]float32, outC)
		for c := range k.chanScale {
			s := fq.Scale[0]
			if len(fq.Scale) > 1 {
				s = fq.Scale[c]
			}
			if !(s > 0) || math.IsInf(float64(s), 0) {
				return fmt.Errorf("input 1 (weights): scale %g must be finite and > 0", s)
			}
			k.chanScale[c] = s
		}
		return nil
	}
	qBias := bias
	if k.path == tconvInt16 {
		if in.ZeroPoint() != 0 || out.ZeroPoint() != 0 {
			return fmt.Errorf("input 2/output 0: int16 zero points %d and %d, need 0", in.ZeroPoint(), out.ZeroPoint())
		}
		switch qb := k.opts.QuantizedBiasType; qb {
		case ops.Int32:
		case ops.Float32, ops.Int64:
			// Unset (or INT64): TFLite's reference int16 kernel with int64
			// sums, which reads the bias as int64.
			k.acc64 = true
			qb = ops.Int64
			if bias != nil && bias.Type != ops.Int64 {
				return fmt.Errorf("input 3 (bias): type %s; an int16x8 TRANSPOSE_CONV without quantized_bias_type INT32 reads an int64 bias", bias.Type)
			}
		default:
			return fmt.Errorf("options: quantized_bias_type %s, need INT32 or INT64", qb)
		}
		if bias != nil {
			if bias.Type != ops.Int32 && bias.Type != ops.Int64 || !k.acc64 && bias.Type != ops.Int32 {
				return fmt.Errorf("input 3 (bias): type %s, need %s", bias.Type, map[bool]string{true: "int64", false: "int32"}[k.acc64])
			}
			if bias.ZeroPoint() != 0 {
				return fmt.Errorf("input 3 (bias): zero point %d, need 0", bias.ZeroPoint())
			}
		}
		qBias = nil // checked here; convQuant checks int32 biases only
	}
	if bias != nil && k.path == tconvUint8 && bias.Type != ops.Int32 {
		return fmt.Errorf("input 3 (bias): type %s, need int32", bias.Type)
	}
	if bias != nil && k.path == tconvInt8 {
		if bias.Type != ops.Int32 {
			return fmt.Errorf("input 3 (bias): type %s, need int32", bias.Type)
		}
		if bias.ZeroPoint() != 0 {
			return fmt.Errorf("input 3 (bias): zero point %d, need 0", bias.ZeroPoint())
		}
	}
	if k.path == tconvInt16 && k.inC > 1<<16 {
		// The two int8 halves' sums must not wrap before they are combined
		// into the 64-bit sums.
		return fmt.Errorf("input 2: %d channels, the int16x8 kernel supports at most %d", k.inC, 1<<16)
	}
	if err := k.q.prepare(in, w, qBias, out, k.opts.Activation, outC, 0, false); err != nil {
		return err
	}
	if k.acc64 {
		for c, s := range k.q.shift {
			if s > 7 {
				// TFLite's 64-bit MultiplyByQuantizedMultiplier assumes
				// shifts below 8.
				return fmt.Errorf("output 0: channel %d rescale factor 2^%d is too large for the int16x8 kernel", c, s)
			}
		}
	}
	if k.path == tconvUint8 {
		_, wzp, err := perTensorQuant(w, "input 1 (weights)")
		if err != nil {
			return err
		}
		k.wZero = wzp - 128
	}
	if k.path == tconvInt8 || k.path == tconvUint8 {
		var err error
		if k.cq, err = arch.NewChannelRequant(k.q.mult, k.q.shift); err != nil {
			return fmt.Errorf("output 0: %v", err)
		}
	}
	return nil
}

// loadWeights transposes the OHWI weights to HWOI rows, packs them for
// the GEMM and, on the integer paths, sums the rows and seeds the
// products' zero-point terms that do not depend on the image.
func (k *TransposeConv) loadWeights(w *ops.Tensor) {
	outC, fH, fW, inC := k.g.outC, k.g.f[1], k.g.f[2], k.inC
	taps := fH * fW
	if k.path == tconvFloat {
		k.df.LoadWeights(w.Float32s())
		return
	}
	src := ops.View[int8](w.Data) // int8, or uint8 weights read as int8 bytes
	for oc := 0; oc < outC; oc++ {
		for t := 0; t < taps; t++ {
			dst := k.wT8[(t*outC+oc)*inC : (t*outC+oc+1)*inC]
			copy(dst, src[(oc*taps+t)*inC:(oc*taps+t+1)*inC])
			if k.path == tconvUint8 {
				flipSigns(dst)
			}
		}
	}
	if !k.matVec {
		arch.PackGemmInt8(k.packed8, k.wT8, k.n, inC)
	}
	arch.RowSumsInt8(k.rowSums, k.wT8, k.n, inC)
	switch k.path {
	case tconvInt8:
		// Σ (x − zp)·w = Σ x·w − zp·Σ w.
		zp := -k.q.inOffset
		for j, s := range k.rowSums {
			k.seed[j] = -zp * s
		}
	case tconvUint8:
		// In the re-centred domain x' = x − 128, w' = w − 128:
		// Σ (x' − a)(w' − b) = Σ x'w' − a·Σw' + K·a·b − b·Σx'; all but the
		// last term are per column.
		a, b := -k.q.inOffset-128, k.wZero
		for j, s := range k.rowSums {
			k.seed[j] = int32(inC)*a*b - a*s
		}
	case tconvInt16:
		// x = 256·hi + lo + 128 with hi, lo int8 (see splitInt16): the low
		// half's product carries the 128·Σw term.
		for j, s := range k.rowSums {
			k.seed[j] = 128 * s
		}
	}
}

// Eval computes the transposed convolution.
func (k *TransposeConv) Eval(n *ops.Node) error {
	w, in, bias, out := n.Input(1), n.Input(2), n.Input(3), n.Output(0)
	if w == nil || in == nil || out == nil {
		return errors.New("TRANSPOSE_CONV: weights, input or output missing at Eval")
	}
	if err := checkData(w, in, bias, out); err != nil {
		return err
	}
	if k.n == 0 || k.df == nil && k.wT8 == nil {
		return errors.New("TRANSPOSE_CONV: Eval before a successful Prepare")
	}
	if !k.constW {
		k.loadWeights(w)
	}
	switch k.path {
	case tconvFloat:
		return k.evalFloat(n, in, bias, out)
	case tconvHybrid:
		return k.evalHybrid(n, in, bias, out)
	case tconvInt16:
		return k.evalInt16(n, in, bias, out)
	}
	return k.evalInt8(n, in, bias, out)
}

func (k *TransposeConv) evalFloat(n *ops.Node, in, bias, out *ops.Tensor) error {
	col, err := scratchFloat32(n, k.colID, k.tile*k.n)
	if err != nil {
		return err
	}
	inImg, outImg := k.df.InLen(), k.df.OutLen()
	x, o := in.Float32s(), out.Float32s()
	for b := 0; b < k.batches; b++ {
		k.df.Image(o[b*outImg:(b+1)*outImg], x[b*inImg:(b+1)*inImg], col, nil)
	}
	var bv []float32
	if bias != nil {
		bv = bias.Float32s()
	}
	biasClampF32(o[:k.batches*outImg], bv, k.g.outC, k.fMin, k.fMax)
	return nil
}

// productsInt8 computes the int32 product rows of cnt input pixels a
// (int8 rows of inC values) with the weights, each column starting at
// seed: col[p·n + j] = seed[j] + Σ_i a[p·inC+i]·wT8[j·inC+i].
func (k *TransposeConv) productsInt8(col []int32, a []int8, cnt int, seed []int32) {
	if k.matVec {
		for p := 0; p < cnt; p++ {
			row := col[p*k.n : (p+1)*k.n]
			copy(row, seed)
			arch.MatVecMulAccInt8(row, k.wT8, k.n, k.inC, a[p*k.inC:(p+1)*k.inC])
		}
		return
	}
	arch.GemmInt8(col, k.n, a, k.inC, k.packed8, seed, cnt, k.n, k.inC)
}

// fillRows sets every row of len(row) values of acc to row (bias), or
// acc to zeros when row is nil.
func fillRows[T int32 | int64](acc, row []T) {
	if row == nil {
		clear(acc)
		return
	}
	c := len(row)
	copy(acc[:c], row)
	for filled := c; filled < len(acc); filled *= 2 {
		copy(acc[filled:], acc[:filled])
	}
}

// evalInt8 is the int8 and uint8 path.
func (k *TransposeConv) evalInt8(n *ops.Node, in, bias, out *ops.Tensor) error {
	outC := k.g.outC
	inPix, outImg := k.g.inPixels(), k.g.outPixels()*outC
	col, err := scratchInt32(n, k.colID, k.tile*k.n)
	if err != nil {
		return err
	}
	acc, err := scratchInt32(n, k.accID, outImg)
	if err != nil {
		return err
	}
	var xt []int8
	var xsum []int32
	if k.path == tconvUint8 {
		if xt, err = scratchInt8(n, k.xID, k.tile*k.inC); err != nil {
			return err
		}
		if xsum, err = scratchInt32(n, k.xsumID, k.tile); err != nil {
			return err
		}
	}
	var bv []int32
	if bias != nil {
		bv = bias.Int32s()[:outC]
	}
	x := ops.View[int8](in.Data)
	q := &k.q
	for b := 0; b < k.batches; b++ {
		fillRows(acc, bv)
		for p0 := 0; p0 < inPix; p0 += k.tile {
			cnt := min(k.tile, inPix-p0)
			a := x[(b*inPix+p0)*k.inC : (b*inPix+p0+cnt)*k.inC]
			c := col[:cnt*k.n]
			if k.path == tconvUint8 {
				copy(xt, a)
				a = xt[:len(a)]
				flipSigns(a)
			}
			k.productsInt8(c, a, cnt, k.seed)
			if k.path == tconvUint8 && k.wZero != 0 {
				// The per-pixel term −b·Σx' of the re-centred product.
				arch.RowSumsInt8(xsum[:cnt], a, cnt, k.inC)
				for p, s := range xsum[:cnt] {
					corr := k.wZero * s
					row := c[p*k.n : (p+1)*k.n]
					for j := range row {
						row[j] -= corr
					}
				}
			}
			deconvScatter(&k.g, acc, c, k.n, p0, cnt, addInt32)
		}
		if k.path == tconvInt8 {
			arch.RequantizeChannelsInt8(out.Int8s()[b*outImg:(b+1)*outImg], acc, k.cq, q.outOffset, q.actMin, q.actMax)
		} else {
			arch.RequantizeChannelsUint8(out.Data[b*outImg:(b+1)*outImg], acc, k.cq, q.outOffset, q.actMin, q.actMax)
		}
	}
	return nil
}

// splitInt16 writes x = 256·hi + lo + 128 with hi = x >> 8 and lo = (x &
// 255) − 128, both int8, so that Σ x·w = 256·Σ hi·w + Σ lo·w + 128·Σ w
// comes exactly out of two int8 products.
func splitInt16(hi, lo []int8, x []int16) {
	hi, lo = hi[:len(x)], lo[:len(x)]
	for i, v := range x {
		hi[i] = int8(v >> 8)
		lo[i] = int8(uint8(v) ^ 0x80)
	}
}

// evalInt16 is the int16x8 path.
func (k *TransposeConv) evalInt16(n *ops.Node, in, bias, out *ops.Tensor) error {
	outC := k.g.outC
	inPix, outImg := k.g.inPixels(), k.g.outPixels()*outC
	colHi, err := scratchInt32(n, k.colID, k.tile*k.n)
	if err != nil {
		return err
	}
	colLo, err := scratchInt32(n, k.col2ID, k.tile*k.n)
	if err != nil {
		return err
	}
	hi, err := scratchInt8(n, k.xID, k.tile*k.inC)
	if err != nil {
		return err
	}
	lo, err := scratchInt8(n, k.x2ID, k.tile*k.inC)
	if err != nil {
		return err
	}
	var acc32 []int32
	var acc64, col64 []int64
	if k.acc64 {
		b, err := scratchBytes(n, k.accID, 8*outImg)
		if err != nil {
			return err
		}
		acc64 = ops.View[int64](b)[:outImg]
		if b, err = scratchBytes(n, k.col64ID, 8*k.tile*k.n); err != nil {
			return err
		}
		col64 = ops.View[int64](b)[:k.tile*k.n]
	} else if acc32, err = scratchInt32(n, k.accID, outImg); err != nil {
		return err
	}
	x, o := in.Int16s(), out.Int16s()
	q := &k.q
	for b := 0; b < k.batches; b++ {
		switch {
		case bias == nil && k.acc64:
			clear(acc64)
		case bias == nil:
			clear(acc32)
		case k.acc64:
			fillRows(acc64, bias.Int64s()[:outC])
		default:
			fillRows(acc32, bias.Int32s()[:outC])
		}
		for p0 := 0; p0 < inPix; p0 += k.tile {
			cnt := min(k.tile, inPix-p0)
			m := cnt * k.inC
			splitInt16(hi[:m], lo[:m], x[(b*inPix+p0)*k.inC:(b*inPix+p0+cnt)*k.inC])
			ch, cl := colHi[:cnt*k.n], colLo[:cnt*k.n]
			k.productsInt8(ch, hi[:m], cnt, k.zero8)
			k.productsInt8(cl, lo[:m], cnt, k.seed)
			if k.acc64 {
				c := col64[:cnt*k.n]
				for i := range c {
					c[i] = int64(ch[i])<<8 + int64(cl[i])
				}
				deconvScatter(&k.g, acc64, c, k.n, p0, cnt, addInt64)
				continue
			}
			for i := range ch {
				ch[i] = ch[i]<<8 + cl[i] // wrapping, as TFLite's int32 sums
			}
			deconvScatter(&k.g, acc32, ch, k.n, p0, cnt, addInt32)
		}
		ob := o[b*outImg : (b+1)*outImg]
		if !k.acc64 {
			for p := 0; p < outImg; p += outC {
				requantRow(ob[p:p+outC], acc32[p:p+outC], q.chans, 0, q.actMin, q.actMax)
			}
			continue
		}
		for p := 0; p < outImg; p += outC {
			for c := 0; c < outC; c++ {
				v := ops.MultiplyByQuantizedMultiplier64(acc64[p+c], q.mult[c], q.shift[c])
				ob[p+c] = int16(min(max(v, q.actMin), q.actMax))
			}
		}
	}
	return nil
}

// evalHybrid is the float-input, int8-weight path.
func (k *TransposeConv) evalHybrid(n *ops.Node, in, bias, out *ops.Tensor) error {
	outC := k.g.outC
	inPix, outImg := k.g.inPixels(), k.g.outPixels()*outC
	col, err := scratchInt32(n, k.colID, k.tile*k.n)
	if err != nil {
		return err
	}
	acc, err := scratchInt32(n, k.accID, outImg)
	if err != nil {
		return err
	}
	qImg, err := scratchInt8(n, k.qID, inPix*k.inC)
	if err != nil {
		return err
	}
	var bv []float32
	if bias != nil {
		bv = bias.Float32s()[:outC]
	}
	x, o := in.Float32s(), out.Float32s()
	for b := 0; b < k.batches; b++ {
		sf, zp := ops.AsymmetricQuantizeFloats(x[b*inPix*k.inC:(b+1)*inPix*k.inC], qImg)
		for j, s := range k.rowSums {
			k.seed[j] = -zp * s
		}
		clear(acc)
		for p0 := 0; p0 < inPix; p0 += k.tile {
			cnt := min(k.tile, inPix-p0)
			c := col[:cnt*k.n]
			k.productsInt8(c, qImg[p0*k.inC:(p0+cnt)*k.inC], cnt, k.seed)
			deconvScatter(&k.g, acc, c, k.n, p0, cnt, addInt32)
		}
		// TFLite scales every product by the channel's filter scale and
		// the image's scale before summing; the sums are exact here, so
		// they are scaled once.
		ob := o[b*outImg : (b+1)*outImg]
		for p := 0; p < outImg; p += outC {
			for c := 0; c < outC; c++ {
				v := float32(acc[p+c]) * k.chanScale[c] * sf
				if bv != nil {
					v += bv[c]
				}
				ob[p+c] = clampF32(v, k.fMin, k.fMax)
			}
		}
	}
	return nil
}
