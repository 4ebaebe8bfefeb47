package arch

// Integer depthwise convolution on bytes, four filter rows at a time:
// the caller interleaves the input rows that four consecutive filter
// rows read (DepthwiseQ8Interleave), so that each 32-bit lane of a
// vector holds one channel's four row values as unsigned bytes, and the
// kernel (DepthwiseQ8Requant) adds, for every filter column, the four
// products of each channel in one dot-product instruction (VPDPBUSD on
// AVX-512 VNNI) with exact int32 accumulation. The caller pads the
// image (rows and columns) with the input zero point, so every output
// pixel sees every tap and the kernel has no borders; the zero point's
// and the unsigned offset's contributions are folded into the bias (see
// ops/builtin/depthwise_conv_2d_q8.go).

// DepthwiseQ8Geom describes one output row of DepthwiseQ8Requant.
//
// Output pixel q < Cols, channel ch < C is dst[q·C + ch]. Group g <
// Groups, filter column tx < TapCols reads the interleaved input bytes
// x[g·XGroupStep + (q·ColStep + tx·TapStep)·4C + 4ch + j], j < 4 (the
// four filter rows 4g+j), and the signed weights w[((g·TapCols + tx)·C +
// ch)·4 + j]. All fields ≥ 0, C ≥ 1.
type DepthwiseQ8Geom struct {
	Cols, C          int
	Groups, TapCols  int
	ColStep, TapStep int // in input columns
	XGroupStep       int // bytes between the groups' interleaved rows
}

// dwq8Args is what the kernels read (strides in bytes).
type dwq8Args struct {
	cols, c4, groups, tw    int
	colStep, tapStep, gStep int
	wgStep                  int    // weight bytes per group: tw·4C
	w2                      int    // assembly: second weight set's byte offset from w, 0 for none
	qp                      *int32 // ChannelRequant rows
	qStride                 int    // bytes between rows
	zp, lo, hi              int32
	rqFlags                 uint64
	w2blk                   *byte // assembly: w2Blocks, nil for all
}

var (
	dwq8      func(dst []byte, x []byte, w, w2 []int8, w2Blocks []byte, bias []int32, a dwq8Args)
	dwq8Impls = newImpls("DepthwiseQ8Requant", &dwq8, dwq8Generic)

	dwq8Ilv      func(q []byte, r0, r1, r2, r3 []byte, flip byte)
	dwq8IlvImpls = newImpls("DepthwiseQ8Interleave", &dwq8Ilv, dwq8IlvGeneric)
)

// DepthwiseQ8Native reports whether DepthwiseQ8Requant and
// DepthwiseQ8Interleave run vector code at the current level (AVX-512
// with VNNI and VBMI); the depthwise operator takes the byte path only
// then, its float path being faster in portable code and on AVX2.
func DepthwiseQ8Native() bool {
	return dwq8Impls.list[dwq8Impls.cur].name != "generic" && dwq8IlvImpls.list[dwq8IlvImpls.cur].name != "generic"
}

// DepthwiseQ8Interleave sets q[4k+j] = rj[k] XOR flip for k < len(r0),
// j < 4 (r1, r2, r3 at least as long as r0; q at least 4·len(r0)): the
// four rows of one group of DepthwiseQ8Requant, flip 0x80 turning int8
// values into the unsigned bytes x+128.
func DepthwiseQ8Interleave(q []byte, r0, r1, r2, r3 []byte, flip byte) {
	n := len(r0)
	if n == 0 {
		return
	}
	_ = q[4*n-1]
	_, _, _ = r1[n-1], r2[n-1], r3[n-1]
	dwq8Ilv(q, r0, r1[:n], r2[:n], r3[:n], flip)
}

// DepthwiseQ8Requant computes one output row of an integer depthwise
// convolution from interleaved rows (DepthwiseGeom's layout above) and
// requantises it:
//
//	acc[q, ch] = bias[ch] + Σ_g Σ_tx Σ_j uint8(x[…])·(w[…] + w2[…])
//	dst[q, ch] = clamp(MBQM(acc, channel ch) + zp, lo, hi)
//
// in int32 arithmetic wrapping modulo 2^32 (exact, whatever the order);
// w2 is nil or a second weight set of w's length (weights outside int8:
// each split into two int8 halves), used for the channels 16b..16b+15
// whose w2Blocks[b] is not 0, or for all when w2Blocks is nil (the
// blocks whose w2 is all 0 can skip it). q must be made for g.C channels and
// lo ≤ hi in [-128, 255]; dst gets the low byte of each result. Every
// implementation gives the same bits. It panics if a slice is shorter
// than the geometry reaches.
func DepthwiseQ8Requant(dst []byte, x []byte, w, w2 []int8, w2Blocks []byte, bias []int32, g DepthwiseQ8Geom, q *ChannelRequant, zp, lo, hi int32) {
	if g.Cols <= 0 || g.C <= 0 {
		return
	}
	if g.Groups < 0 || g.TapCols < 0 || g.ColStep < 0 || g.TapStep < 0 || g.XGroupStep < 0 {
		panic("arch.DepthwiseQ8Requant: negative geometry")
	}
	if q.n != g.C {
		panic("arch.DepthwiseQ8Requant: requantisation parameters for another channel count")
	}
	if lo < -128 || hi > 255 || lo > hi {
		panic("arch.DepthwiseQ8Requant: clamp range outside [-128, 255]")
	}
	c4 := 4 * g.C
	_ = dst[g.Cols*g.C-1]
	_ = bias[g.C-1]
	a := dwq8Args{
		cols: g.Cols, c4: c4, groups: g.Groups, tw: g.TapCols,
		colStep: g.ColStep * c4, tapStep: g.TapStep * c4, gStep: g.XGroupStep,
		wgStep: g.TapCols * c4,
		qp:     &q.p[0], qStride: 4 * q.stride, zp: zp, lo: lo, hi: hi, rqFlags: q.rqFlags(lo, hi),
	}
	if g.Groups > 0 && g.TapCols > 0 {
		xn := (g.Groups-1)*g.XGroupStep + ((g.Cols-1)*g.ColStep+(g.TapCols-1)*g.TapStep)*c4 + c4
		wn := g.Groups * g.TapCols * c4
		_ = x[xn-1]
		_ = w[wn-1]
		if w2 != nil {
			_ = w2[wn-1]
			if w2Blocks != nil {
				_ = w2Blocks[(g.C-1)/16]
			}
		}
	} else {
		a.groups, a.tw = 0, 0
		w2 = nil
	}
	if w2 == nil {
		w2Blocks = nil
	}
	dwq8(dst, x, w, w2, w2Blocks, bias, a)
}
