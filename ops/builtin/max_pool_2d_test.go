package builtin

import (
	"fmt"
	"math"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// The float MAX_POOL_2D kernel runs a row and a window tap per vector call
// (maxPoolF32); these tests hold it to the per-pixel scalar loop (maxPool)
// bit for bit, and its tap runs to window.span.

func TestWindowTapRunMatchesSpan(t *testing.T) {
	for _, pad := range []ops.Padding{ops.PaddingSame, ops.PaddingValid} {
		for in := 1; in <= 13; in++ {
			for filter := 1; filter <= 6; filter++ {
				for stride := 1; stride <= 4; stride++ {
					for dil := 1; dil <= 3; dil++ {
						w, err := newWindow(pad, in, filter, stride, dil, "w")
						if err != nil {
							continue
						}
						for tap := 0; tap < filter; tap++ {
							first, end := w.tapRun(tap)
							for o := 0; o < w.out; o++ {
								_, lo, hi := w.span(o)
								if inSpan, inRun := lo <= tap && tap < hi, first <= o && o < end; inSpan != inRun {
									t.Fatalf("%s in=%d filter=%d stride=%d dilation=%d tap %d output %d: span [%d, %d), run [%d, %d)", pad, in, filter, stride, dil, tap, o, lo, hi, first, end)
								}
							}
						}
					}
				}
			}
		}
	}
}

func TestMaxPoolFloatMatchesScalar(t *testing.T) {
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0xffc00001), 1e-45, -1e-45, math.MaxFloat32, -math.MaxFloat32, 6, -1}
	saved := arch.Current()
	defer func() {
		if err := arch.Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	for _, lvl := range arch.Levels() {
		if err := arch.Use(lvl); err != nil {
			t.Fatal(err)
		}
		r := lcg(91)
		for trial := 0; trial < 200; trial++ {
			shape := []int{r.intn(1, 2), r.intn(1, 9), r.intn(1, 11), []int{1, 3, 4, 8, 16, 17, 33}[r.intn(0, 6)]}
			if trial%8 == 0 {
				// Tall narrow images (magic_wand's [1, 128, 3, 8]): runs
				// of rows longer than maxPoolRunValues allows.
				shape[1], shape[2] = r.intn(100, 700), r.intn(1, 3)
			}
			opts := &Pool2DOptions{
				Padding: []ops.Padding{ops.PaddingSame, ops.PaddingValid}[r.intn(0, 1)],
				StrideH: r.intn(1, 3), StrideW: r.intn(1, 3),
				FilterHeight: r.intn(1, 4), FilterWidth: r.intn(1, 4),
				Activation: []ops.Activation{ops.ActNone, ops.ActRelu, ops.ActReluN1To1, ops.ActRelu6}[r.intn(0, 3)],
			}
			x := randFloats(&r, prod(shape), -8, 8)
			for i := range x {
				if r.intn(0, 3) == 0 {
					x[i] = specials[r.intn(0, len(specials)-1)]
				}
			}
			n := node(opts, []*ops.Tensor{tensorOf(ops.Float32, shape, x)}, outTensor(ops.Float32))
			k := NewMaxPool2D()
			if err := k.Prepare(n); err != nil {
				continue // VALID with a window larger than the input
			}
			n.Outputs[0].Data = make([]byte, 4*prod(n.Outputs[0].Shape))
			if err := k.Eval(n); err != nil {
				t.Fatal(err)
			}
			p := &k.(*MaxPool2D).p
			want := make([]float32, prod(n.Outputs[0].Shape))
			maxPool(p, x, want, -math.MaxFloat32, p.fMin, p.fMax, 0, p.batches*p.h.out)
			got := n.Outputs[0].Float32s()
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s: shape %v %+v: output %d is %v (%#x), the scalar loop gives %v (%#x)", lvl, shape, *opts, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
		}
	}
}

// TestMaxPoolIntMatchesScalar holds the integer row kernel (maxPoolRows,
// one arch.MaxBlocks call per row and tap, starting from the activation's
// lower bound) to the per-pixel scalar loop at every instruction-set
// level, for int8, uint8 and int16, channel counts around the vector
// widths, and activations whose clamps cut either end (the output's
// scale and zero point put RELU's and RELU6's bounds inside the range).
func TestMaxPoolIntMatchesScalar(t *testing.T) {
	saved := arch.Current()
	defer func() {
		if err := arch.Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	for _, lvl := range arch.Levels() {
		if err := arch.Use(lvl); err != nil {
			t.Fatal(err)
		}
		r := lcg(93)
		for trial := 0; trial < 300; trial++ {
			typ := []ops.DataType{ops.Int8, ops.Uint8, ops.Int16}[trial%3]
			shape := []int{r.intn(1, 2), r.intn(1, 9), r.intn(1, 11), []int{1, 3, 4, 8, 15, 16, 17, 33, 64, 70}[r.intn(0, 9)]}
			opts := &Pool2DOptions{
				Padding: []ops.Padding{ops.PaddingSame, ops.PaddingValid}[r.intn(0, 1)],
				StrideH: r.intn(1, 3), StrideW: r.intn(1, 3),
				FilterHeight: r.intn(1, 5), FilterWidth: r.intn(1, 5),
				Activation: []ops.Activation{ops.ActNone, ops.ActRelu, ops.ActReluN1To1, ops.ActRelu6}[r.intn(0, 3)],
			}
			x := randFloats(&r, prod(shape), -8, 8)
			in := quantTensor(typ, shape, x, -8, 8)
			n := node(opts, []*ops.Tensor{in}, quantOut(typ, -8, 8))
			k := NewMaxPool2D()
			if err := prepare(k, n); err != nil {
				continue // VALID with a window larger than the input
			}
			if err := k.Eval(n); err != nil {
				t.Fatal(err)
			}
			p := &k.(*MaxPool2D).p
			rows := p.batches * p.h.out
			got := n.Outputs[0]
			what := func(i int) string {
				return fmt.Sprintf("%s %s: shape %v %+v: output %d", lvl, typ, shape, *opts, i)
			}
			switch typ {
			case ops.Int8:
				want := make([]int8, got.NumElements())
				maxPool(p, in.Int8s(), want, math.MinInt8, int8(p.qMin), int8(p.qMax), 0, rows)
				for i, v := range got.Int8s() {
					if v != want[i] {
						t.Fatalf("%s is %d, the scalar loop gives %d", what(i), v, want[i])
					}
				}
			case ops.Uint8:
				want := make([]uint8, got.NumElements())
				maxPool(p, in.Data, want, 0, uint8(p.qMin), uint8(p.qMax), 0, rows)
				for i, v := range got.Data[:len(want)] {
					if v != want[i] {
						t.Fatalf("%s is %d, the scalar loop gives %d", what(i), v, want[i])
					}
				}
			case ops.Int16:
				want := make([]int16, got.NumElements())
				maxPool(p, in.Int16s(), want, math.MinInt16, int16(p.qMin), int16(p.qMax), 0, rows)
				for i, v := range got.Int16s() {
					if v != want[i] {
						t.Fatalf("%s is %d, the scalar loop gives %d", what(i), v, want[i])
					}
				}
			}
		}
	}
}

// BenchmarkMaxPool2D times MAX_POOL_2D on magic_wand's float [1,128,3,8]
// 3×3/3 pool, face_landmark's float [1,96,96,32] 2×2/2 pool and yolo11n's int8 [1,20,20,128] 5×5/1 SAME pool (its SPPF
// block), at the current instruction-set level: go test ./ops/builtin
// -bench MaxPool2D (TFLRUN_ISA=generic for the portable kernels).
func BenchmarkMaxPool2D(b *testing.B) {
	for _, c := range []struct {
		name  string
		typ   ops.DataType
		shape []int
		opts  Pool2DOptions
	}{
		{"f32_128x3x8_3x3s3", ops.Float32, []int{1, 128, 3, 8}, Pool2DOptions{Padding: ops.PaddingValid, StrideH: 3, StrideW: 3, FilterHeight: 3, FilterWidth: 3}},
		{"f32_96x96x32_2x2s2", ops.Float32, []int{1, 96, 96, 32}, Pool2DOptions{Padding: ops.PaddingValid, StrideH: 2, StrideW: 2, FilterHeight: 2, FilterWidth: 2}},
		{"i8_20x20x128_5x5s1", ops.Int8, []int{1, 20, 20, 128}, Pool2DOptions{Padding: ops.PaddingSame, StrideH: 1, StrideW: 1, FilterHeight: 5, FilterWidth: 5}},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := lcg(7)
			x := randFloats(&r, prod(c.shape), -4, 4)
			var in, out *ops.Tensor
			if c.typ == ops.Float32 {
				in, out = tensorOf(ops.Float32, c.shape, x), outTensor(ops.Float32)
			} else {
				in, out = quantTensor(c.typ, c.shape, x, -4, 4), quantOut(c.typ, -4, 4)
			}
			opts := c.opts
			n := node(&opts, []*ops.Tensor{in}, out)
			k := NewMaxPool2D()
			if err := prepare(k, n); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := k.Eval(n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
