package builtin

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Benchmarks of the integer DEPTHWISE_CONV_2D at the layer shapes of the
// speed corpus's quantised models: MobileNet v2 int8 (3x3, stride 1 and
// 2, 32-960 channels), DeepLab v3 uint8 (257x257x16, dilation 2 over
// 480 channels), YOLO11n int8, and micro_speech's one channel with depth
// multiplier 8 and a 10x8 filter.

type dwQuantLayer struct {
	name         string
	typ          ops.DataType
	h, w, c, m   int
	fh, fw, s, d int
}

var dwQuantLayers = []dwQuantLayer{
	{"mnv2_112x112x32", ops.Int8, 112, 112, 32, 1, 3, 3, 1, 1},
	{"mnv2_112x112x96_s2", ops.Int8, 112, 112, 96, 1, 3, 3, 2, 1},
	{"mnv2_56x56x144", ops.Int8, 56, 56, 144, 1, 3, 3, 1, 1},
	{"mnv2_28x28x192", ops.Int8, 28, 28, 192, 1, 3, 3, 1, 1},
	{"mnv2_14x14x576", ops.Int8, 14, 14, 576, 1, 3, 3, 1, 1},
	{"mnv2_7x7x960", ops.Int8, 7, 7, 960, 1, 3, 3, 1, 1},
	{"yolo_80x80x64", ops.Int8, 80, 80, 64, 1, 3, 3, 1, 1},
	{"movenet_48x48x24", ops.Int8, 48, 48, 24, 1, 3, 3, 1, 1},
	{"odd_5x5_40x40x17", ops.Int8, 40, 40, 17, 1, 5, 5, 1, 1},
	{"deeplab_257x257x16_u8", ops.Uint8, 257, 257, 16, 1, 3, 3, 1, 1},
	{"deeplab_129x129x72_u8", ops.Uint8, 129, 129, 72, 1, 3, 3, 1, 1},
	{"deeplab_33x33x480_d2_u8", ops.Uint8, 33, 33, 480, 1, 3, 3, 1, 2},
	{"micro_speech_49x40x1_m8", ops.Int8, 49, 40, 1, 8, 10, 8, 2, 1},
}

func dwQuantBenchNode(l dwQuantLayer) (ops.Kernel, *ops.Node) {
	r := lcg(1)
	oc := l.c * l.m
	fshape := []int{1, l.fh, l.fw, oc}
	lo, hi := -128, 127
	if l.typ == ops.Uint8 {
		lo, hi = 0, 255
	}
	var in, f *ops.Tensor
	if l.typ == ops.Int8 {
		in = q(tensorOf(ops.Int8, []int{1, l.h, l.w, l.c}, toInt8(randInts(&r, l.h*l.w*l.c, lo, hi))), 0.02, -3)
		f = constT(tensorOf(ops.Int8, fshape, toInt8(randInts(&r, prod(fshape), -127, 127))))
		scales := make([]float32, oc)
		for i := range scales {
			scales[i] = 0.003 + 0.0001*float32(i%16)
		}
		f.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, oc), QuantizedDimension: 3}
	} else {
		in = q(tensorOf(ops.Uint8, []int{1, l.h, l.w, l.c}, toUint8(randInts(&r, l.h*l.w*l.c, lo, hi))), 0.02, 128)
		f = constT(tensorOf(ops.Uint8, fshape, toUint8(randInts(&r, prod(fshape), 0, 255))))
		f.Quant = &ops.Quantization{Scale: []float32{0.004}, ZeroPoint: []int64{120}, QuantizedDimension: 3}
	}
	b := constT(tensorOf(ops.Int32, []int{oc}, randInts(&r, oc, -1000, 1000)))
	out := q(outTensor(l.typ), 0.05, int64(lo))
	opts := &DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: l.s, StrideH: l.s, DilationWFactor: l.d, DilationHFactor: l.d, DepthMultiplier: l.m, Activation: ops.ActRelu6}
	return NewDepthwiseConv2D(), node(opts, []*ops.Tensor{in, f, b}, out)
}

func BenchmarkDepthwiseQuantLayers(b *testing.B) {
	for _, l := range dwQuantLayers {
		b.Run(fmt.Sprintf("%s", l.name), func(b *testing.B) {
			k, n := dwQuantBenchNode(l)
			if err := prepare(k, n); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := k.Eval(n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Benchmarks of DEPTHWISE_CONV_2D with one input channel and a depth
// multiplier, at the layer shapes of the corpus models in that class:
// magic_wand's float [1, 128, 3, 1] with a 4x3 filter and multiplier 8,
// the audio support model's float [1, 32, 64, 1] 3x3 multiplier 16,
// KNIFT's float [1, 32, 32, 1] 3x3 multiplier 16 (one of its 200
// images), person_detect's int8 [1, 96, 96, 1] 3x3 multiplier 8 stride
// 2, and micro_speech's int8 [1, 49, 40, 1] 10x8 multiplier 8 stride 2;
// and three input channels with multiplier 4 (blocks of channels reading
// several input channels), float and uint8, on a 40x40 image and on one
// 3 pixels wide.
type dwSmallLayer struct {
	name               string
	typ                ops.DataType
	h, w, c, m, fh, fw int
	stride             int
	act                ops.Activation
}

var dwSmallLayers = []dwSmallLayer{
	{"magic_wand_128x3x1_m8", ops.Float32, 128, 3, 1, 8, 4, 3, 1, ops.ActRelu},
	{"audio_32x64x1_m16", ops.Float32, 32, 64, 1, 16, 3, 3, 1, ops.ActRelu},
	{"knift_32x32x1_m16", ops.Float32, 32, 32, 1, 16, 3, 3, 1, ops.ActRelu6},
	{"float_40x40x3_m4", ops.Float32, 40, 40, 3, 4, 3, 3, 1, ops.ActNone},
	{"float_128x3x3_m4", ops.Float32, 128, 3, 3, 4, 4, 3, 1, ops.ActRelu},
	{"person_detect_96x96x1_m8_s2", ops.Int8, 96, 96, 1, 8, 3, 3, 2, ops.ActRelu6},
	{"micro_speech_49x40x1_m8_s2", ops.Int8, 49, 40, 1, 8, 10, 8, 2, ops.ActRelu},
	{"uint8_40x40x3_m4", ops.Uint8, 40, 40, 3, 4, 3, 3, 1, ops.ActRelu6},
}

func dwSmallBenchNode(l dwSmallLayer) (ops.Kernel, *ops.Node) {
	if l.typ != ops.Float32 {
		k, n := dwQuantBenchNode(dwQuantLayer{l.name, l.typ, l.h, l.w, l.c, l.m, l.fh, l.fw, l.stride, 1})
		n.Options.(*DepthwiseConv2DOptions).Activation = l.act
		return k, n
	}
	r := lcg(1)
	oc := l.c * l.m
	in := tensorOf(ops.Float32, []int{1, l.h, l.w, l.c}, randFloats(&r, l.h*l.w*l.c, -1, 1))
	f := constT(tensorOf(ops.Float32, []int{1, l.fh, l.fw, oc}, randFloats(&r, l.fh*l.fw*oc, -1, 1)))
	b := constT(tensorOf(ops.Float32, []int{oc}, randFloats(&r, oc, -1, 1)))
	opts := &DepthwiseConv2DOptions{Padding: ops.PaddingSame, StrideW: l.stride, StrideH: l.stride, DilationWFactor: 1, DilationHFactor: 1, DepthMultiplier: l.m, Activation: l.act}
	return NewDepthwiseConv2D(), node(opts, []*ops.Tensor{in, f, b}, outTensor(ops.Float32))
}

// BenchmarkDepthwiseSmallChannels runs each layer on the path Prepare
// chooses ("auto") and with the multiplier path turned off ("nomult").
func BenchmarkDepthwiseSmallChannels(b *testing.B) {
	for _, l := range dwSmallLayers {
		for _, use := range []int{0, -1} {
			name := l.name + "/auto"
			if use < 0 {
				name = l.name + "/nomult"
			}
			b.Run(name, func(b *testing.B) {
				defer func(v int) { dwMultUse = v }(dwMultUse)
				dwMultUse = use
				k, n := dwSmallBenchNode(l)
				if err := prepare(k, n); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := k.Eval(n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
