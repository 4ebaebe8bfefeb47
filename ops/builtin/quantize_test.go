package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Vectors from TFLite's quantize_test.cc (UINT8, INT8, Int16 and the
// requantisation cases) and dequantize_test.cc (Uint8, Int8, Float16,
// per-channel), plus the rounding and saturation rules of AffineQuantize.

var quantReal = []float32{-63.5, -63, -62.5, -62, -61.5, 62, 62.5, 63, 63.5, 64}

func TestQuantizeFloat(t *testing.T) {
	for _, tc := range []struct {
		typ   ops.DataType
		scale float32
		zp    int64
		in    []float32
		want  []int
	}{
		{ops.Uint8, 0.5, 127, quantReal, []int{0, 1, 2, 3, 4, 251, 252, 253, 254, 255}},
		{ops.Int8, 0.5, -1, quantReal, []int{-128, -127, -126, -125, -124, 123, 124, 125, 126, 127}},
		{ops.Int16, 0.005, 0, []float32{-63.5, -63, -3, -2, -1, 1, 2, 3, 63.5, 64}, []int{-12700, -12600, -600, -400, -200, 200, 400, 600, 12700, 12800}},
		// Round half away from zero, saturation.
		{ops.Int8, 1, 0, []float32{0.5, -0.5, 1.5, -2.5, 200, -200, 127.49, 0.49999997, 1e30, float32(math.NaN())}, []int{1, -1, 2, -3, 127, -128, 127, 0, -128, -128}},
	} {
		n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{2, len(tc.in) / 2}, tc.in)}, q(outTensor(tc.typ), tc.scale, tc.zp))
		k := NewQuantize()
		run(t, k, n)
		wantShape(t, n.Outputs[0].Shape, []int{2, len(tc.in) / 2})
		var got []int64
		for i := range tc.in {
			got = append(got, int64(loadInt(n.Outputs[0], i)))
		}
		equalInts(t, tc.typ.String(), got, tc.want)
		noAllocs(t, k, n)
	}
}

func TestQuantizePerChannel(t *testing.T) {
	out := outTensor(ops.Int8)
	out.Quant = &ops.Quantization{Scale: []float32{0.5, 1}, ZeroPoint: []int64{0, -1}, QuantizedDimension: 1}
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float32, []int{2, 2}, []float32{1, 1, -3, 3})}, out)
	run(t, NewQuantize(), n)
	equalInts(t, "per-channel", n.Outputs[0].Int8s(), []int{2, 0, -6, 2})
}

func TestRequantize(t *testing.T) {
	in8 := toInt8(quantizeTo(quantReal, 0.5, -1, -128, 127))
	for _, tc := range []struct {
		name string
		in   *ops.Tensor
		out  *ops.Tensor
		want []int
	}{
		{"int8→int8 same", q(tensorOf(ops.Int8, []int{10}, in8), 0.5, -1), q(outTensor(ops.Int8), 0.5, -1), []int{-128, -127, -126, -125, -124, 123, 124, 125, 126, 127}},
		{"int8→uint8", q(tensorOf(ops.Int8, []int{10}, in8), 0.5, -1), q(outTensor(ops.Uint8), 0.5, 127), []int{0, 1, 2, 3, 4, 251, 252, 253, 254, 255}},
		// Halving: gemmlowp's rounding doubling multiply rounds ties upward
		// (-63.5 → -63, 62.5 → 63).
		{"int8→int8 rescale", q(tensorOf(ops.Int8, []int{10}, in8), 0.5, -1), q(outTensor(ops.Int8), 1, -1), []int{-64, -64, -63, -63, -62, 61, 62, 62, 63, 63}},
		{"int16→int8", q(tensorOf(ops.Int16, []int{4}, []int16{-12700, 200, 600, 12800}), 0.005, 0), q(outTensor(ops.Int8), 0.5, -1), []int{-128, 1, 5, 127}},
		{"int32→int16", q(tensorOf(ops.Int32, []int{3}, []int32{100000, -7, 3}), 0.5, 0), q(outTensor(ops.Int16), 1, 0), []int{32767, -3, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := node(nil, []*ops.Tensor{tc.in}, tc.out)
			k := NewQuantize()
			run(t, k, n)
			var got []int64
			for i := 0; i < tc.in.NumElements(); i++ {
				got = append(got, int64(loadInt(n.Outputs[0], i)))
			}
			equalInts(t, "output", got, tc.want)
			noAllocs(t, k, n)
		})
	}
}

func TestDequantize(t *testing.T) {
	want := make([]float64, len(quantReal))
	for i, v := range quantReal {
		want[i] = float64(v)
	}
	for _, in := range []*ops.Tensor{
		q(tensorOf(ops.Uint8, []int{2, 5}, []uint8{0, 1, 2, 3, 4, 251, 252, 253, 254, 255}), 0.5, 127),
		q(tensorOf(ops.Int8, []int{2, 5}, []int8{-128, -127, -126, -125, -124, 123, 124, 125, 126, 127}), 0.5, -1),
		q(tensorOf(ops.Int16, []int{2, 5}, []int16{-127, -126, -125, -124, -123, 124, 125, 126, 127, 128}), 0.5, 0),
	} {
		n := node(nil, []*ops.Tensor{in}, outTensor(ops.Float32))
		k := NewDequantize()
		run(t, k, n)
		nearFloats(t, in.Type.String(), n.Outputs[0].Float32s(), want, 0)
		noAllocs(t, k, n)
	}
	n := node(nil, []*ops.Tensor{tensorOf(ops.Float16, []int{5}, []uint16{0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000})}, outTensor(ops.Float32))
	run(t, NewDequantize(), n)
	nearFloats(t, "float16", n.Outputs[0].Float32s(), []float64{1, -2, 65504, math.Ldexp(1, -24), 0}, 0)
	// Per-channel along dimension 0 (dequantize_test.cc
	// DequantizeOpTest PerChannel style).
	in := tensorOf(ops.Int8, []int{2, 3}, []int8{-128, 0, 127, -128, 0, 127})
	in.Quant = &ops.Quantization{Scale: []float32{0.5, 0.25}, ZeroPoint: []int64{-1, 0}}
	n = node(nil, []*ops.Tensor{in}, outTensor(ops.Float32))
	run(t, NewDequantize(), n)
	nearFloats(t, "per-channel", n.Outputs[0].Float32s(), []float64{-63.5, 0.5, 64, -32, 0, 31.75}, 0)
}

func TestQuantizeErrors(t *testing.T) {
	f := tensorOf(ops.Float32, []int{2}, []float32{1, 2})
	wantPrepareError(t, NewQuantize(), node(nil, []*ops.Tensor{f}, outTensor(ops.Int8)), "output 0", "quantization")
	wantPrepareError(t, NewQuantize(), node(nil, []*ops.Tensor{f}, q(outTensor(ops.Int32), 1, 0)), "output 0", "int32")
	wantPrepareError(t, NewQuantize(), node(nil, []*ops.Tensor{q(tensorOf(ops.Uint8, []int{1}, []uint8{1}), 1, 0)}, q(outTensor(ops.Int32), 1, 0)), "output 0", "int32", "uint8")
	wantPrepareError(t, NewQuantize(), node(nil, []*ops.Tensor{q(tensorOf(ops.Int16, []int{1}, []int16{1}), 1, 2)}, q(outTensor(ops.Int16), 1, 0)), "zero points")
	wantPrepareError(t, NewDequantize(), node(nil, []*ops.Tensor{q(tensorOf(ops.Int16, []int{1}, []int16{1}), 1, 2)}, outTensor(ops.Float32)), "input 0", "zero point")
	wantPrepareError(t, NewDequantize(), node(nil, []*ops.Tensor{q(tensorOf(ops.Int8, []int{1}, []int8{1}), 1, 0)}, outTensor(ops.Int32)), "output 0", "float32")
	wantPrepareError(t, NewDequantize(), node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{1}, []int8{1})}, outTensor(ops.Float32)), "input 0", "quantization")
}

// TestRequantize8BitTable checks the tabulated 8-bit → 8-bit
// requantisation against the scalar formula (MultiplyByQuantizedMultiplier
// of q − zp_in, plus zp_out, clamped) for every input byte, both type
// pairs of each direction, scale ratios below and above one.
func TestRequantize8BitTable(t *testing.T) {
	for _, tc := range []struct {
		in, out   ops.DataType
		sIn, sOut float32
		zIn, zOut int64
	}{
		{ops.Uint8, ops.Uint8, 0.012298397, 0.029082999, 0, 0},
		{ops.Uint8, ops.Int8, 0.05, 0.02, 131, -7},
		{ops.Int8, ops.Uint8, 0.3, 0.7, -128, 200},
		{ops.Int8, ops.Int8, 0.00390625, 0.004096854, -128, -128},
		{ops.Uint8, ops.Uint8, 2.5, 0.01, 255, 3},
	} {
		data := make([]byte, 256)
		for i := range data {
			data[i] = byte(i)
		}
		in := q(&ops.Tensor{Type: tc.in, Shape: []int{256}, Data: data}, tc.sIn, tc.zIn)
		n := node(nil, []*ops.Tensor{in}, q(outTensor(tc.out), tc.sOut, tc.zOut))
		k := NewQuantize()
		run(t, k, n)
		noAllocs(t, k, n)
		mult, shift := ops.QuantizeMultiplier(float64(tc.sIn) / float64(tc.sOut))
		lo, hi, _ := ops.TypeRange(tc.out)
		for b := 0; b < 256; b++ {
			v := loadInt(in, b)
			want := ops.ClampInt32(ops.MultiplyByQuantizedMultiplier(v-int32(tc.zIn), mult, shift)+int32(tc.zOut), lo, hi)
			if got := loadInt(n.Outputs[0], b); got != want {
				t.Fatalf("%s → %s byte %d: got %d, want %d", tc.in, tc.out, b, got, want)
			}
		}
	}
}
