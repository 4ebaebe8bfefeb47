package builtin

import (
	"fmt"
	"math"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// TestAveragePoolDirectBits holds the direct AVERAGE_POOL_2D paths, whose
// window rows are column sums (arch.SumRowsF32, arch.SumRowsInt8), to the
// per-pixel loop written out: float sums from 0 over the window's pixels
// by row, then column, divided by the count and clamped, bit for bit
// (specials in the input; any NaN matches any NaN, the payload being the
// compiler's choice); int8 sums rounded half away from zero. Channel
// counts around the vector widths, at every instruction-set level, global
// pools (tiny_aww_ref_model's [1, 25, 5, 64] → [1, 1, 1, 64]) among them.
func TestAveragePoolDirectBits(t *testing.T) {
	saved := arch.Current()
	defer func() {
		if err := arch.Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	specials := []float32{float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.NaN()), 1e-40, 3e38}
	for _, lvl := range arch.Levels() {
		if err := arch.Use(lvl); err != nil {
			t.Fatal(err)
		}
		r := lcg(53)
		for trial := 0; trial < 120; trial++ {
			shape := []int{r.intn(1, 2), r.intn(1, 9), r.intn(1, 9), []int{1, 3, 15, 16, 17, 33, 64, 65, 130}[r.intn(0, 8)]}
			opts := &Pool2DOptions{
				Padding: []ops.Padding{ops.PaddingSame, ops.PaddingValid}[r.intn(0, 1)],
				StrideH: r.intn(1, 3), StrideW: r.intn(1, 3),
				FilterHeight: r.intn(1, 4), FilterWidth: r.intn(1, 4),
				Activation: []ops.Activation{ops.ActNone, ops.ActRelu6}[r.intn(0, 1)],
			}
			if trial%6 == 0 {
				shape = []int{1, 25, 5, 64}
				opts = &Pool2DOptions{Padding: ops.PaddingValid, StrideH: 25, StrideW: 5, FilterHeight: 25, FilterWidth: 5}
			}
			H, W, C := shape[1], shape[2], shape[3]
			for _, typ := range []ops.DataType{ops.Float32, ops.Int8} {
				what := fmt.Sprintf("%s %s shape %v %+v", lvl, typ, shape, *opts)
				xf := randFloats(&r, prod(shape), -8, 8)
				var in, out *ops.Tensor
				xi := randInts(&r, prod(shape), -128, 127)
				if typ == ops.Float32 {
					for i := range xf {
						if r.intn(0, 25) == 0 {
							xf[i] = specials[r.intn(0, len(specials)-1)]
						}
					}
					in, out = tensorOf(ops.Float32, shape, xf), outTensor(ops.Float32)
				} else {
					in, out = q(tensorOf(ops.Int8, shape, toInt8(xi)), 0.1, 0), q(outTensor(ops.Int8), 0.1, 0)
				}
				n := node(opts, []*ops.Tensor{in}, out)
				k := NewAveragePool2D()
				if err := prepare(k, n); err != nil {
					continue // VALID with a window larger than the image
				}
				p := &k.(*AveragePool2D).p
				if p.sliding {
					continue
				}
				if err := k.Eval(n); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				i := 0
				for b := 0; b < shape[0]; b++ {
					for oy := 0; oy < p.h.out; oy++ {
						yo, yLo, yHi := p.h.span(oy)
						for ox := 0; ox < p.w.out; ox++ {
							xo, xLo, xHi := p.w.span(ox)
							cnt := (yHi - yLo) * (xHi - xLo)
							for c := 0; c < C; c++ {
								var sf float32
								si := int32(0)
								for y := yo + yLo; y < yo+yHi; y++ {
									for x := xo + xLo; x < xo+xHi; x++ {
										j := ((b*H+y)*W+x)*C + c
										sf += xf[j]
										si += int32(xi[j])
									}
								}
								if typ == ops.Float32 {
									want := clampF32(sf/float32(cnt), p.fMin, p.fMax)
									if got := out.Float32s()[i]; math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
										t.Fatalf("%s: output %d is %v (%#x), want %v (%#x)", what, i, got, math.Float32bits(got), want, math.Float32bits(want))
									}
								} else {
									m := math.Floor(math.Abs(float64(si))/float64(cnt) + 0.5)
									want := max(min(int32(math.Copysign(m, float64(si))), p.qMax), p.qMin)
									if got := int32(out.Int8s()[i]); got != want {
										t.Fatalf("%s: output %d is %d, want %d", what, i, got, want)
									}
								}
								i++
							}
						}
					}
				}
			}
		}
	}
}
