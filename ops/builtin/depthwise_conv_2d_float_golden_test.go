//go:build amd64 || purego

package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Float DEPTHWISE_CONV_2D against TensorFlow Lite's outputs (builtin
// kernels, x86: an accumulator buffer starting at the bias, taps by filter
// row then column, multiplies and adds rounded apart), bit for bit
// (testdata/depthwise_conv_2d_float). The amd64 and portable kernels sum
// in that order; the NEON ones fuse, hence the build constraint.

type floatDwGold struct {
	inH, inW, inC, mult, fH, fW, s int
	pad                            schema.Padding
	act                            schema.ActivationFunctionType
}

func (g floatDwGold) model(seed uint64) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	outC := g.inC * g.mult
	x := b.Tensor("input", schema.TensorTypeFLOAT32, []int32{1, int32(g.inH), int32(g.inW), int32(g.inC)}, nil)
	w := b.Const("filter", schema.TensorTypeFLOAT32, []int32{1, int32(g.fH), int32(g.fW), int32(outC)}, nil, optest.F32(goldF32(r, g.fH*g.fW*outC, -1, 1)...))
	bias := b.Const("bias", schema.TensorTypeFLOAT32, []int32{int32(outC)}, nil, optest.F32(goldF32(r, outC, -1, 1)...))
	oh, ow := goldOutDim(g.pad, g.inH, g.fH, g.s, 1), goldOutDim(g.pad, g.inW, g.fW, g.s, 1)
	y := b.Tensor("output", schema.TensorTypeFLOAT32, []int32{1, oh, ow, int32(outC)}, nil)
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDepthwiseConv2DOptions, Value: &schema.DepthwiseConv2DOptionsT{
		Padding: g.pad, StrideW: int32(g.s), StrideH: int32(g.s), DepthMultiplier: int32(g.mult),
		DilationWFactor: 1, DilationHFactor: 1, FusedActivationFunction: g.act}}
	return goldSingleOp(b, schema.BuiltinOperatorDEPTHWISE_CONV_2D, 2, []int32{x, w, bias}, []int32{y}, []int32{x}, opts)
}

func floatDwGoldVariants() []goldVariant {
	same, valid := schema.PaddingSAME, schema.PaddingVALID
	none, relu6 := schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU6
	exact := optest.Case{Exact: true}
	v := func(name string, g floatDwGold, seed uint64) goldVariant {
		return goldVariant{name: name, model: func() []byte { return g.model(seed) }, tol: exact}
	}
	return []goldVariant{
		v("3x3_c24_same", floatDwGold{9, 10, 24, 1, 3, 3, 1, same, none}, 1),
		v("3x3_s2_c19_relu6", floatDwGold{11, 8, 19, 1, 3, 3, 2, same, relu6}, 2),
		v("5x5_c40_valid", floatDwGold{9, 9, 40, 1, 5, 5, 1, valid, none}, 3),
		v("3x3_mult2_c5", floatDwGold{6, 7, 5, 2, 3, 3, 1, same, none}, 4),
	}
}

func TestRecordDepthwiseConv2DFloatGolden(t *testing.T) {
	goldRecord(t, "depthwise_conv_2d_float", 6000, floatDwGoldVariants())
}

func TestDepthwiseConv2DFloatGolden(t *testing.T) {
	goldCheckOrSmoke(t, "depthwise_conv_2d_float", floatDwGoldVariants())
}
