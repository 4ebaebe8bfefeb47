package builtin

import (
	"math"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// Test vectors from TFLite's pooling_test.cc (FloatPoolingOpTest and
// QuantizedPoolingOpTest: AveragePool, ...ActivationRelu/Relu1/Relu6,
// ...PaddingSameStride1, ...PaddingValidStride1, SymmetricAveragePool,
// SymmetricAveragePool16, MaxPool...), plus a naive reference with
// TFLite's integer rounding on random data.

var poolIn = []float32{0, 6, 2, 4, 3, 2, 10, 7}

func poolOpts(pad ops.Padding, stride int, act ops.Activation) *Pool2DOptions {
	return &Pool2DOptions{Padding: pad, StrideW: stride, StrideH: stride, FilterWidth: 2, FilterHeight: 2, Activation: act}
}

func TestPoolFloatTFLiteVectors(t *testing.T) {
	for _, tc := range []struct {
		name string
		k    func() ops.Kernel
		in   []float32
		opts *Pool2DOptions
		want []float64
	}{
		{"AveragePool", NewAveragePool2D, poolIn, poolOpts(ops.PaddingValid, 2, ops.ActNone), []float64{2.75, 5.75}},
		{"AveragePoolActivationRelu", NewAveragePool2D, []float32{0, -6, 2, 4, 3, 2, -10, 7}, poolOpts(ops.PaddingValid, 2, ops.ActRelu), []float64{0, 0.75}},
		{"AveragePoolActivationRelu1", NewAveragePool2D, []float32{0, -6, 2, 4, -3, -2, -10, 7}, poolOpts(ops.PaddingValid, 2, ops.ActReluN1To1), []float64{-1, 0.75}},
		{"AveragePoolActivationRelu6", NewAveragePool2D, []float32{0, 6, 12, 4, 3, 2, 10, 7}, poolOpts(ops.PaddingValid, 2, ops.ActRelu6), []float64{2.75, 6}},
		{"AveragePoolPaddingSameStride1", NewAveragePool2D, poolIn, poolOpts(ops.PaddingSame, 1, ops.ActNone), []float64{2.75, 5, 5.75, 5.5, 2.5, 6, 8.5, 7}},
		{"AveragePoolPaddingValidStride1", NewAveragePool2D, poolIn, poolOpts(ops.PaddingValid, 1, ops.ActNone), []float64{2.75, 5, 5.75}},
		{"MaxPool", NewMaxPool2D, poolIn, poolOpts(ops.PaddingValid, 2, ops.ActNone), []float64{6, 10}},
		{"MaxPoolActivationRelu", NewMaxPool2D, []float32{-1, -6, 2, 4, -3, -2, 10.5, 7}, poolOpts(ops.PaddingValid, 2, ops.ActRelu), []float64{0, 10.5}},
		{"MaxPoolActivationRelu1", NewMaxPool2D, []float32{-2.75, -6, 0.2, 0.4, -3, -2, -0.3, 0.7}, poolOpts(ops.PaddingValid, 2, ops.ActReluN1To1), []float64{-1, 0.7}},
		{"MaxPoolActivationRelu6", NewMaxPool2D, []float32{-1.5, -6, 12, 4, -3, -2, 10, 7}, poolOpts(ops.PaddingValid, 2, ops.ActRelu6), []float64{0, 6}},
		{"MaxPoolPaddingSameStride1", NewMaxPool2D, poolIn, poolOpts(ops.PaddingSame, 1, ops.ActNone), []float64{6, 10, 10, 7, 3, 10, 10, 7}},
		{"MaxPoolPaddingValidStride1", NewMaxPool2D, poolIn, poolOpts(ops.PaddingValid, 1, ops.ActNone), []float64{6, 10, 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := node(tc.opts, []*ops.Tensor{tensorOf(ops.Float32, []int{1, 2, 4, 1}, tc.in)}, outTensor(ops.Float32))
			k := tc.k()
			run(t, k, n)
			nearFloats(t, "output", n.Outputs[0].Float32s(), tc.want, 1e-6)
			noAllocs(t, k, n)
		})
	}
}

func TestPoolQuantizedTFLiteVectors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		k      func() ops.Kernel
		typ    ops.DataType
		lo, hi float64
		in     []float32
		opts   *Pool2DOptions
		want   []int
	}{
		{"AveragePool", NewAveragePool2D, ops.Uint8, 0, 15.9375, poolIn, poolOpts(ops.PaddingValid, 2, ops.ActNone), []int{44, 92}},
		{"AveragePoolActivationRelu", NewAveragePool2D, ops.Uint8, -15.9375, 15.9375, []float32{0, -6, 2, 4, 3, 2, -10, 7}, poolOpts(ops.PaddingValid, 2, ops.ActRelu), []int{128, 134}},
		{"AveragePoolActivationRelu1", NewAveragePool2D, ops.Uint8, -15.9375, 15.9375, []float32{0, -6, 2, 4, -3, -2, -10, 7}, poolOpts(ops.PaddingValid, 2, ops.ActReluN1To1), []int{120, 134}},
		{"AveragePoolActivationRelu1b", NewAveragePool2D, ops.Uint8, -15.9375, 15.9375, []float32{0, -6, -2, -4, -3, -2, 10, -7}, poolOpts(ops.PaddingValid, 2, ops.ActReluN1To1), []int{120, 122}},
		{"AveragePoolActivationRelu6", NewAveragePool2D, ops.Uint8, -15.9375, 15.9375, []float32{0, 6, 12, 4, 3, 2, 10, 7}, poolOpts(ops.PaddingValid, 2, ops.ActRelu6), []int{150, 176}},
		{"AveragePoolPaddingSameStride1", NewAveragePool2D, ops.Uint8, 0, 15.9375, poolIn, poolOpts(ops.PaddingSame, 1, ops.ActNone), []int{44, 80, 92, 88, 40, 96, 136, 112}},
		{"AveragePoolPaddingValidStride1", NewAveragePool2D, ops.Uint8, 0, 15.9375, poolIn, poolOpts(ops.PaddingValid, 1, ops.ActNone), []int{44, 80, 92}},
		{"SymmetricAveragePool", NewAveragePool2D, ops.Int8, 0, 15.9375, poolIn, poolOpts(ops.PaddingValid, 2, ops.ActNone), []int{44 - 128, 92 - 128}},
		{"SymmetricAveragePoolActivationRelu", NewAveragePool2D, ops.Int8, -15.9375, 15.8130, []float32{0, -6, 2, 4, 3, 2, -10, 7}, poolOpts(ops.PaddingValid, 2, ops.ActRelu), []int{0, 6}},
		{"SymmetricAveragePoolActivationRelu1", NewAveragePool2D, ops.Int8, -15.9375, 15.8130, []float32{0, -6, 2, 4, -3, -2, -10, 7}, poolOpts(ops.PaddingValid, 2, ops.ActReluN1To1), []int{-8, 6}},
		{"SymmetricAveragePool16", NewAveragePool2D, ops.Int16, 0, 16 - 1.0/4096, poolIn, poolOpts(ops.PaddingValid, 2, ops.ActNone), []int{(44 - 128) * 256, (92 - 128) * 256}},
		{"MaxPool", NewMaxPool2D, ops.Uint8, 0, 15.9375, poolIn, poolOpts(ops.PaddingValid, 2, ops.ActNone), []int{96, 160}},
		{"SymmetricMaxPool", NewMaxPool2D, ops.Int8, 0, 15.9375, poolIn, poolOpts(ops.PaddingValid, 2, ops.ActNone), []int{96 - 128, 160 - 128}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := node(tc.opts, []*ops.Tensor{quantTensor(tc.typ, []int{1, 2, 4, 1}, tc.in, tc.lo, tc.hi)}, quantOut(tc.typ, tc.lo, tc.hi))
			k := tc.k()
			run(t, k, n)
			switch tc.typ {
			case ops.Uint8:
				equalInts(t, "output", n.Outputs[0].Uint8s(), tc.want)
			case ops.Int8:
				equalInts(t, "output", n.Outputs[0].Int8s(), tc.want)
			case ops.Int16:
				equalInts(t, "output", n.Outputs[0].Int16s(), tc.want)
			}
			noAllocs(t, k, n)
		})
	}
}

// TestAveragePoolIntRounding checks TFLite's rounding of the integer mean
// (half away from zero for int8, half up for uint8) against a naive loop on
// random data with SAME padding (windows of 2, 3, 4, 6 and 9 positions).
func TestAveragePoolIntRounding(t *testing.T) {
	r := lcg(77)
	shape := []int{2, 7, 5, 3}
	opts := &Pool2DOptions{Padding: ops.PaddingSame, StrideW: 2, StrideH: 2, FilterWidth: 3, FilterHeight: 3}
	for _, typ := range []ops.DataType{ops.Int8, ops.Uint8} {
		lo, hi, _ := ops.TypeRange(typ)
		v := randInts(&r, prod(shape), int(lo), int(hi))
		var in *ops.Tensor
		if typ == ops.Int8 {
			in = tensorOf(ops.Int8, shape, toInt8(v))
		} else {
			in = tensorOf(ops.Uint8, shape, toUint8(v))
		}
		n := node(opts, []*ops.Tensor{q(in, 0.1, 0)}, q(outTensor(typ), 0.1, 0))
		k := NewAveragePool2D()
		run(t, k, n)
		hw, _ := newWindow(ops.PaddingSame, 7, 3, 2, 1, "h")
		ww, _ := newWindow(ops.PaddingSame, 5, 3, 2, 1, "w")
		var want []int32
		for b := 0; b < 2; b++ {
			for oy := 0; oy < hw.out; oy++ {
				for ox := 0; ox < ww.out; ox++ {
					for c := 0; c < 3; c++ {
						sum, cnt := 0, 0
						for y := oy*2 - hw.pad; y < oy*2-hw.pad+3; y++ {
							for x := ox*2 - ww.pad; x < ox*2-ww.pad+3; x++ {
								if y >= 0 && y < 7 && x >= 0 && x < 5 {
									sum += int(v[((b*7+y)*5+x)*3+c])
									cnt++
								}
							}
						}
						// Half away from zero.
						m := math.Floor(math.Abs(float64(sum))/float64(cnt) + 0.5)
						want = append(want, int32(math.Copysign(m, float64(sum))))
					}
				}
			}
		}
		if typ == ops.Int8 {
			equalInts(t, "int8", n.Outputs[0].Int8s(), want)
		} else {
			equalInts(t, "uint8", n.Outputs[0].Uint8s(), want)
		}
	}
}

func TestPoolErrors(t *testing.T) {
	in := func(shape ...int) *ops.Tensor { return tensorOf(ops.Float32, shape, make([]float32, prod(shape))) }
	for _, tc := range []struct {
		name string
		k    func() ops.Kernel
		n    *ops.Node
		frag string
	}{
		{"options", NewMaxPool2D, node(nil, []*ops.Tensor{in(1, 2, 2, 1)}, outTensor(ops.Float32)), "Pool2DOptions"},
		{"rank", NewAveragePool2D, node(poolOpts(ops.PaddingValid, 1, ops.ActNone), []*ops.Tensor{in(2, 2, 1)}, outTensor(ops.Float32)), "rank 3"},
		{"stride", NewAveragePool2D, node(poolOpts(ops.PaddingValid, 0, ops.ActNone), []*ops.Tensor{in(1, 2, 2, 1)}, outTensor(ops.Float32)), "stride 0"},
		{"type", NewMaxPool2D, node(poolOpts(ops.PaddingValid, 1, ops.ActNone), []*ops.Tensor{tensorOf(ops.Int32, []int{1, 2, 2, 1}, make([]int32, 4))}, outTensor(ops.Int32)), "int32 not supported"},
		{"out type", NewMaxPool2D, node(poolOpts(ops.PaddingValid, 1, ops.ActNone), []*ops.Tensor{in(1, 2, 2, 1)}, outTensor(ops.Int8)), "output 0: type int8"},
		{"filter", NewMaxPool2D, node(&Pool2DOptions{Padding: ops.PaddingValid, StrideW: 1, StrideH: 1}, []*ops.Tensor{in(1, 2, 2, 1)}, outTensor(ops.Float32)), "filter size 0"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantPrepareError(t, tc.k(), tc.n, tc.frag) })
	}
}
