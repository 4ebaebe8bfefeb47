package builtin_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// The hybrid (dynamic-range) paths of CONV_2D and DEPTHWISE_CONV_2D:
// float32 input and output, int8 filter, float bias, as single-operator
// models for TensorFlow Lite's recorded outputs (testdata/conv_hybrid),
// compared bit for bit. They cover conv.cc's EvalHybridPerChannel
// (per-channel scales that differ: asymmetric per-batch input
// quantisation, zero-point padding, row-sum correction) and EvalHybrid
// (one scale, or several equal ones: symmetric quantisation), 1×1 direct
// and im2col / dilated im2col shapes, batches, every fused activation, and
// depthwise_conv.cc's EvalHybridPerChannel with depth multipliers. Inputs
// are drawn over [-1, 1), as ReLU6 outputs (non-negative with many zeros,
// so the asymmetric zero point saturates at -128, as in MobileNet-class
// dynamic-range models), and all zero (TFLite's scale 1, offset 0).

// hybridGold describes one model.
type hybridGold struct {
	dw                                                 bool
	batch, inH, inW, inC, outC, fH, fW, sH, sW, dH, dW int
	pad                                                schema.Padding
	act                                                schema.ActivationFunctionType
	scales                                             int // 0: per channel, differing; 1: one scale; 2: per channel, all equal
	bias                                               bool
}

func (g hybridGold) model(seed uint64) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	var fs []int32
	var k int
	if g.dw {
		fs = []int32{1, int32(g.fH), int32(g.fW), int32(g.outC)}
		k = g.fH * g.fW
	} else {
		fs = []int32{int32(g.outC), int32(g.fH), int32(g.fW), int32(g.inC)}
		k = g.fH * g.fW * g.inC
	}
	qdim := int32(0)
	if g.dw {
		qdim = 3
	}
	var fq *optest.Quant
	switch g.scales {
	case 0:
		fq = goldPerChannel(goldScales(r, g.outC, 0.002, 0.02), qdim)
	case 1:
		fq = optest.PerTensor(0.01, 0)
	default:
		s := make([]float32, g.outC)
		for c := range s {
			s[c] = 0.0075
		}
		fq = goldPerChannel(s, qdim)
	}
	x := b.Tensor("input", schema.TensorTypeFLOAT32, []int32{int32(g.batch), int32(g.inH), int32(g.inW), int32(g.inC)}, nil)
	w := b.Const("filter", schema.TensorTypeINT8, fs, fq, optest.I8(goldI8(r, g.outC*k, -127, 127)...))
	ins := []int32{x, w}
	if g.bias {
		ins = append(ins, b.Const("bias", schema.TensorTypeFLOAT32, []int32{int32(g.outC)}, nil, optest.F32(goldF32(r, g.outC, -0.5, 0.5)...)))
	} else {
		ins = append(ins, -1)
	}
	oh := goldOutDim(g.pad, g.inH, g.fH, g.sH, g.dH)
	ow := goldOutDim(g.pad, g.inW, g.fW, g.sW, g.dW)
	y := b.Tensor("output", schema.TensorTypeFLOAT32, []int32{int32(g.batch), oh, ow, int32(g.outC)}, nil)
	if g.dw {
		opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDepthwiseConv2DOptions, Value: &schema.DepthwiseConv2DOptionsT{
			Padding: g.pad, StrideW: int32(g.sW), StrideH: int32(g.sH), DepthMultiplier: int32(g.outC / g.inC),
			FusedActivationFunction: g.act, DilationWFactor: int32(g.dW), DilationHFactor: int32(g.dH)}}
		return goldSingleOp(b, schema.BuiltinOperatorDEPTHWISE_CONV_2D, 6, ins, []int32{y}, []int32{x}, opts)
	}
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConv2DOptions, Value: &schema.Conv2DOptionsT{
		Padding: g.pad, StrideW: int32(g.sW), StrideH: int32(g.sH), DilationWFactor: int32(g.dW), DilationHFactor: int32(g.dH),
		FusedActivationFunction: g.act}}
	return goldSingleOp(b, schema.BuiltinOperatorCONV_2D, 5, ins, []int32{y}, []int32{x}, opts)
}

// relu6Input draws what a ReLU6 leaves: 0 with probability 0.4, else
// uniform over [0, 6).
func relu6Input(r *rand.Rand, _ int, _ ops.DataType) float64 {
	if r.Float64() < 0.4 {
		return 0
	}
	return 6 * r.Float64()
}

func zeroInput(*rand.Rand, int, ops.DataType) float64 { return 0 }

func hybridGoldVariants() []goldVariant {
	same, valid := schema.PaddingSAME, schema.PaddingVALID
	none, relu, relu6, reluN1 := schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU, schema.ActivationFunctionTypeRELU6, schema.ActivationFunctionTypeRELU_N1_TO_1
	exact := optest.Case{Exact: true}
	v := func(name string, g hybridGold, seed uint64, gen optest.InputGen) goldVariant {
		return goldVariant{name: name, model: func() []byte { return g.model(seed) }, gen: gen, tol: exact}
	}
	return []goldVariant{
		// CONV_2D, per-channel scales (EvalHybridPerChannel).
		v("conv_pc_1x1", hybridGold{false, 1, 6, 6, 16, 24, 1, 1, 1, 1, 1, 1, same, none, 0, true}, 1, nil),
		v("conv_pc_1x1_relu6_input", hybridGold{false, 1, 6, 6, 16, 24, 1, 1, 1, 1, 1, 1, same, relu6, 0, true}, 2, relu6Input),
		v("conv_pc_3x3_s2_same", hybridGold{false, 1, 9, 8, 3, 8, 3, 3, 2, 2, 1, 1, same, relu6, 0, true}, 3, nil),
		v("conv_pc_3x3_same_relu6_input", hybridGold{false, 2, 7, 6, 5, 7, 3, 3, 1, 1, 1, 1, same, relu, 0, true}, 4, relu6Input),
		v("conv_pc_dilated_valid", hybridGold{false, 1, 9, 9, 4, 6, 3, 2, 1, 1, 2, 2, valid, reluN1, 0, true}, 5, nil),
		v("conv_pc_2x2_batch3", hybridGold{false, 3, 5, 5, 6, 5, 2, 2, 1, 1, 1, 1, same, none, 0, true}, 6, nil),
		v("conv_pc_zero_input", hybridGold{false, 1, 4, 4, 8, 6, 3, 3, 1, 1, 1, 1, same, none, 0, true}, 7, zeroInput),
		// CONV_2D, one scale or equal ones (EvalHybrid).
		v("conv_pt_1x1_relu6_input", hybridGold{false, 1, 6, 6, 16, 24, 1, 1, 1, 1, 1, 1, same, relu6, 1, true}, 8, relu6Input),
		v("conv_pt_3x3_s2_batch2", hybridGold{false, 2, 8, 7, 3, 9, 3, 3, 2, 2, 1, 1, same, none, 1, true}, 9, nil),
		v("conv_equal_scales_3x3", hybridGold{false, 1, 7, 7, 4, 6, 3, 3, 1, 1, 1, 1, valid, relu, 2, true}, 10, relu6Input),
		v("conv_pt_dilated_same", hybridGold{false, 1, 8, 8, 3, 4, 3, 3, 1, 1, 2, 2, same, none, 1, true}, 11, nil),
		// DEPTHWISE_CONV_2D (always EvalHybridPerChannel).
		v("dw_3x3_same", hybridGold{true, 1, 8, 8, 16, 16, 3, 3, 1, 1, 1, 1, same, none, 0, true}, 12, nil),
		v("dw_3x3_s2_relu6_input", hybridGold{true, 1, 9, 9, 24, 24, 3, 3, 2, 2, 1, 1, same, relu6, 0, true}, 13, relu6Input),
		v("dw_mult2_valid_batch2", hybridGold{true, 2, 6, 7, 5, 10, 3, 2, 1, 1, 1, 1, valid, relu, 0, true}, 14, nil),
		v("dw_dilated_same_reluN1", hybridGold{true, 1, 9, 8, 6, 6, 3, 3, 1, 1, 2, 2, same, reluN1, 0, true}, 15, relu6Input),
		v("dw_equal_scales", hybridGold{true, 1, 6, 6, 8, 8, 3, 3, 1, 1, 1, 1, same, none, 2, true}, 16, nil),
		v("dw_zero_input", hybridGold{true, 1, 5, 5, 4, 4, 3, 3, 1, 1, 1, 1, same, none, 0, true}, 17, zeroInput),
	}
}

func TestRecordConvHybridGolden(t *testing.T) {
	goldRecord(t, "conv_hybrid", 3000, hybridGoldVariants())
}

func TestConvHybridGolden(t *testing.T) {
	goldCheckOrSmoke(t, "conv_hybrid", hybridGoldVariants())
}
