package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Test vectors from TFLite's fully_connected_test.cc (SimpleTest,
// SimpleTestQuantizedUint8, SimpleTestQuantizedInt8,
// SimpleTestPerChannelQuantizedInt8, ...OutputShape3DInt8,
// SimpleTestQuantizedInt16NoBias/Bias32/Bias64, ...Weight16,
// SimpleTestPerChannelQuantizedInt16Bias32, HybridFullyConnectedOpTest),
// plus float64 references.

var (
	fcWeightsReal = []float32{
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	}
	fcInputReal = []float32{
		1, 2, 3, 4, 5, 6, 7, 8, -9, -10,
		1, 2, 3, 4, 5, 6, 7, -8, 9, -10,
	}
	fcBiasReal = []float32{1, 2, 3}
)

func TestFullyConnectedFloatSimple(t *testing.T) {
	n := node(&FullyConnectedOptions{}, []*ops.Tensor{
		tensorOf(ops.Float32, []int{2, 10}, fcInputReal),
		constT(tensorOf(ops.Float32, []int{3, 10}, fcWeightsReal)),
		constT(tensorOf(ops.Float32, []int{3}, fcBiasReal)),
	}, outTensor(ops.Float32))
	k := NewFullyConnected()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 3})
	nearFloats(t, "output", n.Outputs[0].Float32s(), []float64{24, 25, 26, 58, 59, 60}, 0)
	noAllocs(t, k, n)
}

// fcRefFloat is an independent float64 FULLY_CONNECTED.
func fcRefFloat(x, w, b []float32, batch, units, cols int, lo, hi float64) []float64 {
	out := make([]float64, batch*units)
	for i := 0; i < batch; i++ {
		for u := 0; u < units; u++ {
			s := 0.0
			if b != nil {
				s = float64(b[u])
			}
			for c := 0; c < cols; c++ {
				s += float64(w[u*cols+c]) * float64(x[i*cols+c])
			}
			out[i*units+u] = math.Min(math.Max(s, lo), hi)
		}
	}
	return out
}

func TestFullyConnectedFloatRandomKeepDimsRelu6NoBias(t *testing.T) {
	r := lcg(7)
	const units, cols = 13, 37
	shape := []int{2, 3, cols}
	x := make([]float32, 6*cols)
	w := make([]float32, units*cols)
	for i := range x {
		x[i] = r.float(-1, 1)
	}
	for i := range w {
		w[i] = r.float(-0.5, 0.5)
	}
	n := node(&FullyConnectedOptions{Activation: ops.ActRelu6, KeepNumDims: true}, []*ops.Tensor{
		tensorOf(ops.Float32, shape, x), tensorOf(ops.Float32, []int{units, cols}, w),
	}, outTensor(ops.Float32))
	k := NewFullyConnected()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 3, units})
	nearFloats(t, "output", n.Outputs[0].Float32s(), fcRefFloat(x, w, nil, 6, units, cols, 0, 6), 1e-5)
	noAllocs(t, k, n)
}

func TestFullyConnectedUint8(t *testing.T) {
	// Input and weights: range [-63.5, 64] → scale 0.5, zero point 127;
	// output [-127, 128] → scale 1, zero point 127; bias scale 0.25.
	n := node(&FullyConnectedOptions{}, []*ops.Tensor{
		q(tensorOf(ops.Uint8, []int{2, 10}, toUint8(quantizeTo(fcInputReal, 0.5, 127, 0, 255))), 0.5, 127),
		q(constT(tensorOf(ops.Uint8, []int{3, 10}, toUint8(quantizeTo(fcWeightsReal, 0.5, 127, 0, 255)))), 0.5, 127),
		q(constT(tensorOf(ops.Int32, []int{3}, quantizeTo(fcBiasReal, 0.25, 0, math.MinInt32, math.MaxInt32))), 0.25, 0),
	}, q(outTensor(ops.Uint8), 1, 127))
	k := NewFullyConnected()
	run(t, k, n)
	equalInts(t, "output", n.Outputs[0].Uint8s(), []int{151, 152, 153, 185, 186, 187})
	noAllocs(t, k, n)
}

func int8FCNode(opts *FullyConnectedOptions, inShape []int, in, w []float32, units int, wScales []float32) *ops.Node {
	cols := len(w) / units
	var wq []int8
	wt := &ops.Tensor{}
	if len(wScales) == 1 {
		wq = toInt8(quantizeTo(w, wScales[0], 0, -127, 127))
		wt = q(constT(tensorOf(ops.Int8, []int{units, cols}, wq)), wScales[0], 0)
	} else {
		wq = make([]int8, len(w))
		zps := make([]int64, units)
		for u := 0; u < units; u++ {
			copy(wq[u*cols:], toInt8(quantizeTo(w[u*cols:(u+1)*cols], wScales[u], 0, -127, 127)))
		}
		wt = constT(tensorOf(ops.Int8, []int{units, cols}, wq))
		wt.Quant = &ops.Quantization{Scale: wScales, ZeroPoint: zps}
	}
	bq := make([]int32, units)
	bscales := make([]float32, units)
	for u := range bq {
		s := wScales[0]
		if len(wScales) > 1 {
			s = wScales[u]
		}
		bscales[u] = 0.5 * s
		bq[u] = int32(math.Round(float64(fcBiasReal[u]) / float64(bscales[u])))
	}
	bt := constT(tensorOf(ops.Int32, []int{units}, bq))
	bt.Quant = &ops.Quantization{Scale: bscales, ZeroPoint: make([]int64, units)}
	return node(opts, []*ops.Tensor{
		q(tensorOf(ops.Int8, inShape, toInt8(quantizeTo(in, 0.5, -1, -128, 127))), 0.5, -1),
		wt, bt,
	}, q(outTensor(ops.Int8), 1, -1))
}

func TestFullyConnectedInt8(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scales []float32
	}{{"per-tensor", []float32{0.5}}, {"per-channel", []float32{0.2, 0.25, 0.5}}} {
		t.Run(tc.name, func(t *testing.T) {
			n := int8FCNode(&FullyConnectedOptions{}, []int{2, 10}, fcInputReal, fcWeightsReal, 3, tc.scales)
			k := NewFullyConnected()
			run(t, k, n)
			equalInts(t, "output", n.Outputs[0].Int8s(), []int{23, 24, 25, 57, 58, 59})
			noAllocs(t, k, n)
		})
	}
}

func TestFullyConnectedInt8PerChannel3DKeepDimsRelu(t *testing.T) {
	w := []float32{1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5}
	in := []float32{1, 2, 3, 4, -5, 1, 2, 3, -4, 5, 1, 2, -3, 4, 5, 1, -2, 3, 4, 5}
	n := int8FCNode(&FullyConnectedOptions{KeepNumDims: true, Activation: ops.ActRelu}, []int{2, 2, 5}, in, w, 3, []float32{0.2, 0.25, 0.5})
	k := NewFullyConnected()
	run(t, k, n)
	wantShape(t, n.Outputs[0].Shape, []int{2, 2, 3})
	equalInts(t, "output", n.Outputs[0].Int8s(), []int{5, 6, 7, 23, 24, 25, 37, 38, 39, 47, 48, 49})
}

// int16FCNode: input/output scale 2^-9 with zero point 0, weights scale
// 0.5 (int8 or int16), bias scale 2^-10 of the given type (nil: no bias).
func int16FCNode(opts *FullyConnectedOptions, wType, biasType ops.DataType, wScales []float32) *ops.Node {
	const scale = 128.0 / 65536
	units, cols := 3, 10
	var wt *ops.Tensor
	wq := make([]int32, len(fcWeightsReal))
	for u := 0; u < units; u++ {
		s := wScales[0]
		if len(wScales) > 1 {
			s = wScales[u]
		}
		copy(wq[u*cols:], quantizeTo(fcWeightsReal[u*cols:(u+1)*cols], s, 0, -32767, 32767))
	}
	if wType == ops.Int8 {
		wt = constT(tensorOf(ops.Int8, []int{units, cols}, toInt8(wq)))
	} else {
		wt = constT(tensorOf(ops.Int16, []int{units, cols}, toInt16(wq)))
	}
	wt.Quant = &ops.Quantization{Scale: wScales, ZeroPoint: make([]int64, len(wScales))}
	ins := []*ops.Tensor{
		q(tensorOf(ops.Int16, []int{2, 10}, toInt16(quantizeTo(fcInputReal, scale, 0, -32768, 32767))), scale, 0),
		wt,
	}
	if biasType != 0 {
		bscales := make([]float32, units)
		b := make([]int64, units)
		for u := range b {
			s := wScales[0]
			if len(wScales) > 1 {
				s = wScales[u]
			}
			bscales[u] = scale * s
			b[u] = int64(math.Round(float64(fcBiasReal[u]) / float64(bscales[u])))
		}
		var bt *ops.Tensor
		if biasType == ops.Int64 {
			bt = tensorOf(ops.Int64, []int{units}, b)
		} else {
			b32 := make([]int32, units)
			for i, v := range b {
				b32[i] = int32(v)
			}
			bt = tensorOf(ops.Int32, []int{units}, b32)
		}
		bt.Quant = &ops.Quantization{Scale: bscales, ZeroPoint: make([]int64, units)}
		ins = append(ins, constT(bt))
	}
	return node(opts, ins, q(outTensor(ops.Int16), scale, 0))
}

func TestFullyConnectedInt16(t *testing.T) {
	withBias := []int{12288, 12800, 13312, 29696, 30208, 30720}
	for _, tc := range []struct {
		name     string
		opts     FullyConnectedOptions
		wType    ops.DataType
		biasType ops.DataType
		scales   []float32
		path     fcPath
		want     []int
	}{
		{"no bias relu", FullyConnectedOptions{Activation: ops.ActRelu}, ops.Int8, 0, []float32{0.5}, fcInt16Gemm, []int{11776, 11776, 11776, 29184, 29184, 29184}},
		{"bias32", FullyConnectedOptions{}, ops.Int8, ops.Int32, []float32{0.5}, fcInt16Gemm, withBias},
		{"bias64", FullyConnectedOptions{}, ops.Int8, ops.Int64, []float32{0.5}, fcInt16Ref, withBias},
		{"bias32 int16 weights", FullyConnectedOptions{Activation: ops.ActRelu}, ops.Int16, ops.Int32, []float32{0.5}, fcInt16Ref, withBias},
		{"per-channel bias32", FullyConnectedOptions{}, ops.Int8, ops.Int32, []float32{0.2, 0.25, 0.5}, fcInt16Gemm, withBias},
		{"per-channel bias64", FullyConnectedOptions{}, ops.Int8, ops.Int64, []float32{0.2, 0.25, 0.5}, fcInt16Ref, withBias},
		{"no bias, int64 bias type", FullyConnectedOptions{Activation: ops.ActRelu, QuantizedBiasType: ops.Int64}, ops.Int8, 0, []float32{0.5}, fcInt16Ref, []int{11776, 11776, 11776, 29184, 29184, 29184}},
		{"per-channel int16 weights", FullyConnectedOptions{Activation: ops.ActRelu}, ops.Int16, ops.Int32, []float32{1, 1, 1}, fcInt16Ref, withBias},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			n := int16FCNode(&opts, tc.wType, tc.biasType, tc.scales)
			k := NewFullyConnected().(*FullyConnected)
			run(t, k, n)
			if k.path != tc.path {
				t.Fatalf("path %d, want %d", k.path, tc.path)
			}
			equalInts(t, "output", n.Outputs[0].Int16s(), tc.want)
			noAllocs(t, k, n)
		})
	}
}

func TestFullyConnectedHybrid(t *testing.T) {
	for _, asym := range []bool{false, true} {
		for _, scales := range [][]float32{{10.0 / 127}, {10.0 / 127, 10.0 / 127, 10.0 / 127}} {
			wt := constT(tensorOf(ops.Int8, []int{3, 10}, toInt8(quantizeTo(fcWeightsReal, scales[0], 0, -127, 127))))
			wt.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, len(scales))}
			n := node(&FullyConnectedOptions{AsymmetricQuantizeInputs: asym}, []*ops.Tensor{
				tensorOf(ops.Float32, []int{2, 10}, fcInputReal), wt,
				constT(tensorOf(ops.Float32, []int{3}, fcBiasReal)),
			}, outTensor(ops.Float32))
			k := NewFullyConnected()
			run(t, k, n)
			// TFLite's HybridFullyConnectedOpTest tolerance.
			nearFloats(t, "output", n.Outputs[0].Float32s(), []float64{24, 25, 26, 58, 59, 60}, 1.3)
			noAllocs(t, k, n)
		}
	}
}

// With integer inputs whose row maximum is 127 and weights of scale 1, the
// hybrid quantisation is exact, so the result must equal the float one.
func TestFullyConnectedHybridExact(t *testing.T) {
	x := []float32{127, -3, 5, 0, 1, -127, 2, 7}
	w := []float32{1, 2, 3, 4, -1, -2, -3, -4, 5, 0, 0, 5}
	for _, asym := range []bool{false, true} {
		wt := q(constT(tensorOf(ops.Int8, []int{3, 4}, toInt8(quantizeTo(w, 1, 0, -127, 127)))), 1, 0)
		n := node(&FullyConnectedOptions{AsymmetricQuantizeInputs: asym, Activation: ops.ActRelu}, []*ops.Tensor{
			tensorOf(ops.Float32, []int{2, 4}, x), wt,
		}, outTensor(ops.Float32))
		run(t, NewFullyConnected(), n)
		want := fcRefFloat(x, w, nil, 2, 3, 4, 0, math.Inf(1))
		tol := 0.0
		if asym {
			// The asymmetric scale is (max-min)/255, no longer exact.
			tol = 2
		}
		nearFloats(t, "output", n.Outputs[0].Float32s(), want, tol)
	}
}

func TestFullyConnectedHybridZeroInputGivesBias(t *testing.T) {
	wt := q(constT(tensorOf(ops.Int8, []int{3, 10}, make([]int8, 30))), 0.1, 0)
	n := node(&FullyConnectedOptions{Activation: ops.ActTanh}, []*ops.Tensor{
		tensorOf(ops.Float32, []int{1, 10}, make([]float32, 10)), wt,
		tensorOf(ops.Float32, []int{3}, fcBiasReal),
	}, outTensor(ops.Float32))
	run(t, NewFullyConnected(), n)
	nearFloats(t, "output", n.Outputs[0].Float32s(), []float64{math.Tanh(1), math.Tanh(2), math.Tanh(3)}, 1e-6)
}

func TestFullyConnectedZeroInputSize(t *testing.T) {
	n := node(&FullyConnectedOptions{}, []*ops.Tensor{
		tensorOf(ops.Float32, []int{2, 0}, []float32{}),
		tensorOf(ops.Float32, []int{3, 0}, []float32{}),
	}, outTensor(ops.Float32))
	k := NewFullyConnected()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	wantShape(t, n.Outputs[0].Shape, []int{2, 3})
	for i := range n.Outputs[0].Data {
		n.Outputs[0].Data[i] = 0xff
	}
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	nearFloats(t, "output", n.Outputs[0].Float32s(), make([]float64, 6), 0)
}

func TestFullyConnectedErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		return tensorOf(ops.Float32, shape, make([]float32, n))
	}
	i8 := func(shape ...int) *ops.Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		return q(tensorOf(ops.Int8, shape, make([]int8, n)), 0.5, 0)
	}
	i16w := q(tensorOf(ops.Int16, []int{3, 10}, make([]int16, 30)), 0.5, 0)
	cases := []struct {
		name  string
		n     *ops.Node
		frags []string
	}{
		{"int16 weights with int8 input", node(nil, []*ops.Tensor{i8(2, 10), i16w}, q(outTensor(ops.Int8), 1, 0)),
			[]string{"input 1 (weights)", "int16", "int8"}},
		{"bias count", node(nil, []*ops.Tensor{f32(2, 10), f32(3, 10), f32(4)}, outTensor(ops.Float32)),
			[]string{"input 2 (bias)", "4 elements"}},
		{"tanh on float", node(&FullyConnectedOptions{Activation: ops.ActTanh}, []*ops.Tensor{f32(2, 10), f32(3, 10)}, outTensor(ops.Float32)),
			[]string{"TANH"}},
		{"ragged input", node(nil, []*ops.Tensor{f32(3, 7), f32(3, 10)}, outTensor(ops.Float32)),
			[]string{"input 0 (input)", "input_size 10"}},
		{"weights rank", node(nil, []*ops.Tensor{f32(2, 10), f32(30)}, outTensor(ops.Float32)),
			[]string{"input 1 (weights)", "rank 1"}},
		{"int8 output float", node(nil, []*ops.Tensor{i8(2, 10), i8(3, 10)}, outTensor(ops.Float32)),
			[]string{"output 0", "float32"}},
		{"missing quant", node(nil, []*ops.Tensor{tensorOf(ops.Int8, []int{2, 10}, make([]int8, 20)), i8(3, 10)}, q(outTensor(ops.Int8), 1, 0)),
			[]string{"input 0 (input)", "quantization"}},
		{"zero scale", node(nil, []*ops.Tensor{q(tensorOf(ops.Int8, []int{2, 10}, make([]int8, 20)), 0, 0), i8(3, 10)}, q(outTensor(ops.Int8), 1, 0)),
			[]string{"input 0 (input)", "scale"}},
		{"shuffled float", node(&FullyConnectedOptions{WeightsFormat: 1}, []*ops.Tensor{f32(2, 10), f32(3, 10)}, outTensor(ops.Float32), outTensor(ops.Uint8)),
			[]string{"shuffled", "uint8 input"}},
		{"shuffled one output", node(&FullyConnectedOptions{WeightsFormat: 1}, []*ops.Tensor{f32(2, 10), f32(3, 10)}, outTensor(ops.Float32)),
			[]string{"needs 2"}},
		{"one input", node(nil, []*ops.Tensor{f32(2, 10)}, outTensor(ops.Float32)), []string{"inputs"}},
		{"asymmetric hybrid weights", node(nil, []*ops.Tensor{f32(2, 10), q(tensorOf(ops.Int8, []int{3, 10}, make([]int8, 30)), 0.5, 3)}, outTensor(ops.Float32)),
			[]string{"input 1 (weights)", "symmetric"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { wantPrepareError(t, NewFullyConnected(), tc.n, tc.frags...) })
	}
}

// TestMultiplyByQuantizedMultiplierTie pins the two tie rules: TFLite's
// MultiplyByQuantizedMultiplier takes the tie -40 × 0.5 / 8 = -2.5 away
// from zero, ruy's x86 kernels (the int8 FULLY_CONNECTED and CONV_2D of
// TFLite's x86 build) upward. Where the rounding doubling high multiply
// rounds (-41 × 0.5 = -20.5 → -20), both round once more: a single
// rounding (ruy's portable reference) would give -41/16 → -3, the double
// one -20/8 → -2 (upward) or -3 (away).
func TestMultiplyByQuantizedMultiplierTie(t *testing.T) {
	for _, tc := range []struct {
		x, away, up int32
	}{{-40, -3, -2}, {40, 3, 3}, {-41, -3, -2}, {-44, -3, -3}, {-24, -2, -1}} {
		if got := ops.MultiplyByQuantizedMultiplier(tc.x, 1<<30, -3); got != tc.away {
			t.Errorf("MultiplyByQuantizedMultiplier(%d, 0.5, -3) = %d, want %d", tc.x, got, tc.away)
		}
		if got := ops.MultiplyByQuantizedMultiplierUp(tc.x, 1<<30, -3); got != tc.up {
			t.Errorf("MultiplyByQuantizedMultiplierUp(%d, 0.5, -3) = %d, want %d", tc.x, got, tc.up)
		}
	}
}
