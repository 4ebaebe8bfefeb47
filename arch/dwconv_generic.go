package arch

import (
	"math"
	"unsafe"
)

// dwConvGeneric is the portable depthwise kernel (all modes of dwArgs):
// channel blocks of 8 with 8 scalar sums per output pixel, taps in order
// (ty, then tx), products converted to float32 so that Go never fuses
// them into multiply-adds.
func dwConvGeneric(dst []byte, x, w []float32, bias []uint32, a dwArgs, lo, hi float32) {
	c := a.c4 / 4
	xRowStep, xColStep, xTapRow, xTapCol := a.xRowStep/4, a.xColStep/4, a.xTapRow/4, a.xTapCol/4
	wTapRow := a.wTapRow / 4
	var d32 []uint32
	var q *ChannelRequant
	if a.mode == 2 {
		// The parameter rows a.qp points into belong to a ChannelRequant
		// of c channels; rebuild a view of it for requantSpan.
		stride := a.qStride / 4
		q = &ChannelRequant{n: c, stride: stride, p: unsafe.Slice(a.qp, qRows*stride)}
	} else {
		d32 = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst)/4)
	}
	var acc [8]int32
	for c0 := 0; c0 < c; c0 += 8 {
		nb := min(8, c-c0)
		var b [8]float32
		if a.mode == 0 {
			for l := 0; l < nb; l++ {
				b[l] = math.Float32frombits(bias[c0+l])
			}
		}
		for r := 0; r < a.rows; r++ {
			for q0 := 0; q0 < a.cols; q0++ {
				xo := r*xRowStep + q0*xColStep + c0
				s0, s1, s2, s3, s4, s5, s6, s7 := b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]
				for ty := 0; ty < a.th; ty++ {
					for tx := 0; tx < a.tw; tx++ {
						xs := x[xo+ty*xTapRow+tx*xTapCol:]
						ws := w[ty*wTapRow+tx*c+c0:]
						if nb == 8 {
							xv, wv := (*[8]float32)(xs), (*[8]float32)(ws)
							s0 += float32(xv[0] * wv[0])
							s1 += float32(xv[1] * wv[1])
							s2 += float32(xv[2] * wv[2])
							s3 += float32(xv[3] * wv[3])
							s4 += float32(xv[4] * wv[4])
							s5 += float32(xv[5] * wv[5])
							s6 += float32(xv[6] * wv[6])
							s7 += float32(xv[7] * wv[7])
							continue
						}
						t := [8]float32{s0, s1, s2, s3, s4, s5, s6, s7}
						for l := 0; l < nb; l++ {
							t[l] += float32(xs[l] * ws[l])
						}
						s0, s1, s2, s3, s4, s5, s6, s7 = t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]
					}
				}
				s := [8]float32{s0, s1, s2, s3, s4, s5, s6, s7}
				o := r*a.dRowStep + q0*a.dC
				switch a.mode {
				case 0:
					out := d32[o/4+c0:][:nb]
					for l := range out {
						out[l] = math.Float32bits(clampF32(s[l], lo, hi))
					}
				case 1:
					out := d32[o/4+c0:][:nb]
					for l := range out {
						out[l] = uint32(int32(s[l]) + int32(bias[c0+l]))
					}
				default:
					for l := 0; l < nb; l++ {
						acc[l] = int32(s[l]) + int32(bias[c0+l])
					}
					requantSpan(dst[o+c0:o+c0+nb], acc[:nb], q, c0, a.zp, a.lo, a.hi)
				}
			}
		}
	}
}
