package builtin

import (
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
