package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// CONV_2D's int16x8 path (int64 sums; int32 sums with quantized_bias_type
// INT32, grouped and not) and its hybrid path with a uint8 filter, as
// single-operator models for TensorFlow Lite's recorded outputs
// (testdata/conv_2d_int16).

// conv16Gold describes one model.
type conv16Gold struct {
	batch, inH, inW, inC, outC, fH, fW, groups, sH, sW, dH, dW int
	pad                                                        schema.Padding
	act                                                        schema.ActivationFunctionType
	bias                                                       bool
	qbt                                                        schema.TensorType
}

func (g conv16Gold) options() *schema.BuiltinOptionsT {
	return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConv2DOptions, Value: &schema.Conv2DOptionsT{
		Padding: g.pad, StrideW: int32(g.sW), StrideH: int32(g.sH), DilationWFactor: int32(g.dW), DilationHFactor: int32(g.dH),
		FusedActivationFunction: g.act, QuantizedBiasType: g.qbt}}
}

// goldOutDim is TFLite's output size of one spatial dimension.
func goldOutDim(pad schema.Padding, in, f, stride, dilation int) int32 {
	if pad == schema.PaddingSAME {
		return int32((in + stride - 1) / stride)
	}
	eff := (f-1)*dilation + 1
	return int32((in - eff + stride) / stride)
}

func (g conv16Gold) outShape() []int32 {
	return []int32{int32(g.batch), goldOutDim(g.pad, g.inH, g.fH, g.sH, g.dH), goldOutDim(g.pad, g.inW, g.fW, g.sW, g.dW), int32(g.outC)}
}

func (g conv16Gold) filterShape() []int32 {
	return []int32{int32(g.outC), int32(g.fH), int32(g.fW), int32(g.inC / g.groups)}
}

// int16Model: int16 input and output, int8 per-channel filter.
func (g conv16Gold) int16Model(seed uint64) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	fs := g.filterShape()
	nw := g.outC * g.fH * g.fW * (g.inC / g.groups)
	inScale := float32(1.0 / 4096)
	wScales := goldScales(r, g.outC, 0.003, 0.012)
	k := g.fH * g.fW * g.inC / g.groups
	outScale := float32(goldStd(k, 32768*float64(inScale), 127*0.008) / 8000)
	x := b.Tensor("input", schema.TensorTypeINT16, []int32{int32(g.batch), int32(g.inH), int32(g.inW), int32(g.inC)}, optest.PerTensor(inScale, 0))
	w := b.Const("filter", schema.TensorTypeINT8, fs, goldPerChannel(wScales, 0), optest.I8(goldI8(r, nw, -127, 127)...))
	ins := []int32{x, w}
	if g.bias {
		bs := make([]float32, g.outC)
		for c := range bs {
			bs[c] = inScale * wScales[c]
		}
		if g.qbt == schema.TensorTypeINT32 {
			ins = append(ins, b.Const("bias", schema.TensorTypeINT32, []int32{int32(g.outC)}, goldPerChannel(bs, 0), optest.I32(goldI32(r, g.outC, -200000, 200000)...)))
		} else {
			v := make([]int64, g.outC)
			for c := range v {
				v[c] = int64(r.IntN(4000001) - 2000000)
			}
			ins = append(ins, b.Const("bias", schema.TensorTypeINT64, []int32{int32(g.outC)}, goldPerChannel(bs, 0), optest.I64(v...)))
		}
	}
	y := b.Tensor("output", schema.TensorTypeINT16, g.outShape(), optest.PerTensor(outScale, 0))
	return goldSingleOp(b, schema.BuiltinOperatorCONV_2D, 4, ins, []int32{y}, []int32{x}, g.options())
}

// hybridUint8Model: float input and output, uint8 filter (read as int8
// by TensorFlow Lite), float bias.
func (g conv16Gold) hybridUint8Model(seed uint64) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	nw := g.outC * g.fH * g.fW * g.inC
	wb := make([]uint8, nw)
	for i := range wb {
		wb[i] = uint8(r.IntN(256))
	}
	x := b.Tensor("input", schema.TensorTypeFLOAT32, []int32{int32(g.batch), int32(g.inH), int32(g.inW), int32(g.inC)}, nil)
	w := b.Const("filter", schema.TensorTypeUINT8, g.filterShape(), optest.PerTensor(0.004, 0), goldU8Bytes(wb))
	ins := []int32{x, w}
	if g.bias {
		ins = append(ins, b.Const("bias", schema.TensorTypeFLOAT32, []int32{int32(g.outC)}, nil, optest.F32(goldF32(r, g.outC, -0.5, 0.5)...)))
	}
	y := b.Tensor("output", schema.TensorTypeFLOAT32, g.outShape(), nil)
	return goldSingleOp(b, schema.BuiltinOperatorCONV_2D, 2, ins, []int32{y}, []int32{x}, g.options())
}

func conv16GoldVariants() []goldVariant {
	same, valid := schema.PaddingSAME, schema.PaddingVALID
	none, relu, relu6, reluN1 := schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU, schema.ActivationFunctionTypeRELU6, schema.ActivationFunctionTypeRELU_N1_TO_1
	i32 := schema.TensorTypeINT32
	exact := optest.Case{Exact: true}
	q := func(name string, g conv16Gold, seed uint64) goldVariant {
		return goldVariant{name: name, model: func() []byte { return g.int16Model(seed) }, tol: exact}
	}
	h := func(name string, g conv16Gold, seed uint64) goldVariant {
		return goldVariant{name: name, model: func() []byte { return g.hybridUint8Model(seed) }}
	}
	return []goldVariant{
		q("int16_int64_same_3x3", conv16Gold{1, 7, 6, 3, 5, 3, 3, 1, 1, 1, 1, 1, same, none, true, 0}, 1),
		q("int16_int64_s2_relu_batch2", conv16Gold{2, 8, 7, 8, 7, 3, 3, 1, 2, 2, 1, 1, same, relu, true, 0}, 2),
		q("int16_int64_dilated_valid", conv16Gold{1, 9, 9, 5, 3, 2, 3, 1, 1, 2, 2, 1, valid, relu6, true, 0}, 3), // TFLite requires a bias
		q("int16_int32_1x1", conv16Gold{1, 5, 5, 16, 9, 1, 1, 1, 1, 1, 1, 1, valid, none, true, i32}, 4),
		q("int16_int32_3x3_reluN1", conv16Gold{2, 6, 5, 6, 10, 3, 3, 1, 1, 2, 1, 1, same, reluN1, true, i32}, 5),
		q("int16_int32_grouped", conv16Gold{1, 6, 7, 6, 6, 3, 2, 3, 1, 1, 1, 1, same, none, true, i32}, 6),
		q("int16_int64_grouped_s2", conv16Gold{1, 6, 7, 8, 4, 3, 3, 2, 2, 2, 1, 1, same, relu, true, 0}, 7),
		q("int16_dscnn_first_layer", conv16Gold{1, 49, 10, 1, 13, 10, 4, 1, 2, 2, 1, 1, same, relu, true, 0}, 8),
		h("hybrid_uint8_filter", conv16Gold{1, 6, 5, 4, 7, 3, 3, 1, 1, 1, 1, 1, same, none, true, 0}, 9),
		h("hybrid_uint8_filter_s2_relu", conv16Gold{2, 7, 7, 3, 5, 3, 3, 1, 2, 2, 1, 1, valid, relu, true, 0}, 10),
	}
}

func TestRecordConv2DInt16Golden(t *testing.T) {
	goldRecord(t, "conv_2d_int16", 2000, conv16GoldVariants())
}

func TestConv2DInt16Golden(t *testing.T) {
	goldCheckOrSmoke(t, "conv_2d_int16", conv16GoldVariants())
}
