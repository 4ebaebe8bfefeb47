package builtin

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tflrun/tflrun/ops"
)

// TestResizeVectorPaths: float RESIZE_BILINEAR at depths on both sides of
// the vector width (arch.BilinearRowF32, masked and full vectors)
// gives TFLite's ResizeBilinearGeneric sum, written out here from the
// taps, bit for bit (NaN as NaN), for every option and up- and
// down-sampling; and RESIZE_NEAREST_NEIGHBOR with its repeated-row copies
// gives the pixel-by-pixel gather.
func TestResizeVectorPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), 1e-45, -3e38}
	opts := []ResizeOptions{{}, {AlignCorners: true}, {HalfPixelCenters: true}}
	for _, d := range []int{1, 3, 7, 8, 13, 32, 37} {
		for _, sz := range [][4]int{{3, 5, 7, 9}, {4, 4, 8, 8}, {9, 6, 4, 3}, {2, 3, 5, 2}} {
			for _, o := range opts {
				inH, inW, outH, outW := sz[0], sz[1], sz[2], sz[3]
				src := make([]float32, 2*inH*inW*d)
				for i := range src {
					if r.IntN(40) == 0 {
						src[i] = specials[r.IntN(len(specials))]
					} else {
						src[i] = float32(r.NormFloat64())
					}
				}
				in := tensorOf(ops.Float32, []int{2, inH, inW, d}, src)
				oc := o
				got := resizeRun(t, NewResizeBilinear(), &oc, in, int32(outH), int32(outW)).Float32s()
				g := resizeGeometry{opts: o}
				ys := bilinearTaps(outH, inH, g.scale(inH, outH), o.HalfPixelCenters)
				xs := bilinearTaps(outW, inW, g.scale(inW, outW), o.HalfPixelCenters)
				doubling := !o.AlignCorners && !o.HalfPixelCenters && outH == 2*inH && outW == 2*inW
				i := 0
				for b := range 2 {
					for _, ty := range ys {
						for _, tx := range xs {
							for c := range d {
								at := func(y, x int) float32 { return src[((b*inH+y)*inW+x)*d+c] }
								dy, dx := ty.frac, tx.frac
								w00 := float32(float32(1-dy) * float32(1-dx))
								w01 := float32(float32(1-dy) * dx)
								w10 := float32(dy * float32(1-dx))
								w11 := float32(dy * dx)
								v := float32(0) + float32(at(ty.lo, tx.lo)*w00)
								v = float32(v + float32(at(ty.lo, tx.hi)*w01))
								v = float32(v + float32(at(ty.hi, tx.lo)*w10))
								want := float32(v + float32(at(ty.hi, tx.hi)*w11))
								if !doubling && math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] != got[i] && want != want) {
									t.Fatalf("bilinear depth %d %v %+v: element %d = %v, want %v", d, sz, o, i, got[i], want)
								}
								i++
							}
						}
					}
				}
				nn := resizeRun(t, NewResizeNearestNeighbor(), &oc, in, int32(outH), int32(outW)).Float32s()
				k := &ResizeNearestNeighbor{g: resizeGeometry{opts: o}}
				yi, xi := k.nearest(outH, inH, false), k.nearest(outW, inW, false)
				i = 0
				for b := range 2 {
					for _, y := range yi {
						for _, x := range xi {
							for c := range d {
								want := src[((b*inH+y)*inW+x)*d+c]
								if math.Float32bits(nn[i]) != math.Float32bits(want) {
									t.Fatalf("nearest depth %d %v %+v: element %d = %v, want %v", d, sz, o, i, nn[i], want)
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
