package builtin

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/ops"
)

// BenchmarkThreadedFamilies times one node of each threaded family
// besides the convolutions and FULLY_CONNECTED (BenchmarkThreadedLayers)
// at 1, 2 and 4 threads, with the work threshold in force
// (parallel.MinWork), on shapes of the corpus CNNs: compare the
// threads= lines of one run for the speed-up.
func BenchmarkThreadedFamilies(b *testing.B) {
	pools := map[int]*parallel.Pool{1: nil, 2: parallel.New(2), 4: parallel.New(4)}
	defer func() {
		for _, p := range pools {
			p.Stop()
		}
	}()
	r := lcg(3)
	i8 := func(shape ...int) *ops.Tensor {
		return q(tensorOf(ops.Int8, shape, toInt8(randInts(&r, prod(shape), -128, 127))), 0.05, -2)
	}
	u8 := func(shape ...int) *ops.Tensor {
		return q(tensorOf(ops.Uint8, shape, toUint8(randInts(&r, prod(shape), 0, 255))), 0.05, 120)
	}
	f32 := func(shape ...int) *ops.Tensor {
		return tensorOf(ops.Float32, shape, randFloats(&r, prod(shape), -2, 2))
	}
	type bench struct {
		name string
		make func() (ops.Kernel, *ops.Node)
	}
	cases := []bench{
		{"ADD/uint8_56x56x24", func() (ops.Kernel, *ops.Node) {
			return NewAdd(), node(&AddOptions{}, []*ops.Tensor{u8(1, 56, 56, 24), u8(1, 56, 56, 24)}, q(outTensor(ops.Uint8), 0.08, 128))
		}},
		{"ADD/float32_64x64x64", func() (ops.Kernel, *ops.Node) {
			return NewAdd(), node(&AddOptions{}, []*ops.Tensor{f32(1, 64, 64, 64), f32(1, 64, 64, 64)}, outTensor(ops.Float32))
		}},
		{"MUL/int8_80x80x32_by_channel", func() (ops.Kernel, *ops.Node) {
			return NewMul(), node(&MulOptions{}, []*ops.Tensor{i8(1, 80, 80, 32), i8(1, 1, 1, 32)}, q(outTensor(ops.Int8), 0.1, 0))
		}},
		{"MAX_POOL_2D/int8_20x20x128_5x5s1", func() (ops.Kernel, *ops.Node) {
			return NewMaxPool2D(), node(&Pool2DOptions{Padding: ops.PaddingSame, StrideW: 1, StrideH: 1, FilterWidth: 5, FilterHeight: 5}, []*ops.Tensor{i8(1, 20, 20, 128)}, q(outTensor(ops.Int8), 0.05, -2))
		}},
		{"MAX_POOL_2D/float32_64x64x32_2x2s2", func() (ops.Kernel, *ops.Node) {
			return NewMaxPool2D(), node(&Pool2DOptions{Padding: ops.PaddingValid, StrideW: 2, StrideH: 2, FilterWidth: 2, FilterHeight: 2}, []*ops.Tensor{f32(1, 128, 128, 32)}, outTensor(ops.Float32))
		}},
		{"SOFTMAX/int8_8400x16", func() (ops.Kernel, *ops.Node) {
			return NewSoftmax(), node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{i8(1, 4, 8400, 16)}, q(outTensor(ops.Int8), 1.0/256, -128))
		}},
		{"SOFTMAX/float32_8400x16", func() (ops.Kernel, *ops.Node) {
			return NewSoftmax(), node(&SoftmaxOptions{Beta: 1}, []*ops.Tensor{f32(1, 4, 8400, 16)}, outTensor(ops.Float32))
		}},
		{"ARG_MAX/uint8_257x257x21", func() (ops.Kernel, *ops.Node) {
			return NewArgMax(), node(&ArgMinMaxOptions{OutputType: ops.Int64}, []*ops.Tensor{u8(1, 257, 257, 21), constT(tensorOf(ops.Int32, []int{1}, []int32{3}))}, outTensor(ops.Int64))
		}},
		{"RESIZE_BILINEAR/float32_33x33x256_to_65x65", func() (ops.Kernel, *ops.Node) {
			return NewResizeBilinear(), node(&ResizeOptions{AlignCorners: true}, []*ops.Tensor{f32(1, 33, 33, 256), c32(65, 65)}, outTensor(ops.Float32))
		}},
		{"RESIZE_NEAREST_NEIGHBOR/int8_40x40x128_x2", func() (ops.Kernel, *ops.Node) {
			return NewResizeNearestNeighbor(), node(&ResizeOptions{}, []*ops.Tensor{i8(1, 40, 40, 128), c32(80, 80)}, q(outTensor(ops.Int8), 0.05, -2))
		}},
		{"CONCATENATION/uint8_rescale_1917x91", func() (ops.Kernel, *ops.Node) {
			a := quantTensor(ops.Uint8, []int{1, 1083, 91}, randFloats(&r, 1083*91, -3, 3), -4, 4)
			c := quantTensor(ops.Uint8, []int{1, 834, 91}, randFloats(&r, 834*91, -3, 3), -3, 5)
			return NewConcatenation(), node(&ConcatenationOptions{Axis: 1}, []*ops.Tensor{a, c}, quantOut(ops.Uint8, -4, 5))
		}},
		{"SUB/int8_80x80x64", func() (ops.Kernel, *ops.Node) {
			return NewSub(), node(&SubOptions{}, []*ops.Tensor{i8(1, 80, 80, 64), i8(1, 80, 80, 64)}, q(outTensor(ops.Int8), 0.1, 0))
		}},
		{"PRELU/float32_128x128x24_by_channel", func() (ops.Kernel, *ops.Node) {
			return NewPRelu(), node(nil, []*ops.Tensor{f32(1, 128, 128, 24), f32(1, 1, 24)}, outTensor(ops.Float32))
		}},
		{"LOGISTIC/float32_80x80x64", func() (ops.Kernel, *ops.Node) {
			return NewLogistic(), node(nil, []*ops.Tensor{f32(1, 80, 80, 64)}, outTensor(ops.Float32))
		}},
		{"HARD_SWISH/int8_112x112x16", func() (ops.Kernel, *ops.Node) {
			return NewHardSwish(), node(nil, []*ops.Tensor{i8(1, 112, 112, 16)}, q(outTensor(ops.Int8), 0.05, -2))
		}},
		{"RELU/int8_112x112x32", func() (ops.Kernel, *ops.Node) {
			return NewRelu(), node(nil, []*ops.Tensor{i8(1, 112, 112, 32)}, q(outTensor(ops.Int8), 0.05, -128))
		}},
		{"QUANTIZE/float32_to_int8_192x192x3", func() (ops.Kernel, *ops.Node) {
			return NewQuantize(), node(nil, []*ops.Tensor{f32(1, 192, 192, 3)}, q(outTensor(ops.Int8), 0.02, 0))
		}},
		{"DEQUANTIZE/int8_80x80x85", func() (ops.Kernel, *ops.Node) {
			return NewDequantize(), node(nil, []*ops.Tensor{i8(1, 80, 80, 85)}, outTensor(ops.Float32))
		}},
		{"PAD/float32_112x112x32_by_1", func() (ops.Kernel, *ops.Node) {
			p := constT(tensorOf(ops.Int32, []int{4, 2}, []int32{0, 0, 1, 1, 1, 1, 0, 0}))
			return NewPad(), node(nil, []*ops.Tensor{f32(1, 112, 112, 32), p}, outTensor(ops.Float32))
		}},
		{"TRANSPOSE/int8_84x8400", func() (ops.Kernel, *ops.Node) {
			p := constT(tensorOf(ops.Int32, []int{3}, []int32{0, 2, 1}))
			return NewTranspose(), node(nil, []*ops.Tensor{i8(1, 84, 8400), p}, q(outTensor(ops.Int8), 0.05, -2))
		}},
		{"RFFT2D/float32_96x1x512", func() (ops.Kernel, *ops.Node) {
			return NewRfft2d(), rfftNode(f32(96, 1, 512), 1, 512)
		}},
		{"CONCATENATION/float32_copy_40x40x256", func() (ops.Kernel, *ops.Node) {
			return NewConcatenation(), node(&ConcatenationOptions{Axis: 3}, []*ops.Tensor{f32(1, 40, 40, 128), f32(1, 40, 40, 128)}, outTensor(ops.Float32))
		}},
	}
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
