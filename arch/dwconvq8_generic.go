package arch

import "unsafe"

// dwq8Generic is the portable DepthwiseQ8Requant: per pixel and channel,
// the int32 sum of the byte products in the order groups, filter columns,
// rows, then requantSpan.
func dwq8Generic(dst []byte, x []byte, w, w2 []int8, w2Blocks []byte, bias []int32, a dwq8Args) {
	c := a.c4 / 4
	q := &ChannelRequant{n: c, stride: a.qStride / 4, p: unsafe.Slice(a.qp, qRows*a.qStride/4)}
	var buf [16]int32
	for c0 := 0; c0 < c; c0 += 16 {
		acc := buf[:min(16, c-c0)]
		w2b := w2
		if w2Blocks != nil && w2Blocks[c0/16] == 0 {
			w2b = nil
		}
		for px := 0; px < a.cols; px++ {
			copy(acc, bias[c0:])
			for g := 0; g < a.groups; g++ {
				for tx := 0; tx < a.tw; tx++ {
					xs := x[g*a.gStep+px*a.colStep+tx*a.tapStep+4*c0:][:4*len(acc)]
					wo := g*a.wgStep + tx*a.c4 + 4*c0
					ws := w[wo:][:len(xs)]
					var w2s []int8
					if w2b != nil {
						w2s = w2b[wo:][:len(xs)]
					}
					for i := range acc {
						s := acc[i]
						for j := 4 * i; j < 4*i+4; j++ {
							wv := int32(ws[j])
							if w2s != nil {
								wv += int32(w2s[j])
							}
							s += int32(xs[j]) * wv
						}
						acc[i] = s
					}
				}
			}
			requantSpan(dst[px*c+c0:], acc, q, c0, a.zp, a.lo, a.hi)
		}
	}
}

// dwq8IlvGeneric is the portable DepthwiseQ8Interleave.
func dwq8IlvGeneric(q []byte, r0, r1, r2, r3 []byte, flip byte) {
	q = q[:4*len(r0)]
	for k, v := range r0 {
		d := q[4*k : 4*k+4 : 4*k+4]
		d[0], d[1], d[2], d[3] = v^flip, r1[k]^flip, r2[k]^flip, r3[k]^flip
	}
}
