package builtin_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/schema"
)

// FULLY_CONNECTED with int4 weights (packed two to a byte) for int8,
// int16 and (at shapes TensorFlow Lite does not send to its 4-bit kernel)
// float inputs, as single-operator models for TensorFlow Lite's recorded
// outputs (testdata/fully_connected_int4); and blockwise-quantised int4
// weights (float16 block scales in a tensor of their own), which
// TensorFlow Lite runs for float input at the shapes of its 4-bit kernel.

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
	for i, b := range []struct {
		name                         string
		batch, units, cols, bs, bias int
	}{
		{"blockwise_32", 1, 4, 64, 32, 1},
		{"blockwise_16_batch3", 3, 9, 96, 16, 0},
		{"blockwise_odd_block", 2, 5, 102, 17, 1},
	} {
		b, seed := b, uint64(50+i)
		vs = append(vs, goldVariant{name: b.name, model: func() []byte {
			return blockwiseModel(seed, b.batch, b.units, b.cols, b.bs, b.bias == 1, schema.TensorTypeFLOAT16, 0)
		}})
	}
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

// blockwiseModel builds a float FULLY_CONNECTED with blockwise int4
// weights; scaleType and extraScales make hostile forms of it.
func blockwiseModel(seed uint64, batch, units, cols, bs int, bias bool, scaleType schema.TensorType, extraScales int) []byte {
	r := goldRNG(seed)
	b := optest.NewBuilder()
	n := units*cols/bs + extraScales
	half := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		// Float16 values in [2^-6, 2^-4).
		binary.LittleEndian.PutUint16(half[2*i:], uint16(9+r.IntN(2))<<10|uint16(r.IntN(1024)))
	}
	shape := []int32{int32(units), int32(n / units)}
	if n%units != 0 {
		shape = []int32{int32(n)}
	}
	if scaleType == schema.TensorTypeFLOAT32 {
		half = append(half, half...)
	}
	sc := b.Const("block_scales", scaleType, shape, nil, half)
	q := &optest.Quant{Blockwise: &schema.BlockwiseQuantizationT{Scales: sc, ZeroPoints: -1, BlockSize: int32(bs)}}
	w := b.Const("weights", schema.TensorTypeINT4, []int32{int32(units), int32(cols)}, q, packNibbles(goldI8(r, units*cols, -8, 7)))
	x := b.Tensor("input", schema.TensorTypeFLOAT32, []int32{int32(batch), int32(cols)}, nil)
	ins := []int32{x, w}
	if bias {
		ins = append(ins, b.Const("bias", schema.TensorTypeFLOAT32, []int32{int32(units)}, nil, optest.F32(goldF32(r, units, -0.5, 0.5)...)))
	}
	y := b.Tensor("output", schema.TensorTypeFLOAT32, []int32{int32(batch), int32(units)}, nil)
	opts := &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions, Value: &schema.FullyConnectedOptionsT{AsymmetricQuantizeInputs: true}}
	return goldSingleOp(b, schema.BuiltinOperatorFULLY_CONNECTED, 6, ins, []int32{y}, []int32{x}, opts)
}

// Hostile blockwise models end in errors naming the problem.
func TestFullyConnectedBlockwiseHostile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model []byte
		want  string
	}{
		{"float32 scales", blockwiseModel(1, 1, 4, 64, 32, false, schema.TensorTypeFLOAT32, 0), "need a float16 constant"},
		{"extra scales", blockwiseModel(1, 1, 4, 64, 32, false, schema.TensorTypeFLOAT16, 3), "blockwise scales"},
		{"block not dividing", blockwiseModel(1, 1, 4, 64, 48, false, schema.TensorTypeFLOAT16, 0), "block size 48"},
		{"small layer", blockwiseModel(1, 1, 3, 64, 32, false, schema.TensorTypeFLOAT16, 0), "units ≥ 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := func() error {
				m, err := interpreter.LoadBytes(tc.model)
				if err != nil {
					return err
				}
				defer m.Close()
				it, err := interpreter.New(m, nil)
				if err != nil {
					return err
				}
				defer it.Close()
				return it.AllocateTensors()
			}()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestRecordFullyConnectedInt4Golden(t *testing.T) {
	goldRecord(t, "fully_connected_int4", 4000, fc4GoldVariants())
}

func TestFullyConnectedInt4Golden(t *testing.T) {
	goldCheckOrSmoke(t, "fully_connected_int4", fc4GoldVariants())
}
