package builtin

import (
	"fmt"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

func TestResizeBilinear(t *testing.T) {
	f := func(shape []int, v ...float32) *ops.Tensor { return tensorOf(ops.Float32, shape, v) }
	nearFloats(t, "HorizontalResize", resizeRun(t, NewResizeBilinear(), nil, f([]int{1, 1, 2, 1}, 3, 6), 1, 3).Float32s(), []float64{3, 5, 6}, 1e-6)
	nearFloats(t, "VerticalResize", resizeRun(t, NewResizeBilinear(), nil, f([]int{1, 2, 1, 1}, 3, 9), 3, 1).Float32s(), []float64{3, 7, 9}, 1e-6)
	out := resizeRun(t, NewResizeBilinear(), nil, f([]int{1, 2, 2, 1}, 3, 6, 9, 12), 3, 3)
	wantShape(t, out.Shape, []int{1, 3, 3, 1})
	nearFloats(t, "TwoDimensionalResize", out.Float32s(), []float64{3, 5, 6, 7, 9, 10, 9, 11, 12}, 1e-6)
	nearFloats(t, "TwoDimensionalResizeWithTwoBatches", resizeRun(t, NewResizeBilinear(), nil,
		f([]int{2, 2, 2, 1}, 3, 6, 9, 12, 4, 10, 10, 16), 3, 3).Float32s(),
		[]float64{3, 5, 6, 7, 9, 10, 9, 11, 12, 4, 8, 10, 8, 12, 14, 10, 14, 16}, 1e-5)
	nearFloats(t, "ThreeDimensionalResize (depth 2)", resizeRun(t, NewResizeBilinear(), nil,
		f([]int{1, 2, 2, 2}, 3, 4, 6, 10, 9, 10, 12, 16), 3, 3).Float32s(),
		[]float64{3, 4, 5, 8, 6, 10, 7, 8, 9, 12, 10, 14, 9, 10, 11, 14, 12, 16}, 1e-5)
	nearFloats(t, "AlignCorners", resizeRun(t, NewResizeBilinear(), &ResizeOptions{AlignCorners: true}, f([]int{1, 2, 2, 1}, 3, 6, 9, 12), 3, 3).Float32s(),
		[]float64{3, 4.5, 6, 6, 7.5, 9, 9, 10.5, 12}, 1e-6)
	nearFloats(t, "HalfPixelCenters", resizeRun(t, NewResizeBilinear(), &ResizeOptions{HalfPixelCenters: true}, f([]int{1, 2, 2, 1}, 1, 2, 3, 4), 3, 3).Float32s(),
		[]float64{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}, 1e-6)
	wantPrepareError(t, NewResizeBilinear(), node(&ResizeOptions{AlignCorners: true, HalfPixelCenters: true}, []*ops.Tensor{f([]int{1, 2, 2, 1}, 1, 2, 3, 4), c32(3, 3)}, outTensor(ops.Float32)), "half_pixel")
	wantPrepareError(t, NewResizeBilinear(), node(nil, []*ops.Tensor{tensorOf(ops.Int32, []int{1, 1, 2, 1}, []int32{0, 1}), c32(1, 3)}, outTensor(ops.Int32)), "int32")
	wantPrepareError(t, NewResizeBilinear(), node(nil, []*ops.Tensor{f([]int{2, 2, 1}, 1, 2, 3, 4), c32(3, 3)}, outTensor(ops.Float32)), "rank 3")
	wantPrepareError(t, NewResizeBilinear(), node(nil, []*ops.Tensor{f([]int{1, 2, 2, 1}, 1, 2, 3, 4), c32(0, 3)}, outTensor(ops.Float32)), "size")
}

// TestResizeBilinearInteger runs TFLite's exact uint8, int8 and int16
// vectors (resize_bilinear_test.cc, the ones without a tolerance; the
// int16 negative extremes as its double-rounding build expects), and
// checks the ×8 half-pixel upsampling TFLite runs through its special
// uint8 kernel against that kernel's incremental 8.8 fixed-point
// arithmetic written out.
func TestResizeBilinearInteger(t *testing.T) {
	type vec struct {
		typ       ops.DataType
		shape     []int
		in        []int32
		h, w      int32
		want      []int
		halfPixel bool
	}
	for _, v := range []vec{
		{ops.Uint8, []int{1, 1, 2, 1}, []int32{3, 6}, 1, 3, []int{3, 5, 6}, false},
		{ops.Int8, []int{1, 1, 2, 1}, []int32{3, 6}, 1, 3, []int{3, 5, 6}, false},
		{ops.Int16, []int{1, 1, 2, 1}, []int32{3, 6}, 1, 3, []int{3, 5, 6}, false},
		{ops.Uint8, []int{1, 2, 1, 1}, []int32{3, 9}, 3, 1, []int{3, 7, 9}, false},
		{ops.Int8, []int{1, 2, 1, 1}, []int32{3, 9}, 3, 1, []int{3, 7, 9}, false},
		{ops.Int16, []int{1, 2, 1, 1}, []int32{3, 9}, 3, 1, []int{3, 7, 9}, false},
		{ops.Uint8, []int{1, 2, 2, 1}, []int32{3, 6, 9, 12}, 3, 3, []int{3, 5, 6, 7, 9, 10, 9, 11, 12}, false},
		{ops.Int8, []int{1, 2, 2, 1}, []int32{3, 6, 9, 12}, 3, 3, []int{3, 5, 6, 7, 9, 10, 9, 11, 12}, false},
		{ops.Int16, []int{1, 2, 2, 1}, []int32{3, 6, 9, 12}, 3, 3, []int{3, 5, 6, 7, 9, 10, 9, 11, 12}, false},
		{ops.Uint8, []int{1, 1, 2, 1}, []int32{253, 255}, 1, 3, []int{253, 254, 255}, false},
		{ops.Int8, []int{1, 1, 2, 1}, []int32{125, 127}, 1, 3, []int{125, 126, 127}, false},
		{ops.Int16, []int{1, 1, 2, 1}, []int32{32765, 32767}, 1, 3, []int{32765, 32766, 32767}, false},
		{ops.Int8, []int{1, 1, 2, 1}, []int32{-120, -128}, 1, 3, []int{-120, -125, -128}, false},
		{ops.Int16, []int{1, 1, 2, 1}, []int32{-32256, -32768}, 1, 3, []int{-32256, -32598, -32768}, false},
	} {
		var in *ops.Tensor
		switch v.typ {
		case ops.Uint8:
			in = tensorOf(v.typ, v.shape, toUint8(v.in))
		case ops.Int8:
			in = tensorOf(v.typ, v.shape, toInt8(v.in))
		default:
			in = tensorOf(v.typ, v.shape, toInt16(v.in))
		}
		out := resizeRun(t, NewResizeBilinear(), &ResizeOptions{HalfPixelCenters: v.halfPixel}, in, v.h, v.w)
		what := fmt.Sprintf("%s %v→%dx%d", v.typ, v.shape, v.h, v.w)
		switch v.typ {
		case ops.Uint8:
			equalInts(t, what, out.Data, v.want)
		case ops.Int8:
			equalInts(t, what, out.Int8s(), v.want)
		default:
			equalInts(t, what, out.Int16s(), v.want)
		}
	}

	// ×8 half-pixel upsampling, depth 8: TFLite's ResizeBilinear888Uint8.
	r := lcg(77)
	const ih, iw, d = 3, 4, 8
	src := make([]int32, ih*iw*d)
	for i := range src {
		src[i] = int32(r.intn(0, 255))
	}
	out := resizeRun(t, NewResizeBilinear(), &ResizeOptions{HalfPixelCenters: true}, tensorOf(ops.Uint8, []int{1, ih, iw, d}, toUint8(src)), 8*ih, 8*iw)
	at := func(y, x, c int) int { return int(src[(y*iw+x)*d+c]) }
	for oy := 0; oy < 8*ih; oy++ {
		for ox := 0; ox < 8*iw; ox++ {
			for c := 0; c < d; c++ {
				// Source position in sixteenths: (o + 0.5)/8 − 0.5.
				py, px := 2*oy-7, 2*ox-7
				y0, x0 := max(py>>4, 0), max(px>>4, 0)
				y1, x1 := min(y0+1, ih-1), min(x0+1, iw-1)
				fy, fx := py-16*y0, px-16*x0
				if py < 0 {
					fy = 0
				}
				if px < 0 {
					fx = 0
				}
				if y1 == y0 {
					fy = 0
				}
				if x1 == x0 {
					fx = 0
				}
				// 8.8 fixed point plus one half, as the special kernel.
				s := at(y0, x0, c)*(16-fy)*(16-fx) + at(y0, x1, c)*(16-fy)*fx + at(y1, x0, c)*fy*(16-fx) + at(y1, x1, c)*fy*fx
				want := (s + 128) >> 8
				if got := int(out.Data[(oy*8*iw+ox)*d+c]); got != want {
					t.Fatalf("x8 half-pixel (%d,%d,%d): %d, want %d", oy, ox, c, got, want)
				}
			}
		}
	}
}

// TestResizeBilinearInt8MatchesInt64 holds the int32 int8 kernel to the
// int64 one TFLite's ResizeBilinearInteger spells (resizeBilinearInteger)
// byte for byte: random sizes up and down, every corner option
// (half-pixel centres extrapolate left of the first pixel, w1 < 0), depths
// 1..40 and values at both ends of the range.
func TestResizeBilinearInt8MatchesInt64(t *testing.T) {
	r := lcg(83)
	for trial := 0; trial < 300; trial++ {
		shape := []int{r.intn(1, 2), r.intn(1, 9), r.intn(1, 9), r.intn(1, 40)}
		x := make([]int32, prod(shape))
		for i := range x {
			switch r.intn(0, 3) {
			case 0:
				x[i] = -128
			case 1:
				x[i] = 127
			default:
				x[i] = int32(r.intn(-128, 127))
			}
		}
		opts := &ResizeOptions{}
		switch trial % 3 {
		case 1:
			opts.AlignCorners = true
		case 2:
			opts.HalfPixelCenters = true
		}
		h, w := int32(r.intn(1, 20)), int32(r.intn(1, 20))
		in := tensorOf(ops.Int8, shape, toInt8(x))
		k := NewResizeBilinear()
		out := resizeRun(t, k, opts, in, h, w)
		want := make([]int8, out.NumElements())
		kb := k.(*ResizeBilinear)
		resizeBilinearInteger(kb, in.Int8s(), want, 0, kb.g.batch*kb.g.outH)
		for i, v := range out.Int8s() {
			if v != want[i] {
				t.Fatalf("%v→%dx%d %+v: output %d is %d, the int64 loop gives %d", shape, h, w, *opts, i, v, want[i])
			}
		}
	}
}

// BenchmarkResizeBilinearInt8 times movenet's int8 ×2 upsampling
// [1,24,24,64] → [1,48,48,64] through Eval (int32) and the int64 loop in
// one run: go test ./ops/builtin -bench ResizeBilinearInt8.
func BenchmarkResizeBilinearInt8(b *testing.B) {
	shape := []int{1, 24, 24, 64}
	x := make([]int8, prod(shape))
	for i := range x {
		x[i] = int8(i * 7)
	}
	n := node(&ResizeOptions{}, []*ops.Tensor{tensorOf(ops.Int8, shape, x), c32(48, 48)}, outTensor(ops.Int8))
	k := NewResizeBilinear()
	if err := prepare(k, n); err != nil {
		b.Fatal(err)
	}
	kb := k.(*ResizeBilinear)
	b.Run("int32", func(b *testing.B) {
		for b.Loop() {
			if err := k.Eval(n); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("int64", func(b *testing.B) {
		for b.Loop() {
			resizeBilinearInteger(kb, x, n.Outputs[0].Int8s(), 0, 48)
		}
	})
}
