package builtin

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/ops"
)

// Benchmarks of CONV_2D and DEPTHWISE_CONV_2D on layer shapes of the
// MobileNet v1 0.25 visual-wake-words model (vww_96): the 3x3 stride-2
// input layer, pointwise layers from 48x48x8 down to 3x3x256, and the
// depthwise layers at each resolution, float32 and int8.

type benchLayer struct {
	name      string
	h, w, c   int
	oc, f, s  int
	depthwise bool
}

var vwwLayers = []benchLayer{
	{"conv0_96x96x3_k3s2", 96, 96, 3, 8, 3, 2, false},
	{"dw_48x48x8", 48, 48, 8, 8, 3, 1, true},
	{"pw_48x48_8to16", 48, 48, 8, 16, 1, 1, false},
	{"dw_48x48x16_s2", 48, 48, 16, 16, 3, 2, true},
	{"pw_24x24_16to32", 24, 24, 16, 32, 1, 1, false},
	{"dw_24x24x32", 24, 24, 32, 32, 3, 1, true},
	{"pw_12x12_64to64", 12, 12, 64, 64, 1, 1, false},
	{"pw_6x6_128to128", 6, 6, 128, 128, 1, 1, false},
	{"pw_3x3_256to256", 3, 3, 256, 256, 1, 1, false},
}

func benchNode(l benchLayer, typ ops.DataType) (ops.Kernel, *ops.Node) {
	r := lcg(1)
	pad := ops.PaddingSame
	var fshape []int
	if l.depthwise {
		fshape = []int{1, l.f, l.f, l.oc}
	} else {
		fshape = []int{l.oc, l.f, l.f, l.c}
	}
	var in, f, b *ops.Tensor
	if typ == ops.Float32 {
		in = tensorOf(ops.Float32, []int{1, l.h, l.w, l.c}, randFloats(&r, l.h*l.w*l.c, -1, 1))
		f = constT(tensorOf(ops.Float32, fshape, randFloats(&r, prod(fshape), -1, 1)))
		b = constT(tensorOf(ops.Float32, []int{l.oc}, randFloats(&r, l.oc, -1, 1)))
	} else {
		in = q(tensorOf(ops.Int8, []int{1, l.h, l.w, l.c}, toInt8(randInts(&r, l.h*l.w*l.c, -128, 127))), 0.02, -3)
		f = constT(tensorOf(ops.Int8, fshape, toInt8(randInts(&r, prod(fshape), -127, 127))))
		scales := make([]float32, l.oc)
		for i := range scales {
			scales[i] = 0.003 + 0.0001*float32(i)
		}
		qd := 0
		if l.depthwise {
			qd = 3
		}
		f.Quant = &ops.Quantization{Scale: scales, ZeroPoint: make([]int64, l.oc), QuantizedDimension: qd}
		b = constT(tensorOf(ops.Int32, []int{l.oc}, randInts(&r, l.oc, -1000, 1000)))
	}
	var out *ops.Tensor
	if typ == ops.Float32 {
		out = outTensor(ops.Float32)
	} else {
		out = q(outTensor(ops.Int8), 0.05, -128)
	}
	var k ops.Kernel
	var opts any
	if l.depthwise {
		k = NewDepthwiseConv2D()
		opts = &DepthwiseConv2DOptions{Padding: pad, StrideW: l.s, StrideH: l.s, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu6}
	} else {
		k = NewConv2D()
		opts = &Conv2DOptions{Padding: pad, StrideW: l.s, StrideH: l.s, DilationWFactor: 1, DilationHFactor: 1, Activation: ops.ActRelu6}
	}
	return k, node(opts, []*ops.Tensor{in, f, b}, out)
}

func BenchmarkVWWLayers(b *testing.B) {
	for _, typ := range []ops.DataType{ops.Float32, ops.Int8} {
		for _, l := range vwwLayers {
			b.Run(fmt.Sprintf("%s/%s", typ, l.name), func(b *testing.B) {
				k, n := benchNode(l, typ)
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

// BenchmarkThreadedLayers times the threaded families (CONV_2D,
// DEPTHWISE_CONV_2D, FULLY_CONNECTED) on vww_96 layer shapes and a
// 1024×1024 FULLY_CONNECTED at 1, 2 and 4 threads, with the work
// threshold in force (parallel.MinWork): compare the threads= lines of
// one run for the speed-up.
func BenchmarkThreadedLayers(b *testing.B) {
	pools := map[int]*parallel.Pool{1: nil, 2: parallel.New(2), 4: parallel.New(4)}
	defer func() {
		for _, p := range pools {
			p.Stop()
		}
	}()
	type bench struct {
		name string
		make func() (ops.Kernel, *ops.Node)
	}
	var cases []bench
	for _, typ := range []ops.DataType{ops.Float32, ops.Int8} {
		for _, l := range vwwLayers {
			cases = append(cases, bench{fmt.Sprintf("%s/%s", typ, l.name), func() (ops.Kernel, *ops.Node) { return benchNode(l, typ) }})
		}
	}
	cases = append(cases, bench{"float32/fc_1024to1024", func() (ops.Kernel, *ops.Node) {
		r := lcg(2)
		in := tensorOf(ops.Float32, []int{1, 1024}, randFloats(&r, 1024, -1, 1))
		w := constT(tensorOf(ops.Float32, []int{1024, 1024}, randFloats(&r, 1024*1024, -1, 1)))
		return NewFullyConnected(), node(&FullyConnectedOptions{}, []*ops.Tensor{in, w}, outTensor(ops.Float32))
	}})
	for _, c := range cases {
		for _, threads := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/threads=%d", c.name, threads), func(b *testing.B) {
				k, n := c.make()
				n.Pool = pools[threads]
				if err := prepare(k, n); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := k.Eval(n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
