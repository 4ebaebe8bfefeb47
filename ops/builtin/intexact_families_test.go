package builtin_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// The sweep's model families (see intexact_sweep_test.go). Every
// generator draws shapes, options, scales and zero points so that
// TensorFlow Lite accepts the model and the outputs spread over the
// output type's range (an output scale sized to the accumulators'
// spread, times a random factor), and notes them in the case's desc.

func swFamilies() []swFamily {
	var f []swFamily
	add := func(name string, gen func(r *rand.Rand) swCase) { f = append(f, swFamily{name, gen}) }
	add("conv2d_int8_pc", func(r *rand.Rand) swCase { return genConv(r, qInt8, true, 0, false) })
	add("conv2d_int8_pt", func(r *rand.Rand) swCase { return genConv(r, qInt8, false, 0, false) })
	add("conv2d_int8_grouped", func(r *rand.Rand) swCase { return genConv(r, qInt8, true, 1+r.IntN(3), false) })
	add("conv2d_uint8", func(r *rand.Rand) swCase { return genConv(r, qUint8, false, 0, false) })
	add("conv2d_int16x8_b64", func(r *rand.Rand) swCase { return genConv(r, qInt16, true, 0, false) })
	add("conv2d_int16x8_b32", func(r *rand.Rand) swCase { return genConv(r, qInt16, true, -1, false) })
	add("dwconv_int8", func(r *rand.Rand) swCase { return genDepthwise(r, qInt8, true, false, false) })
	add("dwconv_int8_pt", func(r *rand.Rand) swCase { return genDepthwise(r, qInt8, false, false, false) })
	add("dwconv_uint8", func(r *rand.Rand) swCase { return genDepthwise(r, qUint8, false, false, false) })
	add("dwconv_int16x8", func(r *rand.Rand) swCase { return genDepthwise(r, qInt16, true, false, false) })
	add("dwconv_int16x8_b32", func(r *rand.Rand) swCase { return genDepthwise(r, qInt16, true, true, false) })
	add("fc_int8_pt", func(r *rand.Rand) swCase { return genFC(r, qInt8, qInt8, false, false, false) })
	add("fc_int8_pc", func(r *rand.Rand) swCase { return genFC(r, qInt8, qInt8, true, false, false) })
	add("fc_uint8", func(r *rand.Rand) swCase { return genFC(r, qUint8, qUint8, false, false, false) })
	add("fc_uint8_int16", func(r *rand.Rand) swCase { return genFC(r, qUint8, qInt16, false, false, false) })
	add("fc_int16x8_b64", func(r *rand.Rand) swCase { return genFC(r, qInt16, qInt16, r.IntN(2) == 0, true, false) })
	add("fc_int16x8_b32", func(r *rand.Rand) swCase { return genFC(r, qInt16, qInt16, r.IntN(2) == 0, false, false) })
	// Tie-rich variants: power-of-two scales and small weights, so that
	// the requantiser's final rounding shift often meets an exact half,
	// and output scales small enough to saturate often.
	add("conv2d_int8_pc_tie", func(r *rand.Rand) swCase { return genConv(r, qInt8, true, 0, true) })
	add("conv2d_int8_pt_tie", func(r *rand.Rand) swCase { return genConv(r, qInt8, false, 0, true) })
	add("conv2d_int8_grouped_tie", func(r *rand.Rand) swCase { return genConv(r, qInt8, true, 1+r.IntN(3), true) })
	add("conv2d_uint8_tie", func(r *rand.Rand) swCase { return genConv(r, qUint8, false, 0, true) })
	add("dwconv_int8_tie", func(r *rand.Rand) swCase { return genDepthwise(r, qInt8, true, false, true) })
	add("dwconv_int8_pt_tie", func(r *rand.Rand) swCase { return genDepthwise(r, qInt8, false, false, true) })
	add("dwconv_uint8_tie", func(r *rand.Rand) swCase { return genDepthwise(r, qUint8, false, false, true) })
	add("fc_int8_pt_tie", func(r *rand.Rand) swCase { return genFC(r, qInt8, qInt8, false, false, true) })
	add("fc_int8_pc_tie", func(r *rand.Rand) swCase { return genFC(r, qInt8, qInt8, true, false, true) })
	add("fc_uint8_tie", func(r *rand.Rand) swCase { return genFC(r, qUint8, qUint8, false, false, true) })
	add("fc_int16x8_b64_tie", func(r *rand.Rand) swCase { return genFC(r, qInt16, qInt16, r.IntN(2) == 0, true, true) })
	add("fc_int16x8_b32_tie", func(r *rand.Rand) swCase { return genFC(r, qInt16, qInt16, r.IntN(2) == 0, false, true) })
	for _, op := range []schema.BuiltinOperator{schema.BuiltinOperatorADD, schema.BuiltinOperatorSUB, schema.BuiltinOperatorMUL} {
		for _, t := range []qtype{qInt8, qUint8, qInt16} {
			add(fmt.Sprintf("%s_%s", opName(op), typeName(t)), func(r *rand.Rand) swCase { return genBinary(r, op, t) })
		}
	}
	for _, op := range []schema.BuiltinOperator{schema.BuiltinOperatorMAXIMUM, schema.BuiltinOperatorMINIMUM} {
		for _, t := range []qtype{qInt8, qUint8, qInt16} {
			add(fmt.Sprintf("%s_%s", opName(op), typeName(t)), func(r *rand.Rand) swCase { return genMinMax(r, op, t) })
		}
	}
	for _, op := range []schema.BuiltinOperator{schema.BuiltinOperatorEQUAL, schema.BuiltinOperatorNOT_EQUAL,
		schema.BuiltinOperatorLESS, schema.BuiltinOperatorLESS_EQUAL, schema.BuiltinOperatorGREATER, schema.BuiltinOperatorGREATER_EQUAL} {
		for _, t := range []qtype{qInt8, qUint8} {
			add(fmt.Sprintf("%s_%s", opName(op), typeName(t)), func(r *rand.Rand) swCase { return genCompare(r, op, t) })
		}
	}
	for _, op := range []schema.BuiltinOperator{schema.BuiltinOperatorAVERAGE_POOL_2D, schema.BuiltinOperatorMAX_POOL_2D} {
		for _, t := range []qtype{qInt8, qUint8, qInt16} {
			add(fmt.Sprintf("%s_%s", opName(op), typeName(t)), func(r *rand.Rand) swCase { return genPool(r, op, t) })
		}
	}
	for _, op := range []schema.BuiltinOperator{schema.BuiltinOperatorMEAN, schema.BuiltinOperatorSUM,
		schema.BuiltinOperatorREDUCE_MAX, schema.BuiltinOperatorREDUCE_MIN, schema.BuiltinOperatorREDUCE_PROD} {
		for _, t := range []qtype{qInt8, qUint8, qInt16} {
			add(fmt.Sprintf("%s_%s", opName(op), typeName(t)), func(r *rand.Rand) swCase { return genReduce(r, op, t) })
		}
	}
	for _, t := range []qtype{qInt8, qUint8, qInt16} {
		add("softmax_"+typeName(t), func(r *rand.Rand) swCase { return genSoftmax(r, t, false) })
		add("log_softmax_"+typeName(t), func(r *rand.Rand) swCase { return genSoftmax(r, t, true) })
		add("logistic_"+typeName(t), func(r *rand.Rand) swCase { return genSigmoidTanh(r, schema.BuiltinOperatorLOGISTIC, t, false) })
		add("tanh_"+typeName(t), func(r *rand.Rand) swCase { return genSigmoidTanh(r, schema.BuiltinOperatorTANH, t, false) })
		add("hard_swish_"+typeName(t), func(r *rand.Rand) swCase { return genUnary(r, schema.BuiltinOperatorHARD_SWISH, t) })
		add("leaky_relu_"+typeName(t), func(r *rand.Rand) swCase { return genUnary(r, schema.BuiltinOperatorLEAKY_RELU, t) })
		add("relu_"+typeName(t), func(r *rand.Rand) swCase { return genUnary(r, schema.BuiltinOperatorRELU, t) })
		add("relu6_"+typeName(t), func(r *rand.Rand) swCase { return genUnary(r, schema.BuiltinOperatorRELU6, t) })
		add("relu_n1_to_1_"+typeName(t), func(r *rand.Rand) swCase { return genUnary(r, schema.BuiltinOperatorRELU_N1_TO_1, t) })
		add("elu_"+typeName(t), func(r *rand.Rand) swCase { return genUnary(r, schema.BuiltinOperatorELU, t) })
		add("abs_"+typeName(t), func(r *rand.Rand) swCase { return genUnary(r, schema.BuiltinOperatorABS, t) })
		add("prelu_"+typeName(t), func(r *rand.Rand) swCase { return genPRelu(r, t) })
		add("concat_"+typeName(t), func(r *rand.Rand) swCase { return genConcat(r, t) })
		add("resize_bilinear_"+typeName(t), func(r *rand.Rand) swCase { return genResize(r, schema.BuiltinOperatorRESIZE_BILINEAR, t) })
		add("resize_nn_"+typeName(t), func(r *rand.Rand) swCase { return genResize(r, schema.BuiltinOperatorRESIZE_NEAREST_NEIGHBOR, t) })
		add("dequantize_"+typeName(t), func(r *rand.Rand) swCase { return genDequantize(r, t) })
		add("quantize_f32_"+typeName(t), func(r *rand.Rand) swCase { return genQuantizeFloat(r, t) })
		for _, u := range []qtype{qInt8, qUint8, qInt16} {
			add(fmt.Sprintf("requantize_%s_%s", typeName(t), typeName(u)), func(r *rand.Rand) swCase { return genRequantize(r, t, u) })
		}
	}
	// int16 LOGISTIC/TANH at the power-of-two input scales of TFLite's
	// fixed-point path (the int16 families above draw other scales too,
	// which take TFLite's interpolated sigmoid-table path).
	add("logistic_int16_pot", func(r *rand.Rand) swCase { return genSigmoidTanh(r, schema.BuiltinOperatorLOGISTIC, qInt16, true) })
	add("tanh_int16_pot", func(r *rand.Rand) swCase { return genSigmoidTanh(r, schema.BuiltinOperatorTANH, qInt16, true) })
	add("lstm_int8", func(r *rand.Rand) swCase { return genLSTM(r, 0) })
	add("lstm_int8_cellscale", func(r *rand.Rand) swCase {
		return genLSTM(r, pick(r, -18, -17, -16, -15, -14, -12, -11, -10, -9, -8, -6))
	})
	add("svdf_int8", genSVDF)
	f = append(f, moreSwFamilies()...)
	f = append(f, vecSwFamilies()...)
	// Type combinations TFLite's kernels refuse (their Prepare or Eval says
	// so): no family.
	refused := map[string]bool{"abs_uint8": true, "elu_uint8": true, "elu_int16": true, "hard_swish_int16": true,
		"relu_n1_to_1_int16": true, "dwconv_int16x8_b32": true, "reduce_prod_uint8": true, "requantize_int16_uint8": true}
	kept := f[:0]
	for _, fam := range f {
		if !refused[fam.name] {
			kept = append(kept, fam)
		}
	}
	return kept
}

func opName(op schema.BuiltinOperator) string {
	return map[schema.BuiltinOperator]string{
		schema.BuiltinOperatorADD: "add", schema.BuiltinOperatorSUB: "sub", schema.BuiltinOperatorMUL: "mul",
		schema.BuiltinOperatorMAXIMUM: "maximum", schema.BuiltinOperatorMINIMUM: "minimum",
		schema.BuiltinOperatorEQUAL: "equal", schema.BuiltinOperatorNOT_EQUAL: "not_equal",
		schema.BuiltinOperatorLESS: "less", schema.BuiltinOperatorLESS_EQUAL: "less_equal",
		schema.BuiltinOperatorGREATER: "greater", schema.BuiltinOperatorGREATER_EQUAL: "greater_equal",
		schema.BuiltinOperatorAVERAGE_POOL_2D: "avgpool", schema.BuiltinOperatorMAX_POOL_2D: "maxpool",
		schema.BuiltinOperatorMEAN: "mean", schema.BuiltinOperatorSUM: "sum",
		schema.BuiltinOperatorREDUCE_MAX: "reduce_max", schema.BuiltinOperatorREDUCE_MIN: "reduce_min",
		schema.BuiltinOperatorREDUCE_PROD: "reduce_prod",
	}[op]
}

func typeName(t qtype) string {
	switch t.s {
	case schema.TensorTypeINT8:
		return "int8"
	case schema.TensorTypeUINT8:
		return "uint8"
	}
	return "int16"
}

// verFor is the operator version TFLite's converter writes for the type:
// 1 for uint8, v8 for int8, v16 for int16.
func verFor(t qtype, v8, v16 int32) int32 {
	switch t.s {
	case schema.TensorTypeINT8:
		return v8
	case schema.TensorTypeINT16:
		return v16
	}
	return 1
}

// convOut is the output size of a window (TFLite's ComputeOutSize).
func convOut(pad schema.Padding, in, f, stride, dil int) int {
	eff := (f-1)*dil + 1
	if pad == schema.PaddingSAME {
		return (in + stride - 1) / stride
	}
	return (in - eff + stride) / stride
}

// windowDims draws an input size, filter, stride and dilation for one
// axis with a valid output.
func windowDims(r *rand.Rand, pad schema.Padding, maxIn, maxF int, dilated bool) (in, f, stride, dil int) {
	f, stride, dil = 1+r.IntN(maxF), 1+r.IntN(3), 1
	if dilated {
		dil = 1 + r.IntN(3)
	}
	eff := (f-1)*dil + 1
	lo := 1
	if pad == schema.PaddingVALID {
		lo = eff
	}
	in = lo + r.IntN(max(1, maxIn-lo+1))
	return
}

// accStd estimates the standard deviation of a sum of k products of a
// full-range input and weight (in steps).
func accStd(k int, inSteps, wSteps float64) float64 {
	return math.Sqrt(float64(k)) * inSteps / math.Sqrt(3) * wSteps / math.Sqrt(3)
}

// outScaleFor is an output scale that spreads a real value of standard
// deviation std over the output type (about ±2 std over the range), times
// a random factor in [1/3, 3].
func outScaleFor(r *rand.Rand, std float64, t qtype) float64 {
	return std * 2 / t.steps() * logUniform(r, 1.0/3, 3)
}

// weights draws n int8 weights in [-127, 127] (symmetric) or uint8 ones.
func weightBytes(r *rand.Rand, n int, unsigned bool) []byte {
	b := make([]byte, n)
	for i := range b {
		if unsigned {
			b[i] = byte(r.IntN(256))
		} else {
			b[i] = byte(int8(r.IntN(255) - 127))
		}
	}
	return b
}

// tieScale rounds a scale to a power of two when tie is set, so that
// the products and quotients of such scales are exact powers of two and
// the requantising multiplier is exactly 2^-k: every accumulator whose
// low k bits are 100…0 is then an exact tie of the final rounding.
func tieScale(x float64, tie bool) float64 {
	if !tie {
		return x
	}
	return math.Ldexp(1, int(math.Round(math.Log2(x))))
}

// tieOutScale is outScaleFor, then in tie mode a power of two, a quarter
// of the time eight times finer so that many outputs saturate.
func tieOutScale(r *rand.Rand, std float64, t qtype, tie bool) float64 {
	s := outScaleFor(r, std, t)
	if tie && r.IntN(4) == 0 {
		s /= 8
	}
	return tieScale(s, tie)
}

// weightLimit is the weight magnitude drawn: 127 (the whole int8 range),
// or 1-7 in tie mode so that small sums make ties frequent.
func weightLimit(r *rand.Rand, tie bool) int {
	if tie {
		return 1 + r.IntN(7)
	}
	return 127
}

// weightBytesLim draws n weights in [-lim, lim] (int8) or within lim of
// the zero point zp (uint8, clamped to 0..255).
func weightBytesLim(r *rand.Rand, n int, unsigned bool, lim int, zp int64) []byte {
	if lim >= 127 {
		return weightBytes(r, n, unsigned)
	}
	b := make([]byte, n)
	for i := range b {
		v := r.IntN(2*lim+1) - lim
		if unsigned {
			b[i] = byte(min(255, max(0, int(zp)+v)))
		} else {
			b[i] = byte(int8(v))
		}
	}
	return b
}

// biasBytes draws n int32 (or int64) biases of standard deviation std.
func biasBytes(r *rand.Rand, n int, std float64, wide bool) []byte {
	if wide {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(r.NormFloat64() * std)
		}
		return optest.I64(v...)
	}
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(r.NormFloat64() * std)
	}
	return optest.I32(v...)
}

// genConv: CONV_2D. groups > 0 makes a grouped convolution of that many
// groups; groups < 0 selects an int32 bias for int16x8 (the GEMM path),
// else int16x8 uses int64 biases.
func genConv(r *rand.Rand, t qtype, perChannel bool, groups int, tie bool) swCase {
	pad := pick(r, schema.PaddingSAME, schema.PaddingVALID)
	dilated := r.IntN(4) == 0
	ih, fh, sh, dh := windowDims(r, pad, 14, 5, dilated)
	iw, fw, sw, dw := windowDims(r, pad, 14, 5, dilated)
	batch := 1 + r.IntN(2)
	g := max(groups, 1)
	filterInC := 1 + r.IntN(12)
	inC := filterInC * g
	outC := g * (1 + r.IntN(max(1, 24/g)))
	act := pick(r, swActs...)
	inS := tieScale(logUniform(r, 0.002, 0.2), tie)
	inZP := t.zp(r)
	k := fh * fw * filterInC
	wS := make([]float32, outC)
	wZP := make([]int64, outC)
	for c := range wS {
		wS[c] = float32(tieScale(logUniform(r, 0.0005, 0.05), tie))
	}
	if !perChannel {
		for c := range wS {
			wS[c] = wS[0]
		}
	}
	unsigned := t.s == schema.TensorTypeUINT8
	var wq *optest.Quant
	wz := int64(0)
	if unsigned {
		wz = int64(r.IntN(256))
		wq = pt(float64(wS[0]), wz)
	} else if perChannel {
		wq = &optest.Quant{Scale: wS, ZeroPoint: wZP}
	} else {
		wq = pt(float64(wS[0]), 0)
	}
	inSteps := t.steps()
	lim := weightLimit(r, tie)
	std := accStd(k, inSteps, float64(lim))
	outS := tieOutScale(r, std*inS*float64(wS[0]), t, tie)
	outZP := t.zp(r)
	wide := t.s == schema.TensorTypeINT16 && groups >= 0
	s := newSwBuild()
	s.in(t.s, []int{batch, ih, iw, inC}, pt(inS, inZP))
	filter := weightBytesLim(r, outC*fh*fw*filterInC, unsigned, lim, wz)
	wt := schema.TensorTypeINT8
	if unsigned {
		wt = schema.TensorTypeUINT8
	}
	s.cst(wt, []int{outC, fh, fw, filterInC}, wq, filter)
	bq := &optest.Quant{Scale: make([]float32, outC), ZeroPoint: make([]int64, outC)}
	for c := range bq.Scale {
		bq.Scale[c] = float32(inS) * wS[c]
	}
	if !perChannel {
		// One scale: TFLite reads a per-tensor bias scale only from a
		// one-element list (and checks it against input × filter).
		bq = pt(float64(float32(inS)*wS[0]), 0)
	}
	bt := schema.TensorTypeINT32
	if wide {
		bt = schema.TensorTypeINT64
	}
	s.cst(bt, []int{outC}, bq, biasBytes(r, outC, std, wide))
	oh, ow := convOut(pad, ih, fh, sh, dh), convOut(pad, iw, fw, sw, dw)
	s.out(t.s, []int{batch, oh, ow, outC}, pt(outS, outZP))
	opts := &schema.Conv2DOptionsT{Padding: pad, StrideW: int32(sw), StrideH: int32(sh),
		DilationWFactor: int32(dw), DilationHFactor: int32(dh), FusedActivationFunction: act}
	ver := verFor(t, 3, 4)
	if groups > 0 {
		ver = 6
	}
	model := s.op(schema.BuiltinOperatorCONV_2D, ver, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConv2DOptions, Value: opts})
	return swCase{desc: fmt.Sprintf("in %v x %dx%dx%d→%d groups %d stride %d,%d dil %d,%d %v %v inS %.3g outS %.3g zp %d/%d",
		[]int{batch, ih, iw, inC}, fh, fw, filterInC, outC, g, sh, sw, dh, dw, pad, act, inS, outS, inZP, outZP), model: model}
}

// genDepthwise: DEPTHWISE_CONV_2D with a depth multiplier 1-3; int16x8
// with int64 biases, or int32 ones when b32.
func genDepthwise(r *rand.Rand, t qtype, perChannel, b32, tie bool) swCase {
	pad := pick(r, schema.PaddingSAME, schema.PaddingVALID)
	dilated := r.IntN(4) == 0
	ih, fh, sh, dh := windowDims(r, pad, 14, 5, dilated)
	iw, fw, sw, dw := windowDims(r, pad, 14, 5, dilated)
	batch := 1 + r.IntN(2)
	inC := 1 + r.IntN(20)
	mult := pick(r, 1, 1, 2, 3)
	outC := inC * mult
	act := pick(r, swActs...)
	inS := tieScale(logUniform(r, 0.002, 0.2), tie)
	inZP := t.zp(r)
	wS := make([]float32, outC)
	for c := range wS {
		wS[c] = float32(tieScale(logUniform(r, 0.0005, 0.05), tie))
		if !perChannel {
			wS[c] = wS[0]
		}
	}
	unsigned := t.s == schema.TensorTypeUINT8
	var wq *optest.Quant
	wz := int64(0)
	switch {
	case unsigned:
		wz = int64(r.IntN(256))
		wq = pt(float64(wS[0]), wz)
	case perChannel:
		wq = &optest.Quant{Scale: wS, ZeroPoint: make([]int64, outC), Dim: 3}
	default:
		wq = pt(float64(wS[0]), 0)
	}
	lim := weightLimit(r, tie)
	std := accStd(fh*fw, t.steps(), float64(lim))
	outS := tieOutScale(r, std*inS*float64(wS[0]), t, tie)
	outZP := t.zp(r)
	wide := t.s == schema.TensorTypeINT16 && !b32
	s := newSwBuild()
	s.in(t.s, []int{batch, ih, iw, inC}, pt(inS, inZP))
	wt := schema.TensorTypeINT8
	if unsigned {
		wt = schema.TensorTypeUINT8
	}
	s.cst(wt, []int{1, fh, fw, outC}, wq, weightBytesLim(r, fh*fw*outC, unsigned, lim, wz))
	bq := &optest.Quant{Scale: make([]float32, outC), ZeroPoint: make([]int64, outC)}
	for c := range bq.Scale {
		bq.Scale[c] = float32(inS) * wS[c]
	}
	if !perChannel {
		// One scale: TFLite reads a per-tensor bias scale only from a
		// one-element list (and checks it against input × filter).
		bq = pt(float64(float32(inS)*wS[0]), 0)
	}
	bt := schema.TensorTypeINT32
	if wide {
		bt = schema.TensorTypeINT64
	}
	s.cst(bt, []int{outC}, bq, biasBytes(r, outC, std, wide))
	oh, ow := convOut(pad, ih, fh, sh, dh), convOut(pad, iw, fw, sw, dw)
	s.out(t.s, []int{batch, oh, ow, outC}, pt(outS, outZP))
	opts := &schema.DepthwiseConv2DOptionsT{Padding: pad, StrideW: int32(sw), StrideH: int32(sh), DepthMultiplier: int32(mult),
		DilationWFactor: int32(dw), DilationHFactor: int32(dh), FusedActivationFunction: act}
	model := s.op(schema.BuiltinOperatorDEPTHWISE_CONV_2D, verFor(t, 3, 5),
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDepthwiseConv2DOptions, Value: opts})
	return swCase{desc: fmt.Sprintf("in %v %dx%d mult %d stride %d,%d dil %d,%d %v %v inS %.3g outS %.3g zp %d/%d",
		[]int{batch, ih, iw, inC}, fh, fw, mult, sh, sw, dh, dw, pad, act, inS, outS, inZP, outZP), model: model}
}

// genFC: FULLY_CONNECTED, input type t and output type o; int16x8 with
// int64 biases when wide.
func genFC(r *rand.Rand, t, o qtype, perChannel, wide, tie bool) swCase {
	units, cols := 1+r.IntN(40), 1+r.IntN(64)
	batch := 1 + r.IntN(4)
	keep := r.IntN(3) == 0
	var inShape []int
	if keep {
		inShape = []int{batch, 1 + r.IntN(3), cols}
	} else {
		inShape = []int{batch, cols}
	}
	act := pick(r, swActs...)
	inS := tieScale(logUniform(r, 0.002, 0.2), tie)
	inZP := t.zp(r)
	unsigned := t.s == schema.TensorTypeUINT8
	wS := make([]float32, units)
	for u := range wS {
		wS[u] = float32(tieScale(logUniform(r, 0.0005, 0.05), tie))
		if !perChannel {
			wS[u] = wS[0]
		}
	}
	var wq *optest.Quant
	wz := int64(0)
	switch {
	case unsigned:
		wz = int64(r.IntN(256))
		wq = pt(float64(wS[0]), wz)
	case perChannel:
		wq = &optest.Quant{Scale: wS, ZeroPoint: make([]int64, units)}
	default:
		wq = pt(float64(wS[0]), 0)
	}
	lim := weightLimit(r, tie)
	std := accStd(cols, t.steps(), float64(lim))
	outS := tieOutScale(r, std*inS*float64(wS[0]), o, tie)
	outZP := o.zp(r)
	s := newSwBuild()
	s.in(t.s, inShape, pt(inS, inZP))
	wt := schema.TensorTypeINT8
	if unsigned {
		wt = schema.TensorTypeUINT8
	}
	s.cst(wt, []int{units, cols}, wq, weightBytesLim(r, units*cols, unsigned, lim, wz))
	hasBias := r.IntN(5) != 0
	if hasBias {
		bq := &optest.Quant{Scale: make([]float32, units), ZeroPoint: make([]int64, units)}
		for u := range bq.Scale {
			bq.Scale[u] = float32(inS) * wS[u]
		}
		if !perChannel {
			bq = pt(inS*float64(wS[0]), 0)
		}
		bt := schema.TensorTypeINT32
		if wide {
			bt = schema.TensorTypeINT64
		}
		s.cst(bt, []int{units}, bq, biasBytes(r, units, std, wide))
	} else {
		s.omit()
	}
	outShape := []int{prodInts(inShape) / cols, units}
	if keep {
		outShape = append(append([]int(nil), inShape[:len(inShape)-1]...), units)
	}
	s.out(o.s, outShape, pt(outS, outZP))
	opts := &schema.FullyConnectedOptionsT{FusedActivationFunction: act, KeepNumDims: keep}
	ver := verFor(t, 4, 7)
	if t.s == schema.TensorTypeINT16 && wide {
		opts.QuantizedBiasType = schema.TensorTypeINT64
		ver = 11
	}
	model := s.op(schema.BuiltinOperatorFULLY_CONNECTED, ver, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: opts})
	return swCase{desc: fmt.Sprintf("in %v units %d keep %v bias %v %v inS %.3g outS %.3g zp %d/%d",
		inShape, units, keep, hasBias, act, inS, outS, inZP, outZP), model: model}
}

// bcastShapes draws two broadcast-compatible shapes of rank 1-4 (often
// equal, often one of them per-channel or scalar).
func bcastShapes(r *rand.Rand) (a, b, out []int) {
	rank := 1 + r.IntN(4)
	out = randShape(r, rank, 7)
	a, b = append([]int(nil), out...), append([]int(nil), out...)
	switch r.IntN(4) {
	case 0: // same
	case 1: // b per channel (last dim), possibly lower rank
		b = []int{out[rank-1]}
	case 2: // b scalar
		b = []int{1}
	default: // mixed ones
		for i := range out {
			if r.IntN(2) == 0 {
				a[i] = 1
			} else if r.IntN(2) == 0 {
				b[i] = 1
			}
		}
		for i := range out {
			out[i] = max(a[i], b[i])
		}
	}
	if r.IntN(2) == 0 {
		a, b = b, a
	}
	return
}

// genBinary: ADD, SUB, MUL with their own scales and zero points and a
// fused activation.
func genBinary(r *rand.Rand, op schema.BuiltinOperator, t qtype) swCase {
	sa, sb, so := bcastShapes(r)
	s1, s2 := logUniform(r, 0.002, 0.5), logUniform(r, 0.002, 0.5)
	if r.IntN(4) == 0 {
		s2 = s1
	}
	z1, z2 := t.zp(r), t.zp(r)
	var std float64
	switch op {
	case schema.BuiltinOperatorMUL:
		std = s1 * s2 * t.steps() * t.steps() / 3
	default:
		std = math.Hypot(s1, s2) * t.steps() / math.Sqrt(3)
	}
	outS := outScaleFor(r, std, t)
	outZP := t.zp(r)
	act := pick(r, swActs...)
	s := newSwBuild()
	s.in(t.s, sa, pt(s1, z1))
	s.in(t.s, sb, pt(s2, z2))
	s.out(t.s, so, pt(outS, outZP))
	var opts *schema.BuiltinOptionsT
	var ver int32
	switch op {
	case schema.BuiltinOperatorADD:
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{FusedActivationFunction: act, PotScaleInt16: false}}
		ver = verFor(t, 2, 3)
	case schema.BuiltinOperatorSUB:
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSubOptions, Value: &schema.SubOptionsT{FusedActivationFunction: act, PotScaleInt16: false}}
		ver = verFor(t, 2, 3)
	default:
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMulOptions, Value: &schema.MulOptionsT{FusedActivationFunction: act}}
		ver = verFor(t, 2, 4)
	}
	model := s.op(op, ver, opts)
	return swCase{desc: fmt.Sprintf("%v %v→%v %v s %.3g,%.3g→%.3g zp %d,%d→%d", sa, sb, so, act, s1, s2, outS, z1, z2, outZP), model: model}
}

// genMinMax: MAXIMUM / MINIMUM (one quantisation for all, as TFLite
// requires nothing and compares raw values).
func genMinMax(r *rand.Rand, op schema.BuiltinOperator, t qtype) swCase {
	sa, sb, so := bcastShapes(r)
	sc, z := logUniform(r, 0.002, 0.5), t.zp(r)
	s := newSwBuild()
	s.in(t.s, sa, pt(sc, z))
	s.in(t.s, sb, pt(sc, z))
	s.out(t.s, so, pt(sc, z))
	model := s.op(op, verFor(t, 2, 4), nil)
	return swCase{desc: fmt.Sprintf("%v %v→%v", sa, sb, so), model: model}
}

// genCompare: the comparisons on quantised inputs of different scales.
func genCompare(r *rand.Rand, op schema.BuiltinOperator, t qtype) swCase {
	sa, sb, so := bcastShapes(r)
	s1, s2 := logUniform(r, 0.002, 0.5), logUniform(r, 0.002, 0.5)
	if r.IntN(3) == 0 {
		s2 = s1
	}
	z1, z2 := t.zp(r), t.zp(r)
	s := newSwBuild()
	s.in(t.s, sa, pt(s1, z1))
	s.in(t.s, sb, pt(s2, z2))
	s.out(schema.TensorTypeBOOL, so, nil)
	model := s.op(op, verFor(t, 2, 3), nil)
	// Values close to each other, so that the comparison is not decided
	// by the range alone.
	return swCase{desc: fmt.Sprintf("%v %v s %.3g,%.3g zp %d,%d", sa, sb, s1, s2, z1, z2), model: model}
}

// genPool: AVERAGE_POOL_2D / MAX_POOL_2D.
func genPool(r *rand.Rand, op schema.BuiltinOperator, t qtype) swCase {
	pad := pick(r, schema.PaddingSAME, schema.PaddingVALID)
	ih, fh, sh, _ := windowDims(r, pad, 16, 5, false)
	iw, fw, sw, _ := windowDims(r, pad, 16, 5, false)
	batch, c := 1+r.IntN(2), 1+r.IntN(20)
	act := pick(r, swActs...)
	sc, z := logUniform(r, 0.005, 0.2), t.zp(r)
	s := newSwBuild()
	s.in(t.s, []int{batch, ih, iw, c}, pt(sc, z))
	oh, ow := convOut(pad, ih, fh, sh, 1), convOut(pad, iw, fw, sw, 1)
	s.out(t.s, []int{batch, oh, ow, c}, pt(sc, z))
	opts := &schema.Pool2DOptionsT{Padding: pad, StrideW: int32(sw), StrideH: int32(sh), FilterWidth: int32(fw), FilterHeight: int32(fh), FusedActivationFunction: act}
	model := s.op(op, verFor(t, 2, 3), &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsPool2DOptions, Value: opts})
	return swCase{desc: fmt.Sprintf("in %v %dx%d stride %d,%d %v %v s %.3g zp %d", []int{batch, ih, iw, c}, fh, fw, sh, sw, pad, act, sc, z), model: model}
}

// genReduce: MEAN, SUM, REDUCE_MAX/MIN/PROD over random axes (negative
// ones and repeats included), keep_dims or not, input and output
// quantisation different or equal.
func genReduce(r *rand.Rand, op schema.BuiltinOperator, t qtype) swCase {
	rank := 1 + r.IntN(4)
	shape := randShape(r, rank, 9)
	if op == schema.BuiltinOperatorREDUCE_PROD {
		shape = randShape(r, rank, 3)
	}
	nAxes := 1 + r.IntN(rank)
	axes := make([]int32, nAxes)
	reduced := make([]bool, rank)
	for i := range axes {
		a := r.IntN(rank)
		reduced[a] = true
		if r.IntN(3) == 0 {
			axes[i] = int32(a - rank)
		} else {
			axes[i] = int32(a)
		}
	}
	keep := r.IntN(2) == 0
	var outShape []int
	count := 1
	for i, d := range shape {
		if reduced[i] {
			count *= d
			if keep {
				outShape = append(outShape, 1)
			}
		} else {
			outShape = append(outShape, d)
		}
	}
	inS, inZP := logUniform(r, 0.002, 0.2), t.zp(r)
	outS, outZP := inS, inZP
	// REDUCE_MAX and REDUCE_MIN need the output quantised as the input.
	minMax := op == schema.BuiltinOperatorREDUCE_MAX || op == schema.BuiltinOperatorREDUCE_MIN
	if !minMax && r.IntN(3) != 0 {
		std := inS * t.steps() / math.Sqrt(3)
		switch op {
		case schema.BuiltinOperatorSUM:
			std *= math.Sqrt(float64(count))
		case schema.BuiltinOperatorMEAN:
			std /= math.Sqrt(float64(count))
		case schema.BuiltinOperatorREDUCE_PROD:
			std = math.Pow(inS*t.steps()/2, float64(count))
		}
		outS, outZP = outScaleFor(r, std, t), t.zp(r)
	}
	s := newSwBuild()
	s.in(t.s, shape, pt(inS, inZP))
	s.cst(schema.TensorTypeINT32, []int{nAxes}, nil, int32s(axes))
	s.out(t.s, outShape, pt(outS, outZP))
	ver := verFor(t, 2, 3)
	if op == schema.BuiltinOperatorSUM || op == schema.BuiltinOperatorREDUCE_PROD {
		ver = verFor(t, 2, 2) // TFLite registers 1-2
	}
	model := s.op(op, ver, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReducerOptions, Value: &schema.ReducerOptionsT{KeepDims: keep}})
	return swCase{desc: fmt.Sprintf("in %v axes %v keep %v s %.3g→%.3g zp %d→%d", shape, axes, keep, inS, outS, inZP, outZP), model: model}
}

// genSoftmax: SOFTMAX (beta random) or LOG_SOFTMAX with the output
// quantisation TFLite requires: int8 1/256 zp -128, uint8 1/256 zp 0,
// int16 1/32768 zp 0 (LOG_SOFTMAX: 16/256 zp 127 for int8, 255 for uint8).
func genSoftmax(r *rand.Rand, t qtype, log bool) swCase {
	rank := 1 + r.IntN(4)
	shape := randShape(r, rank, 12)
	inS := logUniform(r, 0.005, 0.5)
	if t.s == schema.TensorTypeINT16 {
		inS = logUniform(r, 1.0/32768, 10.0/32768)
	}
	inZP := t.zp(r)
	var outS float64
	var outZP int64
	switch {
	case log && t.s == schema.TensorTypeINT8:
		outS, outZP = 16.0/256, 127
	case log:
		outS, outZP = 16.0/256, 255
	case t.s == schema.TensorTypeINT8:
		outS, outZP = 1.0/256, -128
	case t.s == schema.TensorTypeUINT8:
		outS, outZP = 1.0/256, 0
	default:
		outS, outZP = 1.0/32768, 0
	}
	s := newSwBuild()
	s.in(t.s, shape, pt(inS, inZP))
	s.out(t.s, shape, pt(outS, outZP))
	if log {
		model := s.op(schema.BuiltinOperatorLOG_SOFTMAX, verFor(t, 2, 2), &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsLogSoftmaxOptions, Value: &schema.LogSoftmaxOptionsT{}})
		return swCase{desc: fmt.Sprintf("in %v s %.3g zp %d", shape, inS, inZP), model: model}
	}
	beta := float32(pick(r, 1, 1, 0.5, 2, logUniform(r, 0.1, 4)))
	model := s.op(schema.BuiltinOperatorSOFTMAX, verFor(t, 2, 3), &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSoftmaxOptions, Value: &schema.SoftmaxOptionsT{Beta: beta}})
	return swCase{desc: fmt.Sprintf("in %v beta %g s %.3g zp %d", shape, beta, inS, inZP), model: model}
}

// genSigmoidTanh: LOGISTIC / TANH with TFLite's output quantisation
// (int8 1/256 zp -128 / 1/128 zp 0; uint8 1/256 zp 0 / 1/128 zp 128;
// int16 1/32768 zp 0) and input scales over a wide range (pot: only the
// power-of-two int16 scales of TFLite's fixed-point path).
func genSigmoidTanh(r *rand.Rand, op schema.BuiltinOperator, t qtype, pot bool) swCase {
	shape := randShape(r, 1+r.IntN(3), 12)
	inS := logUniform(r, 0.001, 0.3)
	switch {
	case pot && op == schema.BuiltinOperatorTANH:
		inS = pick(r, 1.0/4096, 1.0/2048)
	case pot:
		inS = 1.0 / 4096
	case t.s == schema.TensorTypeINT16:
		inS = pick(r, 1.0/4096, 1.0/2048, 1.0/8192, logUniform(r, 1.0/65536, 1.0/256), logUniform(r, 1e-10, 10))
	}
	inZP := t.zp(r)
	logistic := op == schema.BuiltinOperatorLOGISTIC
	var outS float64
	var outZP int64
	switch {
	case t.s == schema.TensorTypeINT16:
		outS = 1.0 / 32768
	case logistic && t.s == schema.TensorTypeINT8:
		outS, outZP = 1.0/256, -128
	case logistic:
		outS = 1.0 / 256
	case t.s == schema.TensorTypeINT8:
		outS = 1.0 / 128
	default:
		outS, outZP = 1.0/128, 128
	}
	s := newSwBuild()
	s.in(t.s, shape, pt(inS, inZP))
	s.out(t.s, shape, pt(outS, outZP))
	model := s.op(op, verFor(t, 2, 3), nil)
	return swCase{desc: fmt.Sprintf("in %v s %.4g zp %d", shape, inS, inZP), model: model}
}

// genUnary: the one-input activations with their own output
// quantisation (ABS, ELU, HARD_SWISH, LEAKY_RELU, RELU, RELU6,
// RELU_N1_TO_1).
func genUnary(r *rand.Rand, op schema.BuiltinOperator, t qtype) swCase {
	shape := randShape(r, 1+r.IntN(4), 8)
	inS, inZP := logUniform(r, 0.002, 0.3), t.zp(r)
	outS, outZP := inS, inZP
	if r.IntN(4) != 0 {
		outS, outZP = inS*logUniform(r, 0.3, 3), t.zp(r)
	}
	if op == schema.BuiltinOperatorHARD_SWISH {
		// TFLite needs (input_scale/128)/output_scale below 1.
		outS = max(outS, inS/100)
	}
	s := newSwBuild()
	s.in(t.s, shape, pt(inS, inZP))
	s.out(t.s, shape, pt(outS, outZP))
	var opts *schema.BuiltinOptionsT
	desc := ""
	ver := verFor(t, 2, 3)
	switch op {
	case schema.BuiltinOperatorLEAKY_RELU:
		alpha := float32(pick(r, 0.2, 0.1, 0.01, logUniform(r, 0.001, 0.99), -0.3, 1.5))
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsLeakyReluOptions, Value: &schema.LeakyReluOptionsT{Alpha: alpha}}
		desc = fmt.Sprintf(" alpha %g", alpha)
		ver = verFor(t, 1, 2)
	case schema.BuiltinOperatorHARD_SWISH, schema.BuiltinOperatorELU, schema.BuiltinOperatorRELU_N1_TO_1:
		ver = 1
	}
	model := s.op(op, ver, opts)
	return swCase{desc: fmt.Sprintf("in %v s %.3g→%.3g zp %d→%d%s", shape, inS, outS, inZP, outZP, desc), model: model}
}

// genPRelu: PRELU with a constant alpha broadcast per channel or full.
func genPRelu(r *rand.Rand, t qtype) swCase {
	shape := randShape(r, 2+r.IntN(3), 7)
	var aShape []int
	switch r.IntN(3) {
	case 0:
		aShape = []int{shape[len(shape)-1]}
	case 1:
		aShape = append([]int(nil), shape[1:]...)
	default:
		aShape = []int{1}
	}
	at := t
	if t.s == schema.TensorTypeINT16 {
		at = qInt8
	}
	inS, inZP := logUniform(r, 0.002, 0.3), t.zp(r)
	aS, aZP := logUniform(r, 0.001, 0.05), at.zp(r)
	outS, outZP := inS*logUniform(r, 0.3, 3), t.zp(r)
	s := newSwBuild()
	s.in(t.s, shape, pt(inS, inZP))
	s.cst(at.s, aShape, pt(aS, aZP), at.bytesOf(r, prodInts(aShape)))
	s.out(t.s, shape, pt(outS, outZP))
	model := s.op(schema.BuiltinOperatorPRELU, 1, nil)
	return swCase{desc: fmt.Sprintf("in %v alpha %v s %.3g,%.3g→%.3g", shape, aShape, inS, aS, outS), model: model}
}

// genConcat: CONCATENATION of 2-4 inputs along a random axis, scales
// differing from the output's (uint8, int16) or equal (int8, which TFLite
// requires).
func genConcat(r *rand.Rand, t qtype) swCase {
	rank := 1 + r.IntN(4)
	base := randShape(r, rank, 6)
	axis := r.IntN(rank)
	n := 2 + r.IntN(3)
	outS, outZP := logUniform(r, 0.005, 0.2), t.zp(r)
	s := newSwBuild()
	total := 0
	for i := 0; i < n; i++ {
		sh := append([]int(nil), base...)
		sh[axis] = 1 + r.IntN(5)
		total += sh[axis]
		sc, z := outS, outZP
		if t.s != schema.TensorTypeINT8 && r.IntN(2) == 0 {
			sc, z = outS*logUniform(r, 0.5, 2), t.zp(r)
		}
		s.in(t.s, sh, pt(sc, z))
	}
	out := append([]int(nil), base...)
	out[axis] = total
	s.out(t.s, out, pt(outS, outZP))
	ax := int32(axis)
	if r.IntN(3) == 0 {
		ax -= int32(rank)
	}
	act := schema.ActivationFunctionTypeNONE
	model := s.op(schema.BuiltinOperatorCONCATENATION, verFor(t, 2, 3),
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConcatenationOptions, Value: &schema.ConcatenationOptionsT{Axis: ax, FusedActivationFunction: act}})
	return swCase{desc: fmt.Sprintf("%d inputs axis %d out %v", n, ax, out), model: model}
}

// genResize: RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR up and down with
// align_corners or half_pixel_centers.
func genResize(r *rand.Rand, op schema.BuiltinOperator, t qtype) swCase {
	batch, ih, iw, c := 1+r.IntN(2), 1+r.IntN(9), 1+r.IntN(9), 1+r.IntN(17)
	if r.IntN(5) == 0 {
		c = 8 * (1 + r.IntN(2)) // the uint8 ×8 kernel's depths
	}
	oh, ow := 1+r.IntN(20), 1+r.IntN(20)
	if r.IntN(4) == 0 {
		oh, ow = 8*ih, 8*iw
	}
	align, half := false, false
	switch r.IntN(3) {
	case 1:
		align = true
	case 2:
		half = true
	}
	sc, z := logUniform(r, 0.005, 0.2), t.zp(r)
	s := newSwBuild()
	s.in(t.s, []int{batch, ih, iw, c}, pt(sc, z))
	s.cst(schema.TensorTypeINT32, []int{2}, nil, optest.I32(int32(oh), int32(ow)))
	s.out(t.s, []int{batch, oh, ow, c}, pt(sc, z))
	var opts *schema.BuiltinOptionsT
	ver := verFor(t, 2, 4)
	if half {
		ver = max(ver, 3)
	}
	if op == schema.BuiltinOperatorRESIZE_BILINEAR {
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsResizeBilinearOptions, Value: &schema.ResizeBilinearOptionsT{AlignCorners: align, HalfPixelCenters: half}}
	} else {
		opts = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsResizeNearestNeighborOptions, Value: &schema.ResizeNearestNeighborOptionsT{AlignCorners: align, HalfPixelCenters: half}}
	}
	model := s.op(op, ver, opts)
	return swCase{desc: fmt.Sprintf("in %v → %dx%d align %v half %v", []int{batch, ih, iw, c}, oh, ow, align, half), model: model}
}

// genDequantize: DEQUANTIZE to float32 (exact: one float32 product).
func genDequantize(r *rand.Rand, t qtype) swCase {
	shape := randShape(r, 1+r.IntN(3), 10)
	sc, z := logUniform(r, 0.0001, 0.5), t.zp(r)
	s := newSwBuild()
	s.in(t.s, shape, pt(sc, z))
	s.out(schema.TensorTypeFLOAT32, shape, nil)
	model := s.op(schema.BuiltinOperatorDEQUANTIZE, verFor(t, 2, 3), nil)
	return swCase{desc: fmt.Sprintf("in %v s %.4g zp %d", shape, sc, z), model: model}
}

// genQuantizeFloat: QUANTIZE float32 → t, inputs spread over (and a
// little beyond) the output's range, with exact halves included.
func genQuantizeFloat(r *rand.Rand, t qtype) swCase {
	shape := randShape(r, 1+r.IntN(3), 10)
	sc, z := logUniform(r, 0.0001, 0.5), t.zp(r)
	s := newSwBuild()
	s.in(schema.TensorTypeFLOAT32, shape, nil)
	s.out(t.s, shape, pt(sc, z))
	model := s.op(schema.BuiltinOperatorQUANTIZE, verFor(t, 2, 2), nil)
	span := sc * float64(t.hi-t.lo) * 0.6
	gen := func(r *rand.Rand, _ int, _ ops.DataType) float64 {
		if r.IntN(4) == 0 { // a tie of the rounding
			return (float64(r.IntN(t.hi-t.lo)+t.lo) - float64(z) + 0.5) * sc
		}
		return (2*r.Float64() - 1) * span
	}
	return swCase{desc: fmt.Sprintf("in %v s %.4g zp %d", shape, sc, z), model: model, gen: gen}
}

// genRequantize: QUANTIZE from one quantised type to another (or the
// same with other parameters).
func genRequantize(r *rand.Rand, t, u qtype) swCase {
	shape := randShape(r, 1+r.IntN(3), 10)
	inS, inZP := logUniform(r, 0.0005, 0.2), t.zp(r)
	outS, outZP := inS*logUniform(r, 0.1, 10), u.zp(r)
	s := newSwBuild()
	s.in(t.s, shape, pt(inS, inZP))
	s.out(u.s, shape, pt(outS, outZP))
	// The converter's versions: 2 for an int16 output, else 1.
	ver := int32(1)
	if u.s == schema.TensorTypeINT16 {
		ver = 2
	}
	model := s.op(schema.BuiltinOperatorQUANTIZE, ver, nil)
	return swCase{desc: fmt.Sprintf("in %v s %.4g→%.4g zp %d→%d", shape, inS, outS, inZP, outZP), model: model}
}

// genLSTM: an int8x8_16 UNIDIRECTIONAL_SEQUENCE_LSTM (TFLite's integer
// kernel) with random sizes, CIFG, peephole, projection and layer norm,
// the cell state at scale 2^cellExp (0: drawn from 2^-15..2^-11).
func genLSTM(r *rand.Rand, cellExp int) swCase {
	batch, steps := 1+r.IntN(3), 1+r.IntN(4)
	nIn, nCell := 1+r.IntN(12), 1+r.IntN(16)
	cifg := r.IntN(4) == 0 && cellExp >= -15 && cellExp <= -9
	if cellExp == 0 {
		cellExp = -15 + r.IntN(5)
		cifg = r.IntN(4) == 0
	}
	peephole := r.IntN(3) == 0
	proj := r.IntN(3) == 0
	layerNorm := r.IntN(2) == 0
	nOut := nCell
	if proj {
		nOut = 1 + r.IntN(nCell)
	}
	timeMajor := r.IntN(2) == 0
	inS, inZP := logUniform(r, 0.005, 0.05), qInt8.zp(r)
	hS, hZP := logUniform(r, 0.004, 0.02), qInt8.zp(r) // hidden intermediate
	osS, osZP := hS, hZP                               // output state
	if proj {
		osS, osZP = logUniform(r, 0.004, 0.05), qInt8.zp(r)
	}
	cellS := math.Ldexp(1, cellExp)
	b := optest.NewBuilder()
	ins := make([]int32, 24)
	for i := range ins {
		ins[i] = -1
	}
	var inShape []int32
	if timeMajor {
		inShape = []int32{int32(steps), int32(batch), int32(nIn)}
	} else {
		inShape = []int32{int32(batch), int32(steps), int32(nIn)}
	}
	x := b.Tensor("input", schema.TensorTypeINT8, inShape, pt(inS, inZP))
	ins[0] = x
	wq := func(name string, rows, cols int) int32 {
		sc := logUniform(r, 0.002, 0.02)
		return b.Const(name, schema.TensorTypeINT8, []int32{int32(rows), int32(cols)}, pt(sc, 0), weightBytes(r, rows*cols, false))
	}
	gates := []int{0, 1, 2, 3}
	if cifg {
		gates = []int{1, 2, 3}
	}
	lnScale := make([]float64, 4)
	for _, g := range gates {
		ins[1+g] = wq(fmt.Sprintf("w_x%d", g), nCell, nIn)
		ins[5+g] = wq(fmt.Sprintf("w_h%d", g), nCell, nOut)
		if peephole && g != 2 {
			sc := logUniform(r, 0.0001, 0.01)
			ins[9+map[int]int{0: 0, 1: 1, 3: 2}[g]] = b.Const(fmt.Sprintf("w_c%d", g), schema.TensorTypeINT16, []int32{int32(nCell)}, pt(sc, 0), qInt16.bytesOf(r, nCell))
		}
		if layerNorm {
			lnScale[g] = logUniform(r, 0.00005, 0.0005)
			v := make([]int16, nCell)
			for i := range v {
				v[i] = int16(r.IntN(20000) + 2000)
			}
			ins[20+g] = b.Const(fmt.Sprintf("ln%d", g), schema.TensorTypeINT16, []int32{int32(nCell)}, pt(lnScale[g], 0), optest.I16(v...))
		}
		bv := make([]int32, nCell)
		for i := range bv {
			bv[i] = int32(r.NormFloat64() * 2000)
		}
		bs := inS * 0.01
		if layerNorm {
			bs = lnScale[g] / 1024
		}
		ins[12+g] = b.Const(fmt.Sprintf("b%d", g), schema.TensorTypeINT32, []int32{int32(nCell)}, pt(bs, 0), optest.I32(bv...))
	}
	if proj {
		ins[16] = wq("w_proj", nOut, nCell)
		if r.IntN(2) == 0 {
			bv := make([]int32, nOut)
			for i := range bv {
				bv[i] = int32(r.NormFloat64() * 200)
			}
			ins[17] = b.Const("b_proj", schema.TensorTypeINT32, []int32{int32(nOut)}, pt(osS*0.01, 0), optest.I32(bv...))
		}
	}
	os := b.Tensor("output_state", schema.TensorTypeINT8, []int32{int32(batch), int32(nOut)}, pt(osS, osZP))
	b.Model().Subgraphs[0].Tensors[os].IsVariable = true
	cs := b.Tensor("cell_state", schema.TensorTypeINT16, []int32{int32(batch), int32(nCell)}, pt(cellS, 0))
	b.Model().Subgraphs[0].Tensors[cs].IsVariable = true
	ins[18], ins[19] = os, cs
	var inter []int32
	for g := 0; g < 4; g++ {
		sc := 1.0 / 4096
		if layerNorm {
			sc = logUniform(r, 0.0002, 0.002)
		}
		inter = append(inter, b.Tensor(fmt.Sprintf("inter%d", g), schema.TensorTypeINT16, nil, pt(sc, 0)))
	}
	inter = append(inter, b.Tensor("hidden", schema.TensorTypeINT8, nil, pt(hS, hZP)))
	outShape := append([]int32(nil), inShape...)
	outShape[2] = int32(nOut)
	y := b.Tensor("output", schema.TensorTypeINT8, outShape, pt(osS, osZP))
	cellClip := float32(0)
	if r.IntN(3) == 0 {
		cellClip = float32(logUniform(r, 0.05, 0.9) * cellS * 32768)
	}
	opts := &schema.UnidirectionalSequenceLSTMOptionsT{FusedActivationFunction: schema.ActivationFunctionTypeTANH,
		CellClip: cellClip, TimeMajor: timeMajor}
	b.Op(schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM, 3, ins, []int32{y},
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions, Value: opts})
	sg := b.Model().Subgraphs[0]
	sg.Operators[0].Intermediates = inter
	b.Inputs(x)
	b.Outputs(y)
	return swCase{desc: fmt.Sprintf("batch %d steps %d in %d cell %d out %d cifg %v peephole %v proj %v ln %v cell 2^%d clip %g time_major %v",
		batch, steps, nIn, nCell, nOut, cifg, peephole, proj, layerNorm, cellExp, cellClip, timeMajor), model: b.Bytes()}
}

// genSVDF: an integer SVDF (int8 input, weights and output, int16 or
// int8 state).
func genSVDF(r *rand.Rand) swCase {
	batch, nIn := 1+r.IntN(2), 1+r.IntN(16)
	rank := 1 + r.IntN(2)
	units := 1 + r.IntN(8)
	filters := units * rank
	memory := 1 + r.IntN(6)
	inS, inZP := logUniform(r, 0.005, 0.05), qInt8.zp(r)
	wfS := logUniform(r, 0.002, 0.02)
	stateS := logUniform(r, 0.0005, 0.005)
	wtS := logUniform(r, 0.00002, 0.0002)
	outS, outZP := logUniform(r, 0.005, 0.05), qInt8.zp(r)
	b := optest.NewBuilder()
	x := b.Tensor("input", schema.TensorTypeINT8, []int32{int32(batch), int32(nIn)}, pt(inS, inZP))
	wf := b.Const("w_feature", schema.TensorTypeINT8, []int32{int32(filters), int32(nIn)}, pt(wfS, 0), weightBytes(r, filters*nIn, false))
	wt := b.Const("w_time", schema.TensorTypeINT16, []int32{int32(filters), int32(memory)}, pt(wtS, 0), qInt16.bytesOf(r, filters*memory))
	bv := make([]int32, units)
	for i := range bv {
		bv[i] = int32(r.NormFloat64() * 1000)
	}
	bias := b.Const("bias", schema.TensorTypeINT32, []int32{int32(units)}, pt(stateS*wtS, 0), optest.I32(bv...))
	st := b.Tensor("state", schema.TensorTypeINT16, []int32{int32(batch), int32(memory * filters)}, pt(stateS, 0))
	b.Model().Subgraphs[0].Tensors[st].IsVariable = true
	y := b.Tensor("output", schema.TensorTypeINT8, []int32{int32(batch), int32(units)}, pt(outS, outZP))
	act := schema.ActivationFunctionTypeRELU // TFLite's integer SVDF requires it
	b.Op(schema.BuiltinOperatorSVDF, 3, []int32{x, wf, wt, bias, st}, []int32{y},
		&schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSVDFOptions, Value: &schema.SVDFOptionsT{Rank: int32(rank), FusedActivationFunction: act}})
	b.Inputs(x)
	b.Outputs(y)
	return swCase{desc: fmt.Sprintf("batch %d in %d units %d rank %d memory %d %v", batch, nIn, units, rank, memory, act), model: b.Bytes()}
}
