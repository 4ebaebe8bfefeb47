package legalize

import (
	"fmt"

	"github.com/tflrun/tflrun/convert/ir"
	"github.com/tflrun/tflrun/convert/tfops"
	"github.com/tflrun/tflrun/schema"
)

func init() {
	register(matMul, "MatMul")
	register(batchMatMul, "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
	register(biasAdd, "BiasAdd", "BiasAddV1")
	register(conv2D, "Conv2D")
	register(depthwiseConv2D, "DepthwiseConv2dNative")
	register(pool, "MaxPool", "AvgPool")
	register(batchNorm, "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
}

// transposed returns v with its axes permuted: a folded constant when v is
// constant, else a TRANSPOSE operator.
func (c *ctx) transposed(v *ir.Value, perm []int, suffix string) (*ir.Value, error) {
	if v.Const != nil {
		t, err := tfops.Transpose(v.Const, perm)
		if err != nil {
			return nil, err
		}
		return c.f.NewConst(c.n.Name+"/"+suffix, t), nil
	}
	s, err := static(v)
	if err != nil {
		return nil, err
	}
	out := make(ir.Shape, len(perm))
	for i, p := range perm {
		out[i] = s[p]
	}
	p, err := c.constInt32(suffix+"/perm", perm, ir.Shape{len(perm)})
	if err != nil {
		return nil, err
	}
	t := c.f.NewTFL(c.n.Name+"/"+suffix, &ir.TFLOp{Builtin: schema.BuiltinOperatorTRANSPOSE, Version: 1, Options: options(&schema.TransposeOptionsT{})},
		[]*ir.Value{v, p}, ir.TypeShape{DType: v.DType, Shape: out})
	return t.Outputs[0], nil
}

// zeroBias is a constant [k] of zeros (TFLite's convolutions take a bias;
// TensorFlow's converter supplies zeros, which later ADDs fold into).
func (c *ctx) zeroBias(dt ir.DType, k int) (*ir.Value, error) {
	t, err := ir.FromFloat64s(dt, ir.Shape{k}, make([]float64, k))
	if err != nil {
		return nil, err
	}
	return c.f.NewConst(c.n.Name+"/bias", t), nil
}

// matMul: FULLY_CONNECTED computes input [m, k] × weights[n, k]ᵀ, so
// TensorFlow's b [k, n] is transposed (b with transpose_b is already
// [n, k]) and a with transpose_a gets a TRANSPOSE.
func matMul(c *ctx) error {
	a, err := c.in(0)
	if err != nil {
		return err
	}
	b, err := c.in(1)
	if err != nil {
		return err
	}
	ta, err := c.n.AttrBool("transpose_a", false)
	if err != nil {
		return err
	}
	tb, err := c.n.AttrBool("transpose_b", false)
	if err != nil {
		return err
	}
	if !a.DType.IsFloat() {
		return fmt.Errorf("MatMul of %s is not supported (float only)", a.DType)
	}
	if ta {
		if a, err = c.transposed(a, []int{1, 0}, "transpose_a"); err != nil {
			return err
		}
	}
	if !tb {
		if b, err = c.transposed(b, []int{1, 0}, "weights"); err != nil {
			return err
		}
	}
	c.replace(c.emit(schema.BuiltinOperatorFULLY_CONNECTED, 1, &schema.FullyConnectedOptionsT{}, []*ir.Value{a, b, nil}, c.outs()...))
	return nil
}

// batchMatMul: with a 2-D (or batch-1) constant right operand it is a
// FULLY_CONNECTED keeping the leading dimensions (as TensorFlow's
// converter does); otherwise BATCH_MATMUL.
func batchMatMul(c *ctx) error {
	a, err := c.in(0)
	if err != nil {
		return err
	}
	b, err := c.in(1)
	if err != nil {
		return err
	}
	adjX, err := c.n.AttrBool("adj_x", false)
	if err != nil {
		return err
	}
	adjY, err := c.n.AttrBool("adj_y", false)
	if err != nil {
		return err
	}
	if !a.DType.IsFloat() || a.DType != b.DType {
		return fmt.Errorf("%s of %s × %s is not supported (float only)", c.n.Op, a.DType, b.DType)
	}
	if b.Const != nil && !adjX && a.Shape.Rank() >= 2 {
		w := b.Const
		batch := 1
		for _, d := range w.Shape[:len(w.Shape)-2] {
			batch *= d
		}
		if batch == 1 {
			k, n := w.Shape[len(w.Shape)-2], w.Shape[len(w.Shape)-1]
			w2, err := w.Reshaped(ir.Shape{k, n})
			if err != nil {
				return err
			}
			wv := c.f.NewConst(c.n.Name+"/weights_2d", w2)
			if !adjY {
				if wv, err = c.transposed(wv, []int{1, 0}, "weights"); err != nil {
					return err
				}
			} else if k != n {
				wv.Shape = ir.Shape{k, n}
			}
			c.replace(c.emit(schema.BuiltinOperatorFULLY_CONNECTED, 5, &schema.FullyConnectedOptionsT{KeepNumDims: true}, []*ir.Value{a, wv, nil}, c.outs()...))
			return nil
		}
	}
	c.replace(c.emit(schema.BuiltinOperatorBATCH_MATMUL, 1, &schema.BatchMatMulOptionsT{AdjX: adjX, AdjY: adjY}, []*ir.Value{a, b}, c.outs()...))
	return nil
}

// biasAdd is an ADD broadcasting the bias over the last (channel) axis;
// package optimize folds it into a preceding convolution or
// FULLY_CONNECTED.
func biasAdd(c *ctx) error {
	format, err := c.n.AttrString("data_format", "NHWC")
	if err != nil {
		return err
	}
	if format != "NHWC" && format != "N...C" {
		return fmt.Errorf("data_format %q is not supported (only channels-last)", format)
	}
	x, err := c.in(0)
	if err != nil {
		return err
	}
	b, err := c.in(1)
	if err != nil {
		return err
	}
	return c.same(schema.BuiltinOperatorADD, &schema.AddOptionsT{}, x, b)
}

// convPadding maps TensorFlow padding to TFLite's; EXPLICIT padding
// becomes a PAD operator in front and VALID.
func (c *ctx) convPadding(x *ir.Value) (*ir.Value, schema.Padding, error) {
	padding, err := c.n.AttrString("padding", "")
	if err != nil {
		return nil, 0, err
	}
	switch padding {
	case "SAME":
		return x, schema.PaddingSAME, nil
	case "VALID":
		return x, schema.PaddingVALID, nil
	case "EXPLICIT":
		p, err := tfops.ExplicitPads(c.n)
		if err != nil {
			return nil, 0, err
		}
		s, err := static(x)
		if err != nil {
			return nil, 0, err
		}
		pads, err := c.constInt32("explicit_paddings", []int{0, 0, p[0], p[1], p[2], p[3], 0, 0}, ir.Shape{4, 2})
		if err != nil {
			return nil, 0, err
		}
		out := ir.Shape{s[0], s[1] + p[0] + p[1], s[2] + p[2] + p[3], s[3]}
		pad := c.f.NewTFL(c.n.Name+"/pad", &ir.TFLOp{Builtin: schema.BuiltinOperatorPAD, Version: 1, Options: options(&schema.PadOptionsT{})},
			[]*ir.Value{x, pads}, ir.TypeShape{DType: x.DType, Shape: out})
		return pad.Outputs[0], schema.PaddingVALID, nil
	}
	return nil, 0, fmt.Errorf("padding %q is not SAME, VALID or EXPLICIT", padding)
}

// conv2D: filter [h, w, in, out] → [out, h, w, in].
func conv2D(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	f, err := c.in(1)
	if err != nil {
		return err
	}
	if !x.DType.IsFloat() {
		return fmt.Errorf("Conv2D of %s is not supported (float only)", x.DType)
	}
	fs, err := static(f)
	if err != nil {
		return err
	}
	sh, sw, err := tfops.Window4(c.n, "strides", nil)
	if err != nil {
		return err
	}
	dh, dw, err := tfops.Window4(c.n, "dilations", []int64{1, 1, 1, 1})
	if err != nil {
		return err
	}
	x, pad, err := c.convPadding(x)
	if err != nil {
		return err
	}
	w, err := c.transposed(f, []int{3, 0, 1, 2}, "filter")
	if err != nil {
		return err
	}
	b, err := c.zeroBias(x.DType, fs[3])
	if err != nil {
		return err
	}
	version := int32(1)
	if dh != 1 || dw != 1 {
		version = 2
	}
	opts := &schema.Conv2DOptionsT{Padding: pad, StrideH: int32(sh), StrideW: int32(sw), DilationHFactor: int32(dh), DilationWFactor: int32(dw)}
	c.replace(c.emit(schema.BuiltinOperatorCONV_2D, version, opts, []*ir.Value{x, w, b}, c.outs()...))
	return nil
}

// depthwiseConv2D: filter [h, w, in, mult] is reshaped to
// [1, h, w, in·mult]: output channel c·mult + m is input channel c with
// multiplier m in both layouts.
func depthwiseConv2D(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	f, err := c.in(1)
	if err != nil {
		return err
	}
	if !x.DType.IsFloat() {
		return fmt.Errorf("DepthwiseConv2dNative of %s is not supported (float only)", x.DType)
	}
	fs, err := static(f)
	if err != nil {
		return err
	}
	sh, sw, err := tfops.Window4(c.n, "strides", nil)
	if err != nil {
		return err
	}
	dh, dw, err := tfops.Window4(c.n, "dilations", []int64{1, 1, 1, 1})
	if err != nil {
		return err
	}
	x, pad, err := c.convPadding(x)
	if err != nil {
		return err
	}
	shape := ir.Shape{1, fs[0], fs[1], fs[2] * fs[3]}
	var w *ir.Value
	if f.Const != nil {
		t, err := f.Const.Reshaped(shape)
		if err != nil {
			return err
		}
		w = c.f.NewConst(c.n.Name+"/filter", t)
	} else {
		s, err := c.constInt32("filter/shape", shape, ir.Shape{4})
		if err != nil {
			return err
		}
		r := c.f.NewTFL(c.n.Name+"/filter", &ir.TFLOp{Builtin: schema.BuiltinOperatorRESHAPE, Version: 1, Options: options(&schema.ReshapeOptionsT{NewShape: int32s(shape)})},
			[]*ir.Value{f, s}, ir.TypeShape{DType: f.DType, Shape: shape})
		w = r.Outputs[0]
	}
	b, err := c.zeroBias(x.DType, fs[2]*fs[3])
	if err != nil {
		return err
	}
	version := int32(1)
	if dh != 1 || dw != 1 {
		version = 2
	}
	opts := &schema.DepthwiseConv2DOptionsT{Padding: pad, StrideH: int32(sh), StrideW: int32(sw), DepthMultiplier: int32(fs[3]),
		DilationHFactor: int32(dh), DilationWFactor: int32(dw)}
	c.replace(c.emit(schema.BuiltinOperatorDEPTHWISE_CONV_2D, version, opts, []*ir.Value{x, w, b}, c.outs()...))
	return nil
}

func pool(c *ctx) error {
	x, err := c.in(0)
	if err != nil {
		return err
	}
	kh, kw, err := tfops.Window4(c.n, "ksize", nil)
	if err != nil {
		return err
	}
	sh, sw, err := tfops.Window4(c.n, "strides", nil)
	if err != nil {
		return err
	}
	padding, err := c.n.AttrString("padding", "")
	if err != nil {
		return err
	}
	pad := schema.PaddingVALID
	switch padding {
	case "SAME":
		pad = schema.PaddingSAME
	case "VALID":
	default:
		return fmt.Errorf("padding %q is not SAME or VALID", padding)
	}
	code := schema.BuiltinOperatorMAX_POOL_2D
	if c.n.Op == "AvgPool" {
		code = schema.BuiltinOperatorAVERAGE_POOL_2D
	}
	opts := &schema.Pool2DOptionsT{Padding: pad, StrideH: int32(sh), StrideW: int32(sw), FilterHeight: int32(kh), FilterWidth: int32(kw)}
	return c.same(code, opts, x)
}

// batchNorm at inference: y = x·m + (offset − mean·m) with
// m = scale / sqrt(variance + epsilon), per channel (last axis), computed
// in float32 like TensorFlow's converter; the MUL and ADD then fold into a
// preceding convolution (package optimize).
func batchNorm(c *ctx) error {
	training, err := c.n.AttrBool("is_training", true)
	if err != nil {
		return err
	}
	if training {
		return fmt.Errorf("batch normalisation in training mode (is_training=true) is not supported")
	}
	format, err := c.n.AttrString("data_format", "NHWC")
	if err != nil {
		return err
	}
	if format != "NHWC" {
		return fmt.Errorf("data_format %q is not supported (only NHWC)", format)
	}
	eps, err := c.n.AttrFloat("epsilon", 0.0001)
	if err != nil {
		return err
	}
	x, err := c.in(0)
	if err != nil {
		return err
	}
	var p [4][]float32
	for i, what := range []string{"scale", "offset", "mean", "variance"} {
		t, err := c.constOf(i+1, what)
		if err != nil {
			return err
		}
		p[i] = t.Float32s()
	}
	k := len(p[0])
	for i := range p {
		if len(p[i]) != k {
			return fmt.Errorf("batch norm parameters have %d and %d values", k, len(p[i]))
		}
	}
	if s := x.Shape; s.Rank() > 0 && s[len(s)-1] >= 0 && s[len(s)-1] != k {
		return fmt.Errorf("batch norm of %d channels applied to shape %s", k, s)
	}
	mul := make([]float32, k)
	add := make([]float32, k)
	for i := range mul {
		mul[i] = p[0][i] * rsqrt32(p[3][i]+eps)
		add[i] = p[1][i] - p[2][i]*mul[i]
	}
	mv := c.f.NewConst(c.n.Name+"/multiplier", ir.FromFloat32s(ir.Shape{k}, mul))
	av := c.f.NewConst(c.n.Name+"/offset", ir.FromFloat32s(ir.Shape{k}, add))
	y := c.n.Outputs[0]
	m := c.f.NewTFL(c.n.Name+"/mul", &ir.TFLOp{Builtin: schema.BuiltinOperatorMUL, Version: 1, Options: options(&schema.MulOptionsT{})},
		[]*ir.Value{x, mv}, ir.TypeShape{DType: y.DType, Shape: y.Shape})
	a := c.emit(schema.BuiltinOperatorADD, 1, &schema.AddOptionsT{}, []*ir.Value{m.Outputs[0], av}, ir.TypeShape{DType: y.DType, Shape: y.Shape})
	a.Outputs[0].Name = y.Name
	c.f.ReplaceAllUses(y, a.Outputs[0])
	for i, o := range c.n.Outputs[1:] {
		if len(c.f.Uses()[o]) > 0 || c.f.IsResult(o) {
			return fmt.Errorf("output %d (batch statistics) is used; only y is available at inference", i+1)
		}
	}
	return nil
}

func int32s(s ir.Shape) []int32 {
	out := make([]int32, len(s))
	for i, d := range s {
		out[i] = int32(d)
	}
	return out
}
