//go:build amd64 || purego

package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// Float CONV_2D against TensorFlow Lite's outputs (builtin kernels, x86
// without FMA: im2col, Eigen's GEMM from zero, then the bias), bit for bit
// (testdata/conv_2d_float), on every path of arch.GemmF32Tile's order:
// in-order sums (channels below a multiple of 8), the 4-channel and the
// n%4-channel remainders (20 and 19 channels), reduction blocks (depth
// 864 and 1400 > Eigen's kc of 680), the matrix × vector product (one
// output pixel, one output channel) and two images whose pixel count is
// not a multiple of 4. The amd64 kernels and the portable ones (which
// never fuse) follow that order; the NEON kernels fuse and start at the
// bias, hence the build constraint. The order matters for dynamic-range
// models: a last-ulp difference in a float convolution's output can flip
// the input quantisation of the hybrid operator after it
// (mobilenet_v2_035_96_embedder of the corpus differed by 0.09 that way).

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
		v("1x1_c20", floatConvGold{1, 5, 5, 40, 20, 1, 1, 1, valid, none}, 5),
		v("3x3_c19_relu6", floatConvGold{1, 6, 7, 12, 19, 3, 3, 1, same, relu6}, 6),
		v("3x3_k864", floatConvGold{1, 5, 5, 96, 16, 3, 3, 1, same, none}, 7),
		v("1x1_k1400_c13", floatConvGold{1, 3, 3, 1400, 13, 1, 1, 1, valid, none}, 8),
		v("1pixel_k300", floatConvGold{1, 1, 1, 300, 37, 1, 1, 1, valid, none}, 9),
		v("c1_k75", floatConvGold{1, 6, 6, 3, 1, 5, 5, 1, same, none}, 10),
		v("batch2_odd_c12", floatConvGold{2, 5, 3, 30, 12, 3, 3, 1, same, none}, 11),
	}
}

func TestRecordConv2DFloatGolden(t *testing.T) {
	goldRecord(t, "conv_2d_float", 4000, floatConvGoldVariants())
}

func TestConv2DFloatGolden(t *testing.T) {
	goldCheckOrSmoke(t, "conv_2d_float", floatConvGoldVariants())
}
