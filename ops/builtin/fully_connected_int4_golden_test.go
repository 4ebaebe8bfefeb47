package builtin_test

import (
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/schema"
)

// FULLY_CONNECTED with int4 weights (packed two to a byte) for int8,
// int16 and (at shapes TensorFlow Lite does not send to its 4-bit kernel)
// float inputs, as single-operator models for TensorFlow Lite's recorded
// outputs (testdata/fully_connected_int4).

type fc4Gold struct {
	in                 schema.TensorType
	batch, units, cols int
	perChannel, bias   bool
	act                schema.ActivationFunctionType
}

func packNibbles(v []int8) []byte {
	b := make([]byte, (len(v)+1)/2)
	for i, x := range v {
		n := byte(x) & 0xF
		if i%2 == 1 {
			n <<= 4
		}
		b[i/2] |= n
	}
	return b
}

func (g fc4Gold) model(seed uint64) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	scales := []float32{0.06}
	if g.perChannel {
		scales = goldScales(r, g.units, 0.02, 0.1)
	}
	w := b.Const("weights", schema.TensorTypeINT4, []int32{int32(g.units), int32(g.cols)}, goldPerChannel(scales, 0), packNibbles(goldI8(r, g.units*g.cols, -8, 7)))
	inS, outS := []int32{int32(g.batch), int32(g.cols)}, []int32{int32(g.batch), int32(g.units)}
	var x, y int32
	ins := []int32{}
	switch g.in {
	case schema.TensorTypeFLOAT32:
		x = b.Tensor("input", g.in, inS, nil)
		ins = append(ins, x, w)
		if g.bias {
			ins = append(ins, b.Const("bias", schema.TensorTypeFLOAT32, []int32{int32(g.units)}, nil, optest.F32(goldF32(r, g.units, -0.5, 0.5)...)))
		}
		y = b.Tensor("output", g.in, outS, nil)
	case schema.TensorTypeINT8:
		inScale := float32(0.02)
		x = b.Tensor("input", g.in, inS, optest.PerTensor(inScale, -5))
		ins = append(ins, x, w)
		if g.bias {
			bs := make([]float32, len(scales))
			for i, s := range scales {
				bs[i] = inScale * s
			}
			ins = append(ins, b.Const("bias", schema.TensorTypeINT32, []int32{int32(g.units)}, goldPerChannel(bs, 0), optest.I32(goldI32(r, g.units, -3000, 3000)...)))
		}
		outScale := float32(goldStd(g.cols, 128*float64(inScale), 8*0.06) / 40)
		y = b.Tensor("output", g.in, outS, optest.PerTensor(outScale, 3))
	default:
		inScale := float32(1.0 / 4096)
		x = b.Tensor("input", g.in, inS, optest.PerTensor(inScale, 0))
		ins = append(ins, x, w)
		if g.bias {
			bs := make([]float32, len(scales))
			for i, s := range scales {
				bs[i] = inScale * s
			}
			v := make([]int64, g.units)
			for i := range v {
				v[i] = int64(r.IntN(200001) - 100000)
			}
			ins = append(ins, b.Const("bias", schema.TensorTypeINT64, []int32{int32(g.units)}, goldPerChannel(bs, 0), optest.I64(v...)))
		}
		outScale := float32(goldStd(g.cols, 32768*float64(inScale), 8*0.06) / 8000)
		y = b.Tensor("output", g.in, outS, optest.PerTensor(outScale, 0))
	}
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{FusedActivationFunction: g.act}}
	return goldSingleOp(b, schema.BuiltinOperatorFULLY_CONNECTED, 10, ins, []int32{y}, []int32{x}, opts)
}

func fc4GoldVariants() []goldVariant {
	none, relu, relu6 := schema.ActivationFunctionTypeNONE, schema.ActivationFunctionTypeRELU, schema.ActivationFunctionTypeRELU6
	f32, i8, i16 := schema.TensorTypeFLOAT32, schema.TensorTypeINT8, schema.TensorTypeINT16
	exact := optest.Case{Exact: true}
	gs := []struct {
		name string
		g    fc4Gold
	}{
		{"int8_per_tensor_relu", fc4Gold{i8, 3, 7, 33, false, true, relu}},
		{"int8_per_channel_odd", fc4Gold{i8, 2, 5, 9, true, true, none}},
		{"int8_nobias", fc4Gold{i8, 1, 12, 64, true, false, relu6}},
		{"int16_int64_bias", fc4Gold{i16, 3, 6, 20, true, true, none}},
		{"int16_nobias_relu", fc4Gold{i16, 2, 4, 31, false, false, relu}},
		{"hybrid_odd_cols", fc4Gold{f32, 3, 9, 31, true, true, none}},
		{"hybrid_3_units", fc4Gold{f32, 2, 3, 64, false, true, relu}},
		{"hybrid_short_rows", fc4Gold{f32, 4, 16, 30, true, false, none}},
	}
	var vs []goldVariant
	for i, s := range gs {
		g, seed := s.g, uint64(i+1)
		v := goldVariant{name: s.name, model: func() []byte { return g.model(seed) }}
		if g.in != f32 {
			v.tol = exact
		}
		vs = append(vs, v)
	}
	return vs
}

func TestRecordFullyConnectedInt4Golden(t *testing.T) {
	goldRecord(t, "fully_connected_int4", 4000, fc4GoldVariants())
}

func TestFullyConnectedInt4Golden(t *testing.T) {
	goldCheckOrSmoke(t, "fully_connected_int4", fc4GoldVariants())
}
