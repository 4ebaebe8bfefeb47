package builtin

import (
	"fmt"
	"math"
	"testing"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/internal/parallel"
	"github.com/tflrun/tflrun/ops"
)

// TestDepthwiseNarrowColsBits holds the float narrow-band path
// (runRectCols) to the direct kernel call bit for bit, at every
// instruction-set level and thread count 1 and 2: images 1-5 wide (every
// band narrow) and a few wider ones (SAME edge columns), multipliers 1
// and 8 (magic_wand's shape among them), channel counts around the vector
// widths, tall enough for several tiles, values with signed zeros,
// infinities and NaNs in the input.
func TestDepthwiseNarrowColsBits(t *testing.T) {
	saved := arch.Current()
	defer func() {
		if err := arch.Use(saved); err != nil {
			t.Fatal(err)
		}
	}()
	defer parallel.SetMinWork(parallel.SetMinWork(0))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.NaN()), 1e-40}
	taken := 0
	for _, lvl := range arch.Levels() {
		if err := arch.Use(lvl); err != nil {
			t.Fatal(err)
		}
		r := lcg(29)
		for trial := 0; trial < 60; trial++ {
			inC := []int{1, 1, 2, 3, 8, 17}[r.intn(0, 5)]
			mult := []int{1, 8}[r.intn(0, 1)]
			h := r.intn(4, 40)
			if trial%10 == 0 {
				h, inC, mult = 1100, []int{8, 17}[trial/10%2], 1 // several tiles per column
			}
			wdt := r.intn(1, 5)
			if trial%4 == 3 {
				wdt = r.intn(6, 12)
			}
			fh, fw := r.intn(1, 4), r.intn(1, 3)
			if trial == 0 {
				inC, mult, h, wdt, fh, fw = 1, 8, 128, 3, 4, 3 // magic_wand
			}
			pad := []ops.Padding{ops.PaddingSame, ops.PaddingValid}[r.intn(0, 1)]
			stride := r.intn(1, 2)
			opts := &DepthwiseConv2DOptions{Padding: pad, StrideW: stride, StrideH: stride,
				DilationWFactor: 1, DilationHFactor: 1, DepthMultiplier: mult,
				Activation: []ops.Activation{ops.ActNone, ops.ActRelu}[r.intn(0, 1)]}
			outC := inC * mult
			x := randFloats(&r, h*wdt*inC, -2, 2)
			for i := range x {
				if r.intn(0, 30) == 0 {
					x[i] = specials[r.intn(0, len(specials)-1)]
				}
			}
			f := randFloats(&r, fh*fw*outC, -1, 1)
			b := randFloats(&r, outC, -1, 1)
			for _, pool := range []*parallel.Pool{nil, sweepPools[0]} {
				what := fmt.Sprintf("%s threads=%d in [1 %d %d %d] filter %dx%d mult %d %s stride %d", lvl, pool.Threads(), h, wdt, inC, fh, fw, mult, pad, stride)
				var outs [2][]float32
				for pass := range 2 {
					n := node(opts, []*ops.Tensor{tensorOf(ops.Float32, []int{1, h, wdt, inC}, x),
						constT(tensorOf(ops.Float32, []int{1, fh, fw, outC}, f)), constT(tensorOf(ops.Float32, []int{outC}, b))},
						outTensor(ops.Float32))
					n.Pool = pool
					k := NewDepthwiseConv2D()
					if err := prepare(k, n); err != nil {
						break // VALID with a filter larger than the image
					}
					dk := k.(*DepthwiseConv2D)
					if pass == 1 {
						if dk.colsID < 0 {
							break // no narrow band: nothing to compare
						}
						dk.colsID = -1 // the direct kernel calls
					}
					if err := k.Eval(n); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					outs[pass] = append([]float32(nil), n.Outputs[0].Float32s()...)
				}
				if outs[1] == nil {
					continue
				}
				taken++
				for i := range outs[0] {
					if math.Float32bits(outs[0][i]) != math.Float32bits(outs[1][i]) {
						t.Fatalf("%s: output %d is %v (%#x) through the narrow-band path, %v (%#x) direct", what, i, outs[0][i], math.Float32bits(outs[0][i]), outs[1][i], math.Float32bits(outs[1][i]))
					}
				}
			}
		}
	}
	if taken == 0 {
		t.Fatal("no case took the narrow-band path")
	}
}
