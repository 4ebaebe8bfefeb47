package arch

import "math"

// dwMultGeneric is the portable kernel of DepthwiseMultF32 (mode 0) and
// DepthwiseMultF32Int32 (mode 1): one sum per output value, taps in
// order (ty, then tx), products converted to float32 so that Go never
// fuses them into multiply-adds.
func dwMultGeneric(dst []uint32, x, w []float32, bias []uint32, g DepthwiseMultGeom, mode int, lo, hi float32) {
	C, m := g.C, g.Mult
	for r := 0; r < g.Rows; r++ {
		for q := 0; q < g.Cols; q++ {
			xo := r*g.XRowStep + q*g.XColStep
			out := dst[r*g.DstRowStep+q*g.DstColStep:][:C]
			for ch := range out {
				var s float32
				if mode == 0 {
					s = math.Float32frombits(bias[ch])
				}
				xc := xo + ch/m
				for ty := 0; ty < g.TapRows; ty++ {
					for tx := 0; tx < g.TapCols; tx++ {
						s += float32(x[xc+ty*g.XTapRow+tx*g.XTapCol] * w[ty*g.WTapRow+tx*C+ch])
					}
				}
				if mode == 0 {
					out[ch] = math.Float32bits(clampF32(s, lo, hi))
				} else {
					out[ch] = uint32(int32(s) + int32(bias[ch]))
				}
			}
		}
	}
}
