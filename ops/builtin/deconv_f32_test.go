package builtin

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDeconvF32AgainstDefinition checks the float engine's three ways
// (GEMM straight into the output, set-once scatter, accumulating scatter;
// each with and without AnyOrder's padded products and with the
// matrix-vector products) against the transposed convolution written out
// in float64, on random geometries: strides equal to the filter (the
// non-overlapping cases) in a third of them, leading paddings, and
// outputs larger or smaller than the taps cover.
func TestDeconvF32AgainstDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	defer func() { deconvForceMatVec = false }()
	ways := map[string]int{}
	for i := 0; i < 400; i++ {
		s := DeconvShape{
			InH: 1 + r.IntN(5), InW: 1 + r.IntN(5), InC: 1 + r.IntN(12),
			OutC: 1 + r.IntN(9), FH: 1 + r.IntN(4), FW: 1 + r.IntN(4),
			StrideH: 1 + r.IntN(3), StrideW: 1 + r.IntN(3),
			AnyOrder: r.IntN(2) == 0,
		}
		if i%3 == 0 {
			s.StrideH, s.StrideW = s.FH, s.FW
		}
		if i%5 == 0 {
			s.OutC = 8 * (1 + r.IntN(2))
		}
		s.PadT, s.PadL = r.IntN(s.FH), r.IntN(s.FW)
		s.OutH = max(1, s.StrideH*(s.InH-1)+s.FH-s.PadT-r.IntN(3)+r.IntN(3))
		s.OutW = max(1, s.StrideW*(s.InW-1)+s.FW-s.PadL-r.IntN(3)+r.IntN(3))
		if i%3 == 0 && r.IntN(2) == 0 {
			// The shape of the direct GEMMs: whole output rows.
			s.PadL, s.OutW = 0, s.InW*s.FW
			s.OutC = 8 * (1 + r.IntN(2))
			s.OutH = max(1, min(s.OutH, s.StrideH*s.InH-s.PadT))
		}
		deconvForceMatVec = i%4 == 3
		d, err := NewDeconvF32(s)
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		switch {
		case d.direct:
			ways["direct"]++
		case d.apart:
			ways["apart"]++
		default:
			ways["scatter"]++
		}
		in := make([]float32, d.InLen())
		for j := range in {
			in[j] = 2*r.Float32() - 1
		}
		w := make([]float32, d.WeightsLen())
		for j := range w {
			w[j] = 2*r.Float32() - 1
		}
		var bias []float32
		if r.IntN(3) > 0 {
			bias = make([]float32, s.OutC)
			for j := range bias {
				bias[j] = 2*r.Float32() - 1
			}
		}
		d.LoadWeights(w)
		out := make([]float32, d.OutLen())
		for j := range out {
			out[j] = float32(math.NaN()) // every output must be written
		}
		d.Image(out, in, make([]float32, d.ColLen()), bias)

		want := make([]float64, len(out))
		for p := range want {
			if bias != nil {
				want[p] = float64(bias[p%s.OutC])
			}
		}
		for iy := 0; iy < s.InH; iy++ {
			for ix := 0; ix < s.InW; ix++ {
				for fy := 0; fy < s.FH; fy++ {
					for fx := 0; fx < s.FW; fx++ {
						y, x := iy*s.StrideH-s.PadT+fy, ix*s.StrideW-s.PadL+fx
						if y < 0 || y >= s.OutH || x < 0 || x >= s.OutW {
							continue
						}
						for oc := 0; oc < s.OutC; oc++ {
							for ic := 0; ic < s.InC; ic++ {
								want[(y*s.OutW+x)*s.OutC+oc] += float64(in[(iy*s.InW+ix)*s.InC+ic]) * float64(w[((oc*s.FH+fy)*s.FW+fx)*s.InC+ic])
							}
						}
					}
				}
			}
		}
		for j, v := range want {
			if math.Abs(float64(out[j])-v) > 1e-5*(1+math.Abs(v)) || math.IsNaN(float64(out[j])) {
				t.Fatalf("%d %s %+v: out[%d] = %g, want %g", i, fmt.Sprint(ways), s, j, out[j], v)
			}
		}
	}
	for _, way := range []string{"direct", "apart", "scatter"} {
		if ways[way] < 20 {
			t.Fatalf("only %d cases took the %s way (%v)", ways[way], way, ways)
		}
	}
}
