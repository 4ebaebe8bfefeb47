package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Test vectors from TFLite's depthwise_conv_test.cc (SimpleTest,
// ActivationReluTest, ActivationReluN1Test, ActivationRelu6Test,
// StrideTest, PaddingTest, SimpleDilatedTestPaddingValid/Same,
// BatchPaddingValidTest, BatchPaddingSameTest, SimpleTestQuantized,
// MultithreadOnBatchUint8GeneralTest), plus float64 and naive-integer
// references on random shapes (depth multipliers 1-3, dilation, strides).

var (
	dwInput  = []float32{1, 2, 7, 8, 3, 4, 9, 10, 5, 6, 11, 12}
	dwFilter = []float32{1, 2, 3, 4, -9, 10, -11, 12, 5, 6, 7, 8, 13, -14, 15, -16}
)

func dwOpts(pad ops.Padding, stride, dilation int, act ops.Activation) *DepthwiseConv2DOptions {
	return &DepthwiseConv2DOptions{Padding: pad, StrideW: stride, StrideH: stride, DilationWFactor: dilation, DilationHFactor: dilation, Activation: act, DepthMultiplier: 1}
}

func TestDepthwiseConv2DFloatTFLiteVectors(t *testing.T) {
	ones9 := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1}
	dil := make([]float32, 81)
	for y := 3; y < 6; y++ {
		for x := 3; x < 6; x++ {
			dil[y*9+x] = 1
		}
	}
	for _, tc := range []struct {
		name            string
		inShape, fShape []int
		in, f, b        []float32
		opts            *DepthwiseConv2DOptions
		want            []float64
	}{
		{"SimpleTest", []int{1, 3, 2, 2}, []int{1, 2, 2, 4}, dwInput, dwFilter, []float32{1, 2, 3, 4}, dwOpts(ops.PaddingValid, 1, 1, ops.ActNone), []float64{71, -34, 99, -20, 91, -26, 127, -4}},
		{"ActivationReluTest", []int{1, 3, 2, 2}, []int{1, 2, 2, 4}, dwInput, dwFilter, []float32{1, 2, 3, 4}, dwOpts(ops.PaddingValid, 1, 1, ops.ActRelu), []float64{71, 0, 99, 0, 91, 0, 127, 0}},
		{"ActivationReluN1Test", []int{1, 3, 2, 2}, []int{1, 2, 2, 4}, dwInput, dwFilter, []float32{1, 2, 3, 4}, dwOpts(ops.PaddingValid, 1, 1, ops.ActReluN1To1), []float64{1, -1, 1, -1, 1, -1, 1, -1}},
		{"ActivationRelu6Test", []int{1, 3, 2, 2}, []int{1, 2, 2, 4}, dwInput, dwFilter, []float32{1, 2, 3, 4}, dwOpts(ops.PaddingValid, 1, 1, ops.ActRelu6), []float64{6, 0, 6, 0, 6, 0, 6, 0}},
		{"StrideTest", []int{1, 3, 2, 2}, []int{1, 2, 2, 4}, dwInput, dwFilter, []float32{1, 2, 3, 4}, dwOpts(ops.PaddingValid, 2, 1, ops.ActNone), []float64{71, -34, 99, -20}},
		{"PaddingTest", []int{1, 3, 2, 2}, []int{1, 2, 2, 4}, dwInput, dwFilter, []float32{1, 2, 3, 4}, dwOpts(ops.PaddingSame, 2, 1, ops.ActNone), []float64{71, -34, 99, -20, -93, 122, -111, 172}},
		{"SimpleDilatedTestPaddingValid", []int{1, 9, 9, 1}, []int{1, 3, 3, 1}, dil, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, []float32{0}, dwOpts(ops.PaddingValid, 1, 3, ops.ActNone), []float64{5, 5, 5, 5, 5, 5, 5, 5, 5}},
		{"SimpleDilatedTestPaddingSame", []int{1, 3, 3, 1}, []int{1, 2, 2, 1}, ones9, []float32{1, 2, 3, 4}, []float32{0}, dwOpts(ops.PaddingSame, 1, 2, ops.ActNone), []float64{4, 7, 3, 6, 10, 4, 2, 3, 1}},
		{"BatchPaddingValidTest", []int{2, 3, 3, 4}, []int{1, 3, 3, 4}, []float32{
			1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0,
			1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0,
			1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0},
			[]float32{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4},
			[]float32{0, 0, 0, 0}, dwOpts(ops.PaddingValid, 1, 1, ops.ActNone), []float64{9, 18, 0, 0, 9, 18, 0, 0}},
		{"BatchPaddingSameTest", []int{4, 2, 2, 1}, []int{1, 3, 3, 1}, []float32{1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 2},
			[]float32{1, 1, 1, 0, 2, 0, 1, 1, 1}, []float32{0}, dwOpts(ops.PaddingSame, 1, 1, ops.ActNone), []float64{4, 4, 4, 4, 0, 0, 0, 0, 6, 6, 6, 6, 8, 8, 8, 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := node(tc.opts, []*ops.Tensor{tensorOf(ops.Float32, tc.inShape, tc.in), tensorOf(ops.Float32, tc.fShape, tc.f), tensorOf(ops.Float32, []int{tc.fShape[3]}, tc.b)}, outTensor(ops.Float32))
			k := NewDepthwiseConv2D()
			run(t, k, n)
			nearFloats(t, "output", n.Outputs[0].Float32s(), tc.want, 1e-5)
			noAllocs(t, k, n)
		})
	}
}

// dwRef is a depthwise convolution over int64 or float64 values: taps
// outside the image are skipped; acc starts from bias.
func dwRef(in []float64, inShape []int, f []float64, fShape []int, bias []float64, o *DepthwiseConv2DOptions) ([]int, []float64) {
	b, ih, iw, ic := inShape[0], inShape[1], inShape[2], inShape[3]
	fh, fw, oc := fShape[1], fShape[2], fShape[3]
	m := oc / ic
	hw, _ := newWindow(o.Padding, ih, fh, o.StrideH, o.DilationHFactor, "h")
	ww, _ := newWindow(o.Padding, iw, fw, o.StrideW, o.DilationWFactor, "w")
	var out []float64
	for n := 0; n < b; n++ {
		for oy := 0; oy < hw.out; oy++ {
			for ox := 0; ox < ww.out; ox++ {
				for c := 0; c < oc; c++ {
					s := 0.0
					if bias != nil {
						s = bias[c]
					}
					for y := 0; y < fh; y++ {
						for x := 0; x < fw; x++ {
							iy := oy*o.StrideH - hw.pad + y*o.DilationHFactor
							ix := ox*o.StrideW - ww.pad + x*o.DilationWFactor
							if iy < 0 || iy >= ih || ix < 0 || ix >= iw {
								continue
							}
							s += in[((n*ih+iy)*iw+ix)*ic+c/m] * f[(y*fw+x)*oc+c]
						}
					}
					out = append(out, s)
				}
			}
		}
	}
	return []int{b, hw.out, ww.out, oc}, out
}

func f64s[T float32 | int32](v []T) []float64 {
	o := make([]float64, len(v))
	for i, x := range v {
		o[i] = float64(x)
	}
	return o
}

var dwCases = []struct {
	inShape, fShape []int
	opts            DepthwiseConv2DOptions
}{
	{[]int{1, 9, 7, 3}, []int{1, 3, 3, 3}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu}},
	{[]int{2, 8, 8, 4}, []int{1, 3, 2, 8}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 2, StrideH: 3, DilationWFactor: 1, DilationHFactor: 1}},
	{[]int{1, 10, 9, 2}, []int{1, 3, 3, 6}, DepthwiseConv2DOptions{Padding: ops.PaddingValid, StrideW: 1, StrideH: 2, DilationWFactor: 2, DilationHFactor: 3, Activation: ops.ActRelu6}},
	{[]int{1, 12, 12, 16}, []int{1, 3, 3, 16}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 2, StrideH: 2, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActReluN1To1}},
	// micro_speech's layer: one input channel, depth multiplier 8.
	{[]int{1, 49, 40, 1}, []int{1, 10, 8, 8}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 2, StrideH: 2, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu}},
	{[]int{1, 6, 7, 2}, []int{1, 2, 3, 6}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1}},
	// Pixel packing (width stride 1, 1-8 output channels dividing 16),
	// with leftover pixels in every band, dilation and multipliers.
	{[]int{1, 11, 13, 8}, []int{1, 3, 3, 8}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu6}},
	{[]int{2, 7, 21, 4}, []int{1, 3, 3, 4}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 2, DilationHFactor: 1}},
	{[]int{1, 9, 35, 1}, []int{1, 3, 3, 1}, DepthwiseConv2DOptions{Padding: ops.PaddingValid, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu}},
	{[]int{1, 6, 10, 2}, []int{1, 3, 3, 8}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1}},
	{[]int{1, 5, 19, 2}, []int{1, 2, 3, 2}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 2, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActReluN1To1}},
	// Images whose moved input rows (integer paths, multipliers) take
	// several blocks of output rows per thread (dwBlock, dwBandTarget):
	// bands overlapping by the filter's rows, with strides, dilation and
	// padding rows inside a block.
	{[]int{1, 40, 260, 8}, []int{1, 3, 3, 8}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu6}},
	{[]int{1, 61, 100, 6}, []int{1, 3, 3, 12}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 2, StrideH: 2, DilationWFactor: 1, DilationHFactor: 2}},
	{[]int{2, 50, 170, 12}, []int{1, 5, 3, 12}, DepthwiseConv2DOptions{Padding: ops.PaddingValid, StrideW: 1, StrideH: 3, DilationWFactor: 1, DilationHFactor: 1}},
	// The byte path (depthwise_conv_2d_q8.go): 5x5 and 7x7 filters (two
	// row groups), odd channel counts around the 16 lanes, strides,
	// dilation and padding on every side.
	{[]int{1, 13, 11, 17}, []int{1, 5, 5, 17}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu6}},
	{[]int{1, 15, 14, 33}, []int{1, 3, 3, 33}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 2, StrideH: 2, DilationWFactor: 1, DilationHFactor: 1}},
	{[]int{1, 12, 13, 5}, []int{1, 7, 7, 10}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 2, DilationWFactor: 2, DilationHFactor: 1, Activation: ops.ActRelu}},
	{[]int{1, 9, 9, 48}, []int{1, 3, 3, 48}, DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 2, DilationHFactor: 2, Activation: ops.ActRelu6}},
}

func TestDepthwiseConv2DFloatRandom(t *testing.T) {
	r := lcg(3)
	for i, tc := range dwCases {
		in := randFloats(&r, prod(tc.inShape), -1, 1)
		f := randFloats(&r, prod(tc.fShape), -1, 1)
		b := randFloats(&r, tc.fShape[3], -1, 1)
		opts := tc.opts
		n := node(&opts, []*ops.Tensor{tensorOf(ops.Float32, tc.inShape, in), constT(tensorOf(ops.Float32, tc.fShape, f)), tensorOf(ops.Float32, []int{tc.fShape[3]}, b)}, outTensor(ops.Float32))
		k := NewDepthwiseConv2D()
		run(t, k, n)
		shape, want := dwRef(f64s(in), tc.inShape, f64s(f), tc.fShape, f64s(b), &opts)
		lo, hi := ActivationRangeFloat(opts.Activation)
		for j := range want {
			want[j] = math.Min(math.Max(want[j], float64(lo)), float64(hi))
		}
		wantShape(t, n.Outputs[0].Shape, shape)
		nearFloats(t, "case "+string(rune('0'+i)), n.Outputs[0].Float32s(), want, 1e-5)
		noAllocs(t, k, n)
	}
}

func TestDepthwiseConv2DUint8TFLiteVectors(t *testing.T) {
	in := quantTensor(ops.Uint8, []int{1, 3, 2, 2}, dwInput, -63.5, 64)
	f := quantTensor(ops.Uint8, []int{1, 2, 2, 4}, dwFilter, -63.5, 64)
	bias := q(tensorOf(ops.Int32, []int{4}, quantizeTo([]float32{1, 2, 3, 4}, 0.25, 0, math.MinInt32, math.MaxInt32)), 0.25, 0)
	n := node(dwOpts(ops.PaddingValid, 1, 1, ops.ActNone), []*ops.Tensor{in, f, bias}, quantOut(ops.Uint8, -127, 128))
	k := NewDepthwiseConv2D()
	run(t, k, n)
	equalInts(t, "SimpleTestQuantized", n.Outputs[0].Uint8s(), []int{198, 93, 226, 107, 218, 101, 254, 123})
	noAllocs(t, k, n)

	// MultithreadOnBatchUint8GeneralTest: [6, 4, 8, 1] images with a 3x3
	// filter, all ranges [0, 255] (scale 1, zero point 0).
	img := make([]float32, 0, 6*32)
	for b := 0; b < 6; b++ {
		img = append(img, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	n = node(dwOpts(ops.PaddingValid, 1, 1, ops.ActNone), []*ops.Tensor{
		quantTensor(ops.Uint8, []int{6, 4, 8, 1}, img, 0, 255),
		quantTensor(ops.Uint8, []int{1, 3, 3, 1}, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, 0, 255),
		q(tensorOf(ops.Int32, []int{1}, []int32{0}), 1, 0),
	}, quantOut(ops.Uint8, 0, 255))
	run(t, NewDepthwiseConv2D(), n)
	var want []int
	for b := 0; b < 6; b++ {
		want = append(want, 39, 39, 39, 39, 39, 39, 21, 21, 21, 21, 21, 21)
	}
	equalInts(t, "MultithreadOnBatchUint8GeneralTest", n.Outputs[0].Uint8s(), want)
}

func TestDepthwiseConv2DQuantRandom(t *testing.T) {
	r := lcg(17)
	for i, tc := range dwCases {
		oc := tc.fShape[3]
		opts := tc.opts
		for _, typ := range []ops.DataType{ops.Int8, ops.Uint8} {
			lo, hi, _ := ops.TypeRange(typ)
			in := randInts(&r, prod(tc.inShape), int(lo), int(hi))
			f := randInts(&r, prod(tc.fShape), int(max(lo, -127)), int(hi))
			b := randInts(&r, oc, -5000, 5000)
			inS, outS := float32(0.05), float32(0.07)
			inZP, outZP, fZP := int32(3), int32(-4), int32(0)
			var scales []float32
			if typ == ops.Uint8 {
				inZP, outZP, fZP = 130, 120, 125
				scales = []float32{0.004}
			} else {
				scales = make([]float32, oc)
				for c := range scales {
					scales[c] = r.float(0.001, 0.01)
				}
			}
			var it, ft *ops.Tensor
			if typ == ops.Int8 {
				it, ft = tensorOf(ops.Int8, tc.inShape, toInt8(in)), constT(tensorOf(ops.Int8, tc.fShape, toInt8(f)))
			} else {
				it, ft = tensorOf(ops.Uint8, tc.inShape, toUint8(in)), constT(tensorOf(ops.Uint8, tc.fShape, toUint8(f)))
			}
			ft.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, len(scales)), QuantizedDimension: 3}
			if typ == ops.Uint8 {
				ft.Quant.ZeroPoint[0] = int64(fZP)
			}
			bt := tensorOf(ops.Int32, []int{oc}, b)
			bt.Quant = &ops.Quantization{Scale: []float32{inS * scales[0]}, ZeroPoint: []int64{0}}
			n := node(&opts, []*ops.Tensor{q(it, inS, int64(inZP)), ft, bt}, q(outTensor(typ), outS, int64(outZP)))
			k := NewDepthwiseConv2D()
			run(t, k, n)
			// Naive reference of TFLite's integer arithmetic.
			xs, ws := make([]float64, len(in)), make([]float64, len(f))
			for j, v := range in {
				xs[j] = float64(v - inZP)
			}
			for j, v := range f {
				ws[j] = float64(v - fZP)
			}
			_, acc := dwRef(xs, tc.inShape, ws, tc.fShape, f64s(b), &opts)
			qlo, qhi, _ := ActivationRangeQuantized(opts.Activation, n.Outputs[0])
			want := make([]int32, len(acc))
			for j, a := range acc {
				c := j % oc
				var m int32
				var s int
				if typ == ops.Uint8 {
					m, s = ops.QuantizeMultiplier(float64(inS*scales[0]) / float64(outS))
				} else {
					m, s = ops.QuantizeMultiplier(float64(inS) * float64(scales[c]) / float64(outS))
				}
				v := ops.MultiplyByQuantizedMultiplier(int32(a), m, s) + outZP
				want[j] = min(max(v, qlo), qhi)
			}
			if typ == ops.Int8 {
				equalInts(t, "int8 case "+string(rune('0'+i)), n.Outputs[0].Int8s(), want)
			} else {
				equalInts(t, "uint8 case "+string(rune('0'+i)), n.Outputs[0].Uint8s(), want)
			}
			noAllocs(t, k, n)
		}
	}
}

func TestDepthwiseConv2DErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	ok := dwOpts(ops.PaddingValid, 1, 1, ops.ActNone)
	for _, tc := range []struct {
		name string
		n    *ops.Node
		frag string
	}{
		{"options", node(&Conv2DOptions{}, []*ops.Tensor{f32(1, 2, 2, 1), f32(1, 1, 1, 1)}, outTensor(ops.Float32)), "DepthwiseConv2DOptions"},
		{"filter batch", node(ok, []*ops.Tensor{f32(1, 2, 2, 1), f32(2, 1, 1, 1)}, outTensor(ops.Float32)), "need [1, height, width, channels]"},
		{"multiplier", node(ok, []*ops.Tensor{f32(1, 2, 2, 2), f32(1, 1, 1, 3)}, outTensor(ops.Float32)), "not a multiple"},
		{"bias", node(ok, []*ops.Tensor{f32(1, 2, 2, 1), f32(1, 1, 1, 2), f32(3)}, outTensor(ops.Float32)), "input 2 (bias)"},
		{"dilation", node(dwOpts(ops.PaddingValid, 1, 0, ops.ActNone), []*ops.Tensor{f32(1, 2, 2, 1), f32(1, 1, 1, 1)}, outTensor(ops.Float32)), "dilation"},
		{"hybrid", node(ok, []*ops.Tensor{f32(1, 2, 2, 1), tensorOf(ops.Int8, []int{1, 1, 1, 1}, []int8{1})}, outTensor(ops.Float32)), "hybrid"},
		{"rank", node(ok, []*ops.Tensor{f32(2, 2, 1), f32(1, 1, 1, 1)}, outTensor(ops.Float32)), "rank 3"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantPrepareError(t, NewDepthwiseConv2D(), tc.n, tc.frag) })
	}
}

// TestDepthwiseConv2DBlocks checks that the large dwCases really take
// several blocks (so that the random tests cover bands and their
// overlaps) and that a band holds every input row a block reads.
func TestDepthwiseConv2DBlocks(t *testing.T) {
	multi := 0
	for i, tc := range dwCases {
		h, err := newWindow(tc.opts.Padding, tc.inShape[1], tc.fShape[1], tc.opts.StrideH, tc.opts.DilationHFactor, "height")
		if err != nil {
			t.Fatal(err)
		}
		rowLen := tc.inShape[2] * tc.fShape[3]
		blockRows, bandLen := dwBlock(&h, rowLen)
		if blockRows < 1 || blockRows > max(h.out, 1) {
			t.Errorf("case %d: %d rows a block for %d output rows", i, blockRows, h.out)
		}
		if blockRows < h.out {
			multi++
		}
		k := DepthwiseConv2D{h: h}
		for a := 0; a < h.out; a++ {
			for b := a + 1; b <= min(a+blockRows, h.out); b++ {
				i0, i1 := k.inputRows(a, b)
				if (i1-i0)*rowLen > bandLen || i0 < 0 || i1 > h.in {
					t.Fatalf("case %d: output rows [%d, %d) read input rows [%d, %d): more than a band of %d rows", i, a, b, i0, i1, bandLen/rowLen)
				}
			}
		}
	}
	if multi < 3 {
		t.Errorf("%d cases take several blocks, want at least 3", multi)
	}
}

// TestDepthwiseConv2DQ8Bound checks that the byte path's row buffers
// stay bounded: a hostile width dilation makes a padded row of about a
// billion columns, and the kernel takes the rect path instead (with
// nothing to allocate but the small image), giving the reference result.
func TestDepthwiseConv2DQ8Bound(t *testing.T) {
	opts := DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1 << 29, DilationHFactor: 1}
	in := q(tensorOf(ops.Int8, []int{1, 2, 4, 1}, []int8{1, 2, 3, 4, 5, 6, 7, 8}), 1, 0)
	f := constT(tensorOf(ops.Int8, []int{1, 1, 3, 1}, []int8{2, 3, 4}))
	f.Quant = &ops.Quantization{Scale: []float32{1}, ZeroPoint: []int64{0}, QuantizedDimension: 3}
	n := node(&opts, []*ops.Tensor{in, f}, q(outTensor(ops.Int8), 1, 0))
	k := NewDepthwiseConv2D()
	if err := prepare(k, n); err != nil {
		t.Fatal(err)
	}
	if k.(*DepthwiseConv2D).q8 != nil {
		t.Fatal("byte path taken with a padded row of a billion columns")
	}
	if err := k.Eval(n); err != nil {
		t.Fatal(err)
	}
	// Only the middle tap (weight 3) sees the image.
	equalInts(t, "hostile dilation", n.Outputs[0].Int8s(), []int32{3, 6, 9, 12, 15, 18, 21, 24})
}
