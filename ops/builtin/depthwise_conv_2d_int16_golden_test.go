package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// DEPTHWISE_CONV_2D's int16x8 path (int64 bias) and hybrid path (float
// input, int8 per-channel filter, version 6) as single-operator models
// for TensorFlow Lite's recorded outputs (testdata/depthwise_conv_2d_int16).

// dw16Gold describes one model.
type dw16Gold struct {
	batch, inH, inW, inC, mult, fH, fW, sH, sW, dH, dW int
	pad                                                schema.Padding
	act                                                schema.ActivationFunctionType
	bias                                               bool
}

func (g dw16Gold) options() *schema.BuiltinOptionsT {
	return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDepthwiseConv2DOptions, Value: &schema.DepthwiseConv2DOptionsT{
		Padding: g.pad, StrideW: int32(g.sW), StrideH: int32(g.sH), DepthMultiplier: int32(g.mult),
		DilationWFactor: int32(g.dW), DilationHFactor: int32(g.dH), FusedActivationFunction: g.act}}
}

func (g dw16Gold) model(seed uint64, hybrid bool) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	outC := g.inC * g.mult
	inS := []int32{int32(g.batch), int32(g.inH), int32(g.inW), int32(g.inC)}
	outS := []int32{int32(g.batch), goldOutDim(g.pad, g.inH, g.fH, g.sH, g.dH), goldOutDim(g.pad, g.inW, g.fW, g.sW, g.dW), int32(outC)}
	wScales := goldScales(r, outC, 0.003, 0.012)
	w := b.Const("filter", schema.TensorTypeINT8, []int32{1, int32(g.fH), int32(g.fW), int32(outC)}, goldPerChannel(wScales, 3), optest.I8(goldI8(r, g.fH*g.fW*outC, -127, 127)...))
	var x, y, version int32
	var ins []int32
	if hybrid {
		version = 6
		x = b.Tensor("input", schema.TensorTypeFLOAT32, inS, nil)
		ins = []int32{x, w}
		if g.bias {
			ins = append(ins, b.Const("bias", schema.TensorTypeFLOAT32, []int32{int32(outC)}, nil, optest.F32(goldF32(r, outC, -0.5, 0.5)...)))
		}
		y = b.Tensor("output", schema.TensorTypeFLOAT32, outS, nil)
	} else {
		version = 5
		inScale := float32(1.0 / 4096)
		outScale := float32(goldStd(g.fH*g.fW, 32768*float64(inScale), 127*0.008) / 8000)
		x = b.Tensor("input", schema.TensorTypeINT16, inS, optest.PerTensor(inScale, 0))
		ins = []int32{x, w}
		if g.bias {
			bs := make([]float32, outC)
			v := make([]int64, outC)
			for c := range v {
				bs[c] = inScale * wScales[c]
				v[c] = int64(r.IntN(400001) - 200000)
			}
			ins = append(ins, b.Const("bias", schema.TensorTypeINT64, []int32{int32(outC)}, goldPerChannel(bs, 0), optest.I64(v...)))
		}
		y = b.Tensor("output", schema.TensorTypeINT16, outS, optest.PerTensor(outScale, 0))
	}
	return goldSingleOp(b, schema.BuiltinOperatorDEPTHWISE_CONV_2D, version, ins, []int32{y}, []int32{x}, g.options())
}

func dw16GoldVariants() []goldVariant {
	same, valid := schema.PaddingSAME, schema.PaddingVALID
	none, relu, relu6, reluN1 := schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU, schema.ActivationFunctionTypeRELU6, schema.ActivationFunctionTypeRELU_N1_TO_1
	exact := optest.Case{Exact: true}
	shapes := []struct {
		name string
		g    dw16Gold
	}{
		{"3x3_same", dw16Gold{1, 7, 6, 3, 1, 3, 3, 1, 1, 1, 1, same, none, true}},
		{"mult2_s2_relu_batch2", dw16Gold{2, 6, 7, 4, 2, 3, 3, 2, 2, 1, 1, same, relu, true}},
		{"mult3_dilated_valid", dw16Gold{1, 9, 8, 5, 3, 3, 2, 1, 2, 2, 1, valid, relu6, true}}, // TFLite's hybrid kernel reads the bias unchecked
		{"dscnn_64ch", dw16Gold{1, 25, 5, 64, 1, 3, 3, 1, 1, 1, 1, same, relu, true}},
		{"5x5_odd_reluN1", dw16Gold{2, 5, 5, 7, 1, 5, 5, 1, 1, 1, 1, same, reluN1, true}},
	}
	var vs []goldVariant
	for i, s := range shapes {
		g, seed := s.g, uint64(i+1)
		vs = append(vs,
			goldVariant{name: "int16_" + s.name, model: func() []byte { return g.model(seed, false) }, tol: exact},
			goldVariant{name: "hybrid_" + s.name, model: func() []byte { return g.model(seed, true) }})
	}
	return vs
}

func TestRecordDepthwiseConv2DInt16Golden(t *testing.T) {
	goldRecord(t, "depthwise_conv_2d_int16", 3000, dw16GoldVariants())
}

func TestDepthwiseConv2DInt16Golden(t *testing.T) {
	goldCheckOrSmoke(t, "depthwise_conv_2d_int16", dw16GoldVariants())
}
