//go:build purego && amd64 && !amd64.v3

package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Float CONV_2D against TensorFlow Lite's outputs (builtin kernels, x86
// without FMA: im2col, Eigen's GEMM from zero, then the bias), bit for bit
// (testdata/conv_2d_float). Only the portable kernels without fused
// multiply-adds (purego on amd64 below v3) sum in that order; the
// assembly GEMMs start at the bias and fuse, and differ by float rounding.
// The order matters for dynamic-range models: a last-ulp difference in a
// float convolution's output can flip the input quantisation of the
// hybrid operator after it (mobilenet_v2_035_96_embedder of the corpus
// differed by 0.09 that way). Not matched yet: output channels that
// Eigen's GEMM handles in its one-packet remainder path (with 20 output
// channels, 16..19 differ by an ulp), and single-pixel products, which
// Eigen runs as a matrix × vector product in another order.

// floatConvGold describes one model.
type floatConvGold struct {
	batch, inH, inW, inC, outC, fH, fW, s int
	pad                                   schema.Padding
	act                                   schema.ActivationFunctionType
}

func (g floatConvGold) model(seed uint64) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	n := g.outC * g.fH * g.fW * g.inC
	x := b.Tensor("input", schema.TensorTypeFLOAT32, []int32{int32(g.batch), int32(g.inH), int32(g.inW), int32(g.inC)}, nil)
	w := b.Const("filter", schema.TensorTypeFLOAT32, []int32{int32(g.outC), int32(g.fH), int32(g.fW), int32(g.inC)}, nil, optest.F32(goldF32(r, n, -1, 1)...))
	bias := b.Const("bias", schema.TensorTypeFLOAT32, []int32{int32(g.outC)}, nil, optest.F32(goldF32(r, g.outC, -1, 1)...))
	oh, ow := goldOutDim(g.pad, g.inH, g.fH, g.s, 1), goldOutDim(g.pad, g.inW, g.fW, g.s, 1)
	y := b.Tensor("output", schema.TensorTypeFLOAT32, []int32{int32(g.batch), oh, ow, int32(g.outC)}, nil)
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConv2DOptions, Value: &schema.Conv2DOptionsT{
		Padding: g.pad, StrideW: int32(g.s), StrideH: int32(g.s), DilationWFactor: 1, DilationHFactor: 1, FusedActivationFunction: g.act}}
	return goldSingleOp(b, schema.BuiltinOperatorCONV_2D, 1, []int32{x, w, bias}, []int32{y}, []int32{x}, opts)
}

func floatConvGoldVariants() []goldVariant {
	same, valid := schema.PaddingSAME, schema.PaddingVALID
	none, relu6 := schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU6
	exact := optest.Case{Exact: true}
	v := func(name string, g floatConvGold, seed uint64) goldVariant {
		return goldVariant{name: name, model: func() []byte { return g.model(seed) }, tol: exact}
	}
	return []goldVariant{
		v("3x3_s2_same_relu6", floatConvGold{1, 16, 16, 3, 16, 3, 3, 2, same, relu6}, 1),
		v("1x1_k16", floatConvGold{1, 8, 8, 16, 24, 1, 1, 1, valid, none}, 2),
		v("1x1_k48_batch2", floatConvGold{2, 6, 6, 48, 8, 1, 1, 1, same, relu6}, 3),
		v("3x3_k72_valid", floatConvGold{1, 7, 7, 8, 24, 3, 3, 1, valid, none}, 4),
	}
}

func TestRecordConv2DFloatGolden(t *testing.T) {
	goldRecord(t, "conv_2d_float", 4000, floatConvGoldVariants())
}

func TestConv2DFloatGolden(t *testing.T) {
	goldCheckOrSmoke(t, "conv_2d_float", floatConvGoldVariants())
}
