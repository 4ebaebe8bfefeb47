package builtin_test

import (
	"path/filepath"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// TRANSPOSE_CONV against TensorFlow Lite's recorded outputs: every type
// path (float32, hybrid, int8 per-tensor and per-channel, uint8, int16x8
// with int64 and with int32 sums), SAME and VALID padding, strides, odd
// channel counts, batches, bias or none, every version's features.

// tconvGold describes one TRANSPOSE_CONV model.
type tconvGold struct {
	batch, inH, inW, inC, outH, outW, outC, fH, fW, sH, sW int
	pad                                                    schema.Padding
	act                                                    schema.ActivationFunctionType
	bias                                                   bool
	version                                                int32
	qbt                                                    schema.TensorType // quantized_bias_type (v5)
}

func (g tconvGold) options() *schema.BuiltinOptionsT {
	return &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsTransposeConvOptions, Value: &schema.TransposeConvOptionsT{
		Padding: g.pad, StrideW: int32(g.sW), StrideH: int32(g.sH), FusedActivationFunction: g.act, QuantizedBiasType: g.qbt}}
}

func (g tconvGold) shapes() (in, w, out []int32) {
	return []int32{int32(g.batch), int32(g.inH), int32(g.inW), int32(g.inC)},
		[]int32{int32(g.outC), int32(g.fH), int32(g.fW), int32(g.inC)},
		[]int32{int32(g.batch), int32(g.outH), int32(g.outW), int32(g.outC)}
}

// floatModel: float32 input, float32 or int8 (hybrid) weights.
func (g tconvGold) floatModel(seed uint64, hybrid, perChannel bool) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	inS, wS, outS := g.shapes()
	nw := g.outC * g.fH * g.fW * g.inC
	shape := b.Const("output_shape", schema.TensorTypeINT32, []int32{4}, nil, optest.I32(outS...))
	var w int32
	if hybrid {
		var q *optest.Quant
		if perChannel {
			q = goldPerChannel(goldScales(r, g.outC, 0.002, 0.01), 0)
		} else {
			q = optest.PerTensor(0.005, 0)
		}
		w = b.Const("weights", schema.TensorTypeINT8, wS, q, optest.I8(goldI8(r, nw, -127, 127)...))
	} else {
		w = b.Const("weights", schema.TensorTypeFLOAT32, wS, nil, optest.F32(goldF32(r, nw, -1, 1)...))
	}
	x := b.Tensor("input", schema.TensorTypeFLOAT32, inS, nil)
	ins := []int32{shape, w, x}
	if g.bias {
		ins = append(ins, b.Const("bias", schema.TensorTypeFLOAT32, []int32{int32(g.outC)}, nil, optest.F32(goldF32(r, g.outC, -0.5, 0.5)...)))
	}
	y := b.Tensor("output", schema.TensorTypeFLOAT32, outS, nil)
	return goldSingleOp(b, schema.BuiltinOperatorTRANSPOSE_CONV, g.version, ins, []int32{y}, []int32{x}, g.options())
}

// quantModel: int8, uint8 or int16 input (int16 with int8 weights).
func (g tconvGold) quantModel(seed uint64, typ schema.TensorType, perChannel bool) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	inS, wS, outS := g.shapes()
	nw := g.outC * g.fH * g.fW * g.inC
	k := g.inC * g.fH * g.fW / (g.sH * g.sW)
	k = max(k, 1)
	shape := b.Const("output_shape", schema.TensorTypeINT32, []int32{4}, nil, optest.I32(outS...))
	var x, w, y int32
	var biasT int32 = -1
	switch typ {
	case schema.TensorTypeINT8:
		inScale := float32(0.03)
		wScales := []float32{0.008}
		wq := optest.PerTensor(0.008, 0)
		if perChannel {
			wScales = goldScales(r, g.outC, 0.003, 0.012)
			wq = goldPerChannel(wScales, 0)
		}
		outScale := float32(goldStd(k, 128*float64(inScale), 127*0.008) / 40)
		x = b.Tensor("input", typ, inS, optest.PerTensor(inScale, 5))
		w = b.Const("weights", typ, wS, wq, optest.I8(goldI8(r, nw, -127, 127)...))
		y = b.Tensor("output", typ, outS, optest.PerTensor(outScale, -3))
		if g.bias {
			bs := make([]float32, g.outC)
			for c := range bs {
				bs[c] = inScale * wScales[min(c, len(wScales)-1)]
			}
			biasT = b.Const("bias", schema.TensorTypeINT32, []int32{int32(g.outC)}, goldPerChannel(bs, 0), optest.I32(goldI32(r, g.outC, -20000, 20000)...))
		}
	case schema.TensorTypeUINT8:
		inScale, wScale := float32(0.02), float32(0.01)
		outScale := float32(goldStd(k, 128*float64(inScale), 128*float64(wScale)) / 40)
		x = b.Tensor("input", typ, inS, optest.PerTensor(inScale, 120))
		wb := make([]uint8, nw)
		for i := range wb {
			wb[i] = uint8(r.IntN(256))
		}
		w = b.Const("weights", typ, wS, optest.PerTensor(wScale, 131), goldU8Bytes(wb))
		y = b.Tensor("output", typ, outS, optest.PerTensor(outScale, 128))
		if g.bias {
			biasT = b.Const("bias", schema.TensorTypeINT32, []int32{int32(g.outC)}, optest.PerTensor(inScale*wScale, 0), optest.I32(goldI32(r, g.outC, -20000, 20000)...))
		}
	case schema.TensorTypeINT16:
		inScale := float32(1.0 / 4096)
		wScales := goldScales(r, g.outC, 0.003, 0.012)
		outScale := float32(goldStd(k, 32768*float64(inScale), 127*0.008) / 3000)
		x = b.Tensor("input", typ, inS, optest.PerTensor(inScale, 0))
		w = b.Const("weights", schema.TensorTypeINT8, wS, goldPerChannel(wScales, 0), optest.I8(goldI8(r, nw, -127, 127)...))
		y = b.Tensor("output", typ, outS, optest.PerTensor(outScale, 0))
		if g.bias {
			bs := make([]float32, g.outC)
			for c := range bs {
				bs[c] = inScale * wScales[c]
			}
			if g.qbt == schema.TensorTypeINT32 {
				biasT = b.Const("bias", schema.TensorTypeINT32, []int32{int32(g.outC)}, goldPerChannel(bs, 0), optest.I32(goldI32(r, g.outC, -200000, 200000)...))
			} else {
				v := make([]int64, g.outC)
				for c := range v {
					v[c] = int64(r.IntN(4000001) - 2000000)
				}
				biasT = b.Const("bias", schema.TensorTypeINT64, []int32{int32(g.outC)}, goldPerChannel(bs, 0), optest.I64(v...))
			}
		}
	}
	ins := []int32{shape, w, x}
	if g.bias {
		ins = append(ins, biasT)
	}
	return goldSingleOp(b, schema.BuiltinOperatorTRANSPOSE_CONV, g.version, ins, []int32{y}, []int32{x}, g.options())
}

func tconvGoldVariants() []goldVariant {
	same, valid := schema.PaddingSAME, schema.PaddingVALID
	none, relu, relu6, reluN1 := schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU, schema.ActivationFunctionTypeRELU6, schema.ActivationFunctionTypeRELU_N1_TO_1
	exact := optest.Case{Exact: true}
	f := func(name string, g tconvGold, seed uint64) goldVariant {
		return goldVariant{name: name, model: func() []byte { return g.floatModel(seed, false, false) }}
	}
	h := func(name string, g tconvGold, seed uint64, perChannel bool) goldVariant {
		return goldVariant{name: name, model: func() []byte { return g.floatModel(seed, true, perChannel) }}
	}
	qv := func(name string, g tconvGold, seed uint64, typ schema.TensorType, perChannel bool) goldVariant {
		return goldVariant{name: name, model: func() []byte { return g.quantModel(seed, typ, perChannel) }, tol: exact}
	}
	return []goldVariant{
		f("float_same_s2_bias", tconvGold{1, 5, 4, 3, 10, 8, 6, 3, 3, 2, 2, same, none, true, 3, 0}, 1),
		f("float_valid_s1_nobias", tconvGold{1, 4, 5, 2, 6, 7, 3, 3, 3, 1, 1, valid, none, false, 1, 0}, 2),
		f("float_relu6_s1x2_batch2", tconvGold{2, 3, 4, 5, 3, 8, 4, 2, 3, 1, 2, same, relu6, true, 4, 0}, 3),
		f("float_odd_channels_s3", tconvGold{1, 3, 3, 17, 9, 8, 19, 4, 4, 3, 3, same, relu, true, 4, 0}, 4),
		f("float_valid_s2_extra", tconvGold{1, 3, 3, 8, 8, 7, 16, 3, 2, 2, 2, valid, reluN1, true, 4, 0}, 5),
		f("float_1x1", tconvGold{1, 4, 4, 16, 4, 4, 9, 1, 1, 1, 1, valid, none, true, 3, 0}, 6),
		h("hybrid_per_tensor", tconvGold{1, 4, 4, 6, 8, 8, 5, 3, 3, 2, 2, same, none, true, 3, 0}, 7, false),
		h("hybrid_per_channel_relu", tconvGold{2, 3, 5, 4, 5, 11, 7, 3, 3, 1, 2, valid, relu, false, 4, 0}, 8, true),
		qv("int8_per_channel_bias_relu", tconvGold{1, 4, 4, 8, 8, 8, 12, 3, 3, 2, 2, same, relu, true, 4, 0}, 9, schema.TensorTypeINT8, true),
		qv("int8_per_tensor_nobias", tconvGold{2, 3, 3, 5, 5, 5, 3, 3, 3, 1, 1, valid, none, false, 2, 0}, 10, schema.TensorTypeINT8, false),
		qv("int8_per_channel_odd", tconvGold{1, 5, 3, 19, 10, 6, 17, 2, 3, 2, 2, same, relu6, true, 4, 0}, 11, schema.TensorTypeINT8, true),
		qv("uint8_bias", tconvGold{1, 4, 4, 3, 8, 8, 4, 3, 3, 2, 2, same, none, true, 3, 0}, 12, schema.TensorTypeUINT8, false),
		qv("uint8_nobias_valid", tconvGold{1, 3, 4, 6, 5, 6, 5, 3, 3, 1, 1, valid, relu, false, 4, 0}, 13, schema.TensorTypeUINT8, false),
		qv("int16_int64_bias", tconvGold{1, 4, 4, 6, 8, 8, 5, 3, 3, 2, 2, same, none, true, 3, 0}, 14, schema.TensorTypeINT16, true),
		qv("int16_int32_bias_v5", tconvGold{1, 4, 3, 7, 8, 6, 6, 3, 3, 2, 2, same, relu, true, 5, schema.TensorTypeINT32}, 15, schema.TensorTypeINT16, true),
		qv("int16_nobias", tconvGold{2, 3, 3, 4, 5, 5, 3, 3, 3, 1, 1, valid, none, false, 2, 0}, 16, schema.TensorTypeINT16, true),
	}
}

func TestRecordTransposeConvGolden(t *testing.T) {
	goldRecord(t, "transpose_conv", 1000, tconvGoldVariants())
}

func TestTransposeConvGolden(t *testing.T) {
	optest.Check(t, filepath.Join("testdata", "transpose_conv"), nil)
}
