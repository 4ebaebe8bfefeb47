package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/ops"
)

// Test vectors from TFLite's conv_test.cc (SimpleTestFloat32,
// ...WithChannels, ...WithChannelsGrouped, ActivationRelu6Test, StrideTest,
// PaddingTest, PointwiseFloat32, SimpleTestFloat32WithAnisotropicStrides,
// HandCalculatedFloat32, SimpleTestQuantized, SimpleTestQuantizedGrouped,
// SimpleTestQuantizedWithAnisotropicStrides, SimpleTestQuantizedWithDilation,
// SimplePerTensorTest, SimplePerChannelTest, PointwiseHybridInt8), plus
// independent references: float64 loops for float, and TFLite's reference
// integer arithmetic written out naively for int8/uint8 (bit-exact).

var (
	convInput2x2x4 = []float32{1, 1, 1, 1, 2, 2, 2, 2, 1, 2, 3, 4, 1, 2, 3, 4}
	convFilter3    = []float32{1, 2, 3, 4, -1, 1, -1, 1, -1, -1, 1, 1}
)

func convNode(opts *Conv2DOptions, in, filter, bias *ops.Tensor, outType ops.DataType) *ops.Node {
	ins := []*ops.Tensor{in, filter}
	if bias != nil {
		ins = append(ins, bias)
	}
	return node(opts, ins, outTensor(outType))
}

func convOpts(pad ops.Padding, sw, sh int, act ops.Activation) *Conv2DOptions {
	return &Conv2DOptions{Padding: pad, StrideW: sw, StrideH: sh, DilationWFactor: 1, DilationHFactor: 1, Activation: act}
}

func TestConv2DFloatTFLiteVectors(t *testing.T) {
	for _, tc := range []struct {
		name             string
		inShape, fShape  []int
		in, filter, bias []float32
		opts             *Conv2DOptions
		wantShape        []int
		want             []float64
		constFilter      bool
	}{
		{"SimpleTestFloat32", []int{2, 2, 4, 1}, []int{3, 2, 2, 1}, convInput2x2x4, convFilter3, []float32{1, 2, 3},
			convOpts(ops.PaddingValid, 2, 2, ops.ActNone), []int{2, 1, 2, 3}, []float64{18, 2, 5, 18, 2, 5, 17, 4, 3, 37, 4, 3}, false},
		{"SimpleTestFloat32WithChannels", []int{2, 2, 4, 2}, []int{3, 2, 2, 2},
			[]float32{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, 1, 1, 1, 1, 1, 1, 0.5, 0.5, 1, 1, 1.5, 1.5, 2, 2, 0.5, 0.5, 1, 1, 1.5, 1.5, 2, 2},
			[]float32{1, 1, 2, 2, 3, 3, 4, 4, -1, -1, 1, 1, -1, -1, 1, 1, -1, -1, -1, -1, 1, 1, 1, 1}, []float32{1, 2, 3},
			convOpts(ops.PaddingValid, 2, 2, ops.ActNone), []int{2, 1, 2, 3}, []float64{18, 2, 5, 18, 2, 5, 17, 4, 3, 37, 4, 3}, true},
		{"SimpleTestFloat32WithChannelsGrouped", []int{2, 2, 2, 2}, []int{2, 2, 2, 1},
			[]float32{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4}, []float32{1, 1, 1, 1, -1, -1, -1, -1}, []float32{1, 2},
			convOpts(ops.PaddingValid, 2, 2, ops.ActNone), []int{2, 1, 1, 2}, []float64{7, -4, 15, -12}, false},
		{"ActivationRelu6Test", []int{2, 2, 4, 1}, []int{3, 2, 2, 1}, convInput2x2x4, convFilter3, []float32{1, 2, 3},
			convOpts(ops.PaddingValid, 2, 2, ops.ActRelu6), []int{2, 1, 2, 3}, []float64{6, 2, 5, 6, 2, 5, 6, 4, 3, 6, 4, 3}, false},
		{"ActivationReluN1Test", []int{2, 2, 4, 1}, []int{3, 2, 2, 1}, convInput2x2x4, convFilter3, []float32{1, 2, 3},
			convOpts(ops.PaddingValid, 2, 2, ops.ActReluN1To1), []int{2, 1, 2, 3}, []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, false},
		{"StrideTest", []int{2, 2, 4, 1}, []int{3, 2, 2, 1}, []float32{1, 1, 1, 1, 2, 2, 3, 2, 1, 2, 3, 4, 1, 2, 4, 4}, convFilter3, []float32{1, 2, 3},
			convOpts(ops.PaddingValid, 1, 1, ops.ActNone), []int{2, 1, 3, 3}, []float64{18, 2, 5, 22, 3, 6, 21, 1, 6, 17, 4, 3, 31, 5, 4, 40, 3, 4}, true},
		{"PaddingTest", []int{1, 2, 4, 1}, []int{3, 2, 2, 1}, []float32{1, 1, 1, 1, 2, 2, 3, 2}, convFilter3, []float32{1, 2, 3},
			convOpts(ops.PaddingSame, 1, 1, ops.ActNone), []int{1, 2, 4, 3}, []float64{18, 2, 5, 22, 3, 6, 21, 1, 6, 8, -1, 4, 7, 2, -1, 9, 3, -2, 8, 1, -2, 3, 0, 1}, false},
		{"PointwiseFloat32", []int{2, 2, 4, 2}, []int{1, 1, 1, 2},
			[]float32{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, 1, 1, 1, 1, 1, 1, 0.5, 0.5, 1, 1, 1.5, 1.5, 2, 2, 0.5, 0.5, 1, 1, 1.5, 1.5, 2, 2},
			[]float32{1, 2}, []float32{0}, convOpts(ops.PaddingValid, 1, 1, ops.ActNone), []int{2, 2, 4, 1},
			[]float64{1.5, 1.5, 1.5, 1.5, 3, 3, 3, 3, 1.5, 3, 4.5, 6, 1.5, 3, 4.5, 6}, true},
		{"AnisotropicStrides", []int{1, 3, 6, 1}, []int{1, 2, 2, 1},
			[]float32{3, 2, 1, -1, -2, -3, 4, 3, 2, -2, -3, -4, 5, 4, 3, -3, -4, -5}, []float32{1, 2, 3, 4}, []float32{-1},
			convOpts(ops.PaddingValid, 3, 1, ops.ActNone), []int{1, 2, 2, 1}, []float64{30, -24, 40, -34}, false},
		{"HandCalculatedFloat32", []int{1, 3, 4, 1}, []int{1, 3, 3, 1},
			[]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float32{1, 4, 7, 2, 5, 8, 3, 6, 9}, []float32{0},
			convOpts(ops.PaddingSame, 1, 1, ops.ActNone), []int{1, 3, 4, 1}, []float64{105, 150, 183, 95, 235, 312, 357, 178, 187, 234, 261, 121}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tensorOf(ops.Float32, tc.fShape, tc.filter)
			if tc.constFilter {
				constT(f)
			}
			n := convNode(tc.opts, tensorOf(ops.Float32, tc.inShape, tc.in), f, tensorOf(ops.Float32, []int{tc.fShape[0]}, tc.bias), ops.Float32)
			k := NewConv2D()
			run(t, k, n)
			wantShape(t, n.Outputs[0].Shape, tc.wantShape)
			nearFloats(t, "output", n.Outputs[0].Float32s(), tc.want, 1e-5)
			noAllocs(t, k, n)
		})
	}
}

// convRefFloat is a float64 convolution (groups from the channel counts).
func convRefFloat(in []float32, inShape []int, filter []float32, fShape []int, bias []float32, o *Conv2DOptions) ([]int, []float64) {
	b, ih, iw, ic := inShape[0], inShape[1], inShape[2], inShape[3]
	oc, fh, fw, fic := fShape[0], fShape[1], fShape[2], fShape[3]
	groups := ic / fic
	hw, _ := newWindow(o.Padding, ih, fh, o.StrideH, o.DilationHFactor, "h")
	ww, _ := newWindow(o.Padding, iw, fw, o.StrideW, o.DilationWFactor, "w")
	lo, hi := ActivationRangeFloat(o.Activation)
	out := make([]float64, 0, b*hw.out*ww.out*oc)
	for n := 0; n < b; n++ {
		for oy := 0; oy < hw.out; oy++ {
			for ox := 0; ox < ww.out; ox++ {
				for c := 0; c < oc; c++ {
					g := c / (oc / groups)
					s := 0.0
					for y := 0; y < fh; y++ {
						for x := 0; x < fw; x++ {
							iy := oy*o.StrideH - hw.pad + y*o.DilationHFactor
							ix := ox*o.StrideW - ww.pad + x*o.DilationWFactor
							if iy < 0 || iy >= ih || ix < 0 || ix >= iw {
								continue
							}
							for z := 0; z < fic; z++ {
								s += float64(in[((n*ih+iy)*iw+ix)*ic+g*fic+z]) * float64(filter[((c*fh+y)*fw+x)*fic+z])
							}
						}
					}
					if bias != nil {
						s += float64(bias[c])
					}
					out = append(out, math.Min(math.Max(s, float64(lo)), float64(hi)))
				}
			}
		}
	}
	return []int{b, hw.out, ww.out, oc}, out
}

func randFloats(r *lcg, n int, lo, hi float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = r.float(lo, hi)
	}
	return v
}

// convCases are random geometries covering im2col tiles, the direct 1×1
// path, dilation, SAME/VALID, anisotropic strides and batches; the last
// three are small feature maps with many channels, which threads split
// by channel blocks (Conv2D.chBlocks), one with a reduction longer than
// Eigen's kc.
var convCases = []struct {
	inShape, fShape []int
	opts            Conv2DOptions
}{
	{[]int{1, 9, 7, 3}, []int{5, 3, 3, 3}, Conv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu}},
	{[]int{2, 8, 8, 4}, []int{6, 3, 2, 4}, Conv2DOptions{Padding: ops.PaddingSame, StrideW: 2, StrideH: 3, DilationWFactor: 1, DilationHFactor: 1}},
	{[]int{1, 10, 9, 2}, []int{3, 3, 3, 2}, Conv2DOptions{Padding: ops.PaddingValid, StrideW: 1, StrideH: 2, DilationWFactor: 2, DilationHFactor: 3, Activation: ops.ActRelu6}},
	{[]int{2, 5, 6, 8}, []int{7, 1, 1, 8}, Conv2DOptions{Padding: ops.PaddingValid, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1}},
	{[]int{1, 40, 40, 3}, []int{8, 3, 3, 3}, Conv2DOptions{Padding: ops.PaddingSame, StrideW: 2, StrideH: 2, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActReluN1To1}},
	{[]int{1, 6, 6, 4}, []int{4, 2, 2, 2}, Conv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1}},
	// 16 or more channels in multiples of 8: the indirect float GEMM
	// (windows read in place, a padded copy for SAME), with dilation,
	// anisotropic strides, trailing-only padding and batches.
	{[]int{2, 9, 11, 5}, []int{16, 3, 3, 5}, Conv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu}},
	{[]int{1, 12, 10, 6}, []int{24, 3, 2, 6}, Conv2DOptions{Padding: ops.PaddingSame, StrideW: 2, StrideH: 3, DilationWFactor: 2, DilationHFactor: 1}},
	{[]int{1, 8, 8, 16}, []int{32, 3, 3, 16}, Conv2DOptions{Padding: ops.PaddingSame, StrideW: 2, StrideH: 2, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu6}},
	{[]int{1, 11, 9, 4}, []int{40, 2, 3, 4}, Conv2DOptions{Padding: ops.PaddingValid, StrideW: 1, StrideH: 2, DilationWFactor: 1, DilationHFactor: 2}},
	{[]int{1, 3, 3, 40}, []int{37, 3, 3, 40}, Conv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu}},
	{[]int{1, 2, 2, 80}, []int{70, 3, 3, 80}, Conv2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1}},
	{[]int{1, 4, 4, 16}, []int{100, 1, 1, 16}, Conv2DOptions{Padding: ops.PaddingValid, StrideW: 1, StrideH: 1, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu6}},
}

// TestConv2DChannelBlocks checks that the small-map cases of convCases
// are split by channel blocks on four threads (their results are checked
// against one thread's by run's sweep in the random tests), each block a
// multiple of arch.GemmBlock but the last, which is at least one block.
func TestConv2DChannelBlocks(t *testing.T) {
	pool := parallel.New(4)
	defer pool.Stop()
	r := lcg(2)
	for _, tc := range convCases[len(convCases)-3:] {
		oc := tc.fShape[0]
		opts := tc.opts
		n := node(&opts, []*ops.Tensor{tensorOf(ops.Float32, tc.inShape, randFloats(&r, prod(tc.inShape), -1, 1)), constT(tensorOf(ops.Float32, tc.fShape, randFloats(&r, prod(tc.fShape), -1, 1))), tensorOf(ops.Float32, []int{oc}, randFloats(&r, oc, -1, 1))}, outTensor(ops.Float32))
		n.Pool = pool
		k := NewConv2D().(*Conv2D)
		if err := prepare(k, n); err != nil {
			t.Fatal(err)
		}
		if k.matVec {
			continue // the matrix-vector path keeps whole pixels
		}
		if k.chBlocks < 2 {
			t.Fatalf("%v * %v: %d channel blocks on 4 threads, want several", tc.inShape, tc.fShape, k.chBlocks)
		}
		prev := 0
		for b := 0; b < k.chBlocks; b++ {
			j0, j1 := k.chRange(b)
			if j0 != prev || j0%arch.GemmBlock != 0 || j1-j0 < arch.GemmBlock || (b < k.chBlocks-1 && (j1-j0)%arch.GemmBlock != 0) {
				t.Fatalf("%v: block %d is [%d, %d)", tc.fShape, b, j0, j1)
			}
			prev = j1
		}
		if prev != oc {
			t.Fatalf("%v: blocks end at %d, want %d", tc.fShape, prev, oc)
		}
	}
}

func TestConv2DFloatRandom(t *testing.T) {
	r := lcg(11)
	for i, tc := range convCases {
		in := randFloats(&r, prod(tc.inShape), -1, 1)
		f := randFloats(&r, prod(tc.fShape), -1, 1)
		b := randFloats(&r, tc.fShape[0], -1, 1)
		opts := tc.opts
		n := convNode(&opts, tensorOf(ops.Float32, tc.inShape, in), constT(tensorOf(ops.Float32, tc.fShape, f)), tensorOf(ops.Float32, []int{tc.fShape[0]}, b), ops.Float32)
		k := NewConv2D()
		run(t, k, n)
		shape, want := convRefFloat(in, tc.inShape, f, tc.fShape, b, &opts)
		wantShape(t, n.Outputs[0].Shape, shape)
		// float32 rounding grows with the reduction's length (720 for
		// case 7): the float64 reference is met to 1e-5 per 256 terms.
		depth := tc.fShape[1] * tc.fShape[2] * tc.fShape[3]
		nearFloats(t, "case "+string(rune('0'+i)), n.Outputs[0].Float32s(), want, 1e-5*max(1, float64(depth)/256))
		noAllocs(t, k, n)
	}
}

// TestConv2DIndirectSameBits checks that the indirect float path (the
// GEMM reading windows in place) gives im2col's bits on every float case
// it takes, at every thread count (run's sweep).
func TestConv2DIndirectSameBits(t *testing.T) {
	r := lcg(12)
	taken := 0
	for i, tc := range convCases {
		in := randFloats(&r, prod(tc.inShape), -1, 1)
		f := randFloats(&r, prod(tc.fShape), -1, 1)
		b := randFloats(&r, tc.fShape[0], -1, 1)
		var outs [2][]float32
		for j, force := range []bool{false, true} {
			convForceIm2col = force
			opts := tc.opts
			n := convNode(&opts, tensorOf(ops.Float32, tc.inShape, in), constT(tensorOf(ops.Float32, tc.fShape, f)), tensorOf(ops.Float32, []int{tc.fShape[0]}, b), ops.Float32)
			k := NewConv2D()
			run(t, k, n)
			if !force && k.(*Conv2D).indirect {
				taken++
			}
			outs[j] = n.Outputs[0].Float32s()
		}
		convForceIm2col = false
		for e := range outs[0] {
			if math.Float32bits(outs[0][e]) != math.Float32bits(outs[1][e]) {
				t.Fatalf("case %d: element %d = %v indirect, %v through im2col", i, e, outs[0][e], outs[1][e])
			}
		}
	}
	if want := arch.GemmF32IndirectFast(16); want != (taken > 0) {
		t.Errorf("indirect path taken by %d cases, kernel available %v", taken, want)
	}
}

func prod(s []int) int {
	p := 1
	for _, d := range s {
		p *= d
	}
	return p
}

func TestConv2DNoBias(t *testing.T) {
	n := node(convOpts(ops.PaddingValid, 2, 2, ops.ActNone), []*ops.Tensor{tensorOf(ops.Float32, []int{2, 2, 4, 1}, convInput2x2x4), tensorOf(ops.Float32, []int{3, 2, 2, 1}, convFilter3), nil}, outTensor(ops.Float32))
	run(t, NewConv2D(), n)
	nearFloats(t, "output", n.Outputs[0].Float32s(), []float64{17, 0, 2, 17, 0, 2, 16, 2, 0, 36, 2, 0}, 0)
}

func TestConv2DUint8TFLiteVectors(t *testing.T) {
	// Input and filter range [-63.5, 64]: scale 0.5, zero point 127;
	// output [-127, 128]: scale 1, zero point 127; bias scale 0.25.
	u8 := func(shape []int, v []float32, s float32, zp int32) *ops.Tensor {
		return q(tensorOf(ops.Uint8, shape, toUint8(quantizeTo(v, s, zp, 0, 255))), s, int64(zp))
	}
	bias := func(v []float32, s float32) *ops.Tensor {
		return q(tensorOf(ops.Int32, []int{len(v)}, quantizeTo(v, s, 0, math.MinInt32, math.MaxInt32)), s, 0)
	}
	for _, tc := range []struct {
		name            string
		inShape, fShape []int
		in, f, b        []float32
		opts            *Conv2DOptions
		inS, outS       float32
		inZP, outZP     int32
		want            []int
	}{
		{"SimpleTestQuantized", []int{2, 2, 4, 1}, []int{3, 2, 2, 1}, convInput2x2x4, convFilter3, []float32{1, 2, 3},
			convOpts(ops.PaddingValid, 2, 2, ops.ActNone), 0.5, 1, 127, 127, []int{145, 129, 132, 145, 129, 132, 144, 131, 130, 164, 131, 130}},
		{"SimpleTestQuantizedGrouped", []int{2, 2, 2, 2}, []int{2, 2, 2, 1}, convInput2x2x4, convFilter3[:8], []float32{1, 2},
			convOpts(ops.PaddingValid, 2, 2, ops.ActNone), 0.5, 1, 127, 127, []int{145, 129, 150, 133}},
		{"SimpleTestQuantizedWithAnisotropicStrides", []int{1, 3, 6, 1}, []int{1, 2, 2, 1},
			[]float32{3, 2, 1, -1, -2, -3, 4, 3, 2, -2, -3, -4, 5, 4, 3, -3, -4, -5}, []float32{1, 2, 3, 4}, []float32{-1},
			convOpts(ops.PaddingValid, 3, 1, ops.ActNone), 0.5, 1, 127, 127, []int{157, 103, 167, 93}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := convNode(tc.opts, u8(tc.inShape, tc.in, tc.inS, tc.inZP), constT(u8(tc.fShape, tc.f, tc.inS, tc.inZP)), bias(tc.b, tc.inS*tc.inS), ops.Uint8)
			n.Outputs[0] = q(outTensor(ops.Uint8), tc.outS, int64(tc.outZP))
			k := NewConv2D()
			run(t, k, n)
			equalInts(t, "output", n.Outputs[0].Uint8s(), tc.want)
			noAllocs(t, k, n)
		})
	}
	t.Run("SimpleTestQuantizedWithDilation", func(t *testing.T) {
		// Input [0, 255] → scale 1, zero point 0; filter [-128, 127] →
		// scale 1, zero point 128; output [0, 255].
		in := make([]float32, 81)
		for y := 3; y < 6; y++ {
			for x := 3; x < 6; x++ {
				in[y*9+x] = 1
			}
		}
		opts := convOpts(ops.PaddingValid, 1, 1, ops.ActNone)
		opts.DilationWFactor, opts.DilationHFactor = 3, 3
		n := convNode(opts, u8([]int{1, 9, 9, 1}, in, 1, 0), u8([]int{1, 3, 3, 1}, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 128), bias([]float32{0}, 1), ops.Uint8)
		n.Outputs[0] = q(outTensor(ops.Uint8), 1, 0)
		run(t, NewConv2D(), n)
		equalInts(t, "output", n.Outputs[0].Uint8s(), []int{5, 5, 5, 5, 5, 5, 5, 5, 5})
	})
}

// int8ConvNode builds TFLite's per-channel test model: input scale 0.5
// zero point -1, symmetric filter with the given channel scales, bias at
// input_scale·filter_scale, output scale 0.5 zero point -1.
func int8ConvNode(opts *Conv2DOptions, inShape, fShape []int, in, f, b []float32, fScales []float32) *ops.Node {
	oc := fShape[0]
	per := len(f) / oc
	fq := make([]int8, len(f))
	bq := make([]int32, oc)
	bs := make([]float32, oc)
	for c := 0; c < oc; c++ {
		s := fScales[0]
		if len(fScales) > 1 {
			s = fScales[c]
		}
		copy(fq[c*per:], toInt8(quantizeTo(f[c*per:(c+1)*per], s, 0, -127, 127)))
		bs[c] = 0.5 * s
		bq[c] = int32(math.Round(float64(b[c]) / float64(bs[c])))
	}
	ft := constT(tensorOf(ops.Int8, fShape, fq))
	ft.Quant = &ops.Quantization{Scale: fScales, ZeroPoint: make([]int64, len(fScales))}
	bt := constT(tensorOf(ops.Int32, []int{oc}, bq))
	bt.Quant = &ops.Quantization{Scale: bs, ZeroPoint: make([]int64, oc)}
	return node(opts, []*ops.Tensor{q(tensorOf(ops.Int8, inShape, toInt8(quantizeTo(in, 0.5, -1, -128, 127))), 0.5, -1), ft, bt}, q(outTensor(ops.Int8), 0.5, -1))
}

func TestConv2DInt8TFLiteVectors(t *testing.T) {
	in := []float32{3, 2, 1, -1, -2, -3, 4, 3, 2, -2, -3, -4}
	f := []float32{1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 5, 6, 3, 4, 1, 2}
	for _, tc := range []struct {
		name   string
		scales []float32
		want   []int
	}{
		{"SimplePerTensorTest", []float32{1}, []int{61, 111, -115, -89}},
		{"SimplePerChannelTest", []float32{1, 2}, []int{61, 127, -115, -93}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := int8ConvNode(convOpts(ops.PaddingValid, 1, 1, ops.ActNone), []int{1, 2, 3, 2}, []int{2, 2, 2, 2}, in, f, []float32{3, -2}, tc.scales)
			k := NewConv2D()
			run(t, k, n)
			wantShape(t, n.Outputs[0].Shape, []int{1, 1, 2, 2})
			equalInts(t, "output", n.Outputs[0].Int8s(), tc.want)
			noAllocs(t, k, n)
		})
	}
}

// convRefQuant is TFLite's integer convolution written out naively:
// Σ (w + wOff)(x + inOff) over in-image taps plus bias, rescaled per
// channel with MultiplyByQuantizedMultiplier (or, up, with
// MultiplyByQuantizedMultiplierUp: the ruy GEMM of an ungrouped int8
// convolution), offset and clamped.
func convRefQuant(in []int32, inShape []int, filter []int32, fShape []int, bias []int32, o *Conv2DOptions, inOff, wOff, outOff int32, mult []int32, shift []int, lo, hi int32, up bool) []int32 {
	b, ih, iw, ic := inShape[0], inShape[1], inShape[2], inShape[3]
	oc, fh, fw, fic := fShape[0], fShape[1], fShape[2], fShape[3]
	groups := ic / fic
	hw, _ := newWindow(o.Padding, ih, fh, o.StrideH, o.DilationHFactor, "h")
	ww, _ := newWindow(o.Padding, iw, fw, o.StrideW, o.DilationWFactor, "w")
	var out []int32
	for n := 0; n < b; n++ {
		for oy := 0; oy < hw.out; oy++ {
			for ox := 0; ox < ww.out; ox++ {
				for c := 0; c < oc; c++ {
					g := c / (oc / groups)
					var acc int32
					for y := 0; y < fh; y++ {
						for x := 0; x < fw; x++ {
							iy := oy*o.StrideH - hw.pad + y*o.DilationHFactor
							ix := ox*o.StrideW - ww.pad + x*o.DilationWFactor
							if iy < 0 || iy >= ih || ix < 0 || ix >= iw {
								continue
							}
							for z := 0; z < fic; z++ {
								acc += (filter[((c*fh+y)*fw+x)*fic+z] + wOff) * (in[((n*ih+iy)*iw+ix)*ic+g*fic+z] + inOff)
							}
						}
					}
					acc += bias[c]
					v := ops.MultiplyByQuantizedMultiplier(acc, mult[c], shift[c])
					if up {
						v = ops.MultiplyByQuantizedMultiplierUp(acc, mult[c], shift[c])
					}
					out = append(out, min(max(v+outOff, lo), hi))
				}
			}
		}
	}
	return out
}

func randInts(r *lcg, n int, lo, hi int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(r.intn(lo, hi))
	}
	return v
}

func TestConv2DInt8Random(t *testing.T) {
	r := lcg(5)
	for i, tc := range convCases {
		oc := tc.fShape[0]
		in := randInts(&r, prod(tc.inShape), -128, 127)
		f := randInts(&r, prod(tc.fShape), -127, 127)
		b := randInts(&r, oc, -3000, 3000)
		scales := make([]float32, oc)
		for c := range scales {
			scales[c] = r.float(0.001, 0.01)
		}
		const inS, outS, inZP, outZP = 0.05, 0.08, 7, -5
		ft := constT(tensorOf(ops.Int8, tc.fShape, toInt8(f)))
		ft.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, oc)}
		opts := tc.opts
		n := node(&opts, []*ops.Tensor{q(tensorOf(ops.Int8, tc.inShape, toInt8(in)), inS, inZP), ft, tensorOf(ops.Int32, []int{oc}, b)}, q(outTensor(ops.Int8), outS, outZP))
		k := NewConv2D()
		run(t, k, n)
		mult, shift := make([]int32, oc), make([]int, oc)
		for c := range mult {
			mult[c], shift[c] = ops.QuantizeMultiplier(float64(float32(inS)) * float64(scales[c]) / float64(float32(outS)))
		}
		lo, hi, _ := ActivationRangeQuantized(opts.Activation, n.Outputs[0])
		want := convRefQuant(in, tc.inShape, f, tc.fShape, b, &opts, -inZP, 0, outZP, mult, shift, lo, hi, tc.inShape[3] == tc.fShape[3])
		equalInts(t, "case "+string(rune('0'+i)), n.Outputs[0].Int8s(), want)
		noAllocs(t, k, n)
	}
}

func TestConv2DUint8Random(t *testing.T) {
	r := lcg(9)
	for i, tc := range convCases {
		oc := tc.fShape[0]
		in := randInts(&r, prod(tc.inShape), 0, 255)
		f := randInts(&r, prod(tc.fShape), 0, 255)
		b := randInts(&r, oc, -3000, 3000)
		const inS, fS, outS, inZP, fZP, outZP = 0.05, 0.004, 0.3, 131, 119, 120
		opts := tc.opts
		for _, constFilter := range []bool{true, false} {
			ft := q(tensorOf(ops.Uint8, tc.fShape, toUint8(f)), fS, fZP)
			if constFilter {
				constT(ft)
			}
			n := node(&opts, []*ops.Tensor{q(tensorOf(ops.Uint8, tc.inShape, toUint8(in)), inS, inZP), ft, q(tensorOf(ops.Int32, []int{oc}, b), inS*fS, 0)}, q(outTensor(ops.Uint8), outS, outZP))
			k := NewConv2D()
			run(t, k, n)
			m, s := ops.QuantizeMultiplier(float64(float32(inS)*float32(fS)) / float64(float32(outS)))
			mult, shift := make([]int32, oc), make([]int, oc)
			for c := range mult {
				mult[c], shift[c] = m, s
			}
			lo, hi, _ := ActivationRangeQuantized(opts.Activation, n.Outputs[0])
			want := convRefQuant(in, tc.inShape, f, tc.fShape, b, &opts, -inZP, -fZP, outZP, mult, shift, lo, hi, false)
			equalInts(t, "case "+string(rune('0'+i)), n.Outputs[0].Uint8s(), want)
			noAllocs(t, k, n)
		}
	}
}

func TestConv2DHybrid(t *testing.T) {
	// PointwiseHybridInt8: filter {1, 2} quantised with scale 2/127.
	in := []float32{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, 1, 1, 1, 1, 1, 1, 0.5, 0.5, 1, 1, 1.5, 1.5, 2, 2, 0.5, 0.5, 1, 1, 1.5, 1.5, 2, 2}
	fs := float32(2.0 / 127)
	ft := q(constT(tensorOf(ops.Int8, []int{1, 1, 1, 2}, toInt8(quantizeTo([]float32{1, 2}, fs, 0, -127, 127)))), fs, 0)
	n := convNode(convOpts(ops.PaddingValid, 1, 1, ops.ActNone), tensorOf(ops.Float32, []int{2, 2, 4, 2}, in), ft, tensorOf(ops.Float32, []int{1}, []float32{0}), ops.Float32)
	k := NewConv2D()
	run(t, k, n)
	nearFloats(t, "PointwiseHybridInt8", n.Outputs[0].Float32s(), []float64{1.5, 1.5, 1.5, 1.5, 3, 3, 3, 3, 1.5, 3, 4.5, 6, 1.5, 3, 4.5, 6}, 0.0316)
	noAllocs(t, k, n)

	// Random geometries against an exact model of the hybrid arithmetic:
	// symmetric per-image input quantisation, int32 products, float
	// rescale (and the asymmetric variant for differing channel scales).
	r := lcg(21)
	for i, tc := range convCases {
		if tc.inShape[3] != tc.fShape[3] {
			continue // grouped hybrid is refused
		}
		oc := tc.fShape[0]
		x := randFloats(&r, prod(tc.inShape), -2, 2)
		fw := randInts(&r, prod(tc.fShape), -127, 127)
		bias := randFloats(&r, oc, -1, 1)
		for _, perChannel := range []bool{false, true} {
			scales := []float32{0.01}
			if perChannel {
				scales = make([]float32, oc)
				for c := range scales {
					scales[c] = 0.01 * float32(c+1)
				}
			}
			ft := constT(tensorOf(ops.Int8, tc.fShape, toInt8(fw)))
			ft.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, len(scales))}
			opts := tc.opts
			n := convNode(&opts, tensorOf(ops.Float32, tc.inShape, x), ft, tensorOf(ops.Float32, []int{oc}, bias), ops.Float32)
			k := NewConv2D()
			run(t, k, n)
			// Reference: quantise each image as TFLite does, then run the
			// uint8-free integer reference with zero offsets and rescale.
			img := prod(tc.inShape[1:])
			qin := make([]int32, len(x))
			sf := make([]float32, tc.inShape[0])
			zp := make([]int32, tc.inShape[0])
			for bi := range sf {
				q8 := make([]int8, img)
				if perChannel {
					sf[bi], zp[bi] = ops.AsymmetricQuantizeFloats(x[bi*img:(bi+1)*img], q8)
				} else {
					sf[bi] = ops.SymmetricQuantizeFloats(x[bi*img:(bi+1)*img], q8)
				}
				for j, v := range q8 {
					qin[bi*img+j] = int32(v)
				}
			}
			unit := make([]int32, oc)
			zeroShift := make([]int, oc)
			for c := range unit {
				unit[c] = 1 << 30 // ×0.5 after the doubling high multiply, undone below
				zeroShift[c] = 1
			}
			got := n.Outputs[0].Float32s()
			per := len(got) / tc.inShape[0]
			lo, hi := ActivationRangeFloat(opts.Activation)
			for bi := range sf {
				one := append([]int(nil), tc.inShape...)
				one[0] = 1
				acc := convRefQuant(qin[bi*img:(bi+1)*img], one, fw, tc.fShape, make([]int32, oc), &opts, -zp[bi], 0, 0, unit, zeroShift, math.MinInt32, math.MaxInt32, false)
				for j, a := range acc {
					c := j % oc
					var v float32
					if perChannel {
						v = float32(a) * float32(scales[c]*sf[bi])
					} else {
						v = float32(a) * (sf[bi] * scales[0])
					}
					v += bias[c]
					v = clampF32(v, lo, hi)
					if g := got[bi*per+j]; g != v {
						t.Fatalf("case %d perChannel=%v: element %d = %v, want %v", i, perChannel, bi*per+j, g, v)
					}
				}
			}
			noAllocs(t, k, n)
		}
	}
}

func TestConv2DErrors(t *testing.T) {
	f32 := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	ok := convOpts(ops.PaddingValid, 1, 1, ops.ActNone)
	for _, tc := range []struct {
		name string
		n    *ops.Node
		frag string
	}{
		{"options", node(nil, []*ops.Tensor{f32(1, 2, 2, 1), f32(1, 1, 1, 1)}, outTensor(ops.Float32)), "Conv2DOptions"},
		{"rank", node(ok, []*ops.Tensor{f32(2, 2, 1), f32(1, 1, 1, 1)}, outTensor(ops.Float32)), "rank 3"},
		{"filter rank", node(ok, []*ops.Tensor{f32(1, 2, 2, 1), f32(1, 1, 1)}, outTensor(ops.Float32)), "input 1 (filter): rank 3"},
		{"channels", node(ok, []*ops.Tensor{f32(1, 2, 2, 3), f32(1, 1, 1, 2)}, outTensor(ops.Float32)), "not a multiple"},
		{"groups", node(ok, []*ops.Tensor{f32(1, 2, 2, 4), f32(3, 1, 1, 2)}, outTensor(ops.Float32)), "groups"},
		{"bias", node(ok, []*ops.Tensor{f32(1, 2, 2, 1), f32(2, 1, 1, 1), f32(3)}, outTensor(ops.Float32)), "input 2 (bias)"},
		{"stride", node(convOpts(ops.PaddingValid, 0, 1, ops.ActNone), []*ops.Tensor{f32(1, 2, 2, 1), f32(1, 1, 1, 1)}, outTensor(ops.Float32)), "stride 0"},
		{"padding", node(convOpts(ops.Padding(7), 1, 1, ops.ActNone), []*ops.Tensor{f32(1, 2, 2, 1), f32(1, 1, 1, 1)}, outTensor(ops.Float32)), "PADDING(7)"},
		{"too big", node(ok, []*ops.Tensor{f32(1, 1, 1, 1), f32(1, 3, 3, 1)}, outTensor(ops.Float32)), "exceeds the input"},
		{"types", node(ok, []*ops.Tensor{f32(1, 2, 2, 1), tensorOf(ops.Int16, []int{1, 1, 1, 1}, []int16{1})}, outTensor(ops.Float32)), "int16 not supported"},
		{"out type", node(ok, []*ops.Tensor{f32(1, 2, 2, 1), f32(1, 1, 1, 1)}, outTensor(ops.Int8)), "output 0: type int8"},
		{"tanh", node(convOpts(ops.PaddingValid, 1, 1, ops.ActTanh), []*ops.Tensor{f32(1, 2, 2, 1), f32(1, 1, 1, 1)}, outTensor(ops.Float32)), "TANH"},
		{"unquantized int8", node(ok, []*ops.Tensor{tensorOf(ops.Int8, []int{1, 2, 2, 1}, make([]int8, 4)), tensorOf(ops.Int8, []int{1, 1, 1, 1}, []int8{1})}, outTensor(ops.Int8)), "quantization"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantPrepareError(t, NewConv2D(), tc.n, tc.frag) })
	}
	// Asymmetric int8 filter (TFLite's AsymmetricPerchannelQuantization).
	ft := tensorOf(ops.Int8, []int{1, 1, 1, 1}, []int8{1})
	ft.Quant = &ops.Quantization{Scale: []float32{1}, ZeroPoint: []int64{1}}
	n := node(ok, []*ops.Tensor{q(tensorOf(ops.Int8, []int{1, 2, 2, 1}, make([]int8, 4)), 0.5, -1), ft}, q(outTensor(ops.Int8), 0.5, -1))
	wantPrepareError(t, NewConv2D(), n, "symmetric")
	// Per-channel scales along the wrong dimension.
	ft = tensorOf(ops.Int8, []int{2, 1, 1, 3}, make([]int8, 6))
	ft.Quant = &ops.Quantization{Scale: []float32{1, 1}, ZeroPoint: []int64{0, 0}, QuantizedDimension: 3}
	n = node(ok, []*ops.Tensor{q(tensorOf(ops.Int8, []int{1, 2, 2, 3}, make([]int8, 12)), 0.5, -1), ft}, q(outTensor(ops.Int8), 0.5, -1))
	wantPrepareError(t, NewConv2D(), n, "per-channel")
}

// TestRequantRowMatchesReference checks the inlined requantisation against
// MultiplyByQuantizedMultiplier on random and extreme accumulators and on
// multipliers with left and right shifts (outputs clamped to int16 so that
// every distinct result stays visible).
func TestRequantRowMatchesReference(t *testing.T) {
	r := lcg(31)
	accs := []int32{0, 1, -1, 2, -2, 3, -3, 1 << 20, -(1 << 20), 1<<30 - 1, -(1 << 30), math.MaxInt32, math.MinInt32}
	for i := 0; i < 2000; i++ {
		accs = append(accs, int32(r.next()), int32(r.intn(-100000, 100000)))
	}
	got := make([]int16, len(accs))
	for _, m := range []float64{1e-9, 3.1e-5, 0.0007, 0.01, 0.25, 0.49999, 0.5, 0.75, 1, 1.5, 7.9, 1000, 4.7e-10, 0.9999999, 1 << 20} {
		mult, shift := ops.QuantizeMultiplier(m)
		ch := newQuantChannel(mult, shift)
		chans := make([]quantChannel, len(accs))
		for i := range chans {
			chans[i] = ch
		}
		requantRow(got, accs, chans, 5, math.MinInt16, math.MaxInt16)
		for i, a := range accs {
			want := min(max(ops.MultiplyByQuantizedMultiplier(a, mult, shift)+5, math.MinInt16), math.MaxInt16)
			if int32(got[i]) != want {
				t.Fatalf("multiplier %g, acc %d: got %d, want %d", m, a, got[i], want)
			}
		}
	}
}

// TestConv2DMatVecPath runs the random and TFLite-vector tests through the
// per-pixel matrix-vector path that arm64 takes (arch.GemmPreferred).
func TestConv2DMatVecPath(t *testing.T) {
	convForceMatVec = true
	defer func() { convForceMatVec = false }()
	t.Run("FloatTFLiteVectors", TestConv2DFloatTFLiteVectors)
	t.Run("FloatRandom", TestConv2DFloatRandom)
	t.Run("Uint8TFLiteVectors", TestConv2DUint8TFLiteVectors)
	t.Run("Int8TFLiteVectors", TestConv2DInt8TFLiteVectors)
	t.Run("Int8Random", TestConv2DInt8Random)
	t.Run("Uint8Random", TestConv2DUint8Random)
	t.Run("NoBias", TestConv2DNoBias)
	t.Run("Hybrid", TestConv2DHybrid)
}

// TestConv2DFusedFloat runs the float convolutions of convCases with
// ops.Node.FusedFloat on both the indirect and the im2col path: within
// a few float32 ulps of the exact order's results (relative to the
// largest |output|), bit-identical on 2-4 threads (run's sweep) and
// between the two paths, and, at a level with fused kernels, not the
// exact order's bits everywhere (the flag reaches the kernels).
func TestConv2DFusedFloat(t *testing.T) {
	r := lcg(14)
	differs := false
	for i, tc := range convCases {
		in := randFloats(&r, prod(tc.inShape), -1, 1)
		f := randFloats(&r, prod(tc.fShape), -1, 1)
		b := randFloats(&r, tc.fShape[0], -1, 1)
		var outs [3][]float32
		for j, mode := range []struct{ fused, im2col bool }{{false, false}, {true, false}, {true, true}} {
			convForceIm2col = mode.im2col
			opts := tc.opts
			n := convNode(&opts, tensorOf(ops.Float32, tc.inShape, in), constT(tensorOf(ops.Float32, tc.fShape, f)), tensorOf(ops.Float32, []int{tc.fShape[0]}, b), ops.Float32)
			n.FusedFloat = mode.fused
			run(t, NewConv2D(), n)
			outs[j] = n.Outputs[0].Float32s()
		}
		convForceIm2col = false
		exact, fused := outs[0], outs[1]
		maxAbs := 0.0
		for _, v := range exact {
			maxAbs = max(maxAbs, math.Abs(float64(v)))
		}
		k := prod(tc.fShape[1:])
		tol := float64(k) * 0x1p-23 * (maxAbs + 1)
		for e := range exact {
			if d := math.Abs(float64(fused[e]) - float64(exact[e])); d > tol {
				t.Fatalf("case %d: element %d = %v fused, %v exact (|diff| %g > %g)", i, e, fused[e], exact[e], d, tol)
			}
			if math.Float32bits(fused[e]) != math.Float32bits(outs[2][e]) {
				t.Fatalf("case %d: element %d = %v fused indirect, %v fused through im2col", i, e, fused[e], outs[2][e])
			}
			differs = differs || fused[e] != exact[e]
		}
	}
	if want := arch.GemmF32IndirectFast(16) && arch.Current() == arch.AVX512; want && !differs {
		t.Errorf("at %s every fused result has the exact order's bits: the kernels did not fuse", arch.Current())
	}
}
