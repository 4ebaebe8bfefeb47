//go:build !purego

package arch

import "unsafe"

// The arm64 depthwise kernels (dwconv_neon_arm64.s) and their
// registration. The assembly computes one block of 16, 4 or 1 channels
// over the whole rectangle; dwConvNEONGo walks the channels with the
// widest blocks that fit, so no lane outside the channels is touched.
// Rectangles without taps (only the bias) go to the portable code, as on
// amd64.

//go:noescape
func dwConvNEON16(dst *byte, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32)

//go:noescape
func dwConvNEON4(dst *byte, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32)

//go:noescape
func dwConvNEON1(dst *byte, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32)

// The field offsets the assembly reads (A_* there).
var (
	_ = [1]struct{}{}[unsafe.Offsetof(dwArgs{}.mode)-88]
	_ = [1]struct{}{}[unsafe.Offsetof(dwArgs{}.dC)-96]
)

// dwConvBlocksNEON runs modes 0 and 1 (4-byte outputs) block by block.
func dwConvBlocksNEON(dst *byte, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32) {
	c := a.c4 / 4
	for c0 := 0; c0 < c; {
		d := (*byte)(unsafe.Add(unsafe.Pointer(dst), 4*c0))
		xc := (*float32)(unsafe.Add(unsafe.Pointer(x), 4*c0))
		wc := (*float32)(unsafe.Add(unsafe.Pointer(w), 4*c0))
		bc := (*uint32)(unsafe.Add(unsafe.Pointer(bias), 4*c0))
		switch {
		case c-c0 >= 16:
			dwConvNEON16(d, xc, wc, bc, a, lo, hi)
			c0 += 16
		case c-c0 >= 4:
			dwConvNEON4(d, xc, wc, bc, a, lo, hi)
			c0 += 4
		default:
			dwConvNEON1(d, xc, wc, bc, a, lo, hi)
			c0++
		}
	}
}

// dwConvNEONGo runs modes 0 and 1 in the assembly; mode 2 runs mode 1 one
// output row at a time into a stack tile and requantises it.
func dwConvNEONGo(dst []byte, x, w []float32, bias []uint32, a dwArgs, lo, hi float32) {
	if a.th == 0 || a.tw == 0 {
		dwConvGeneric(dst, x, w, bias, a, lo, hi)
		return
	}
	if a.mode != 2 {
		dwConvBlocksNEON(&dst[0], &x[0], &w[0], &bias[0], &a, lo, hi)
		return
	}
	const tileLen = 4096
	c := a.c4 / 4
	if a.cols*c > tileLen {
		dwConvGeneric(dst, x, w, bias, a, lo, hi)
		return
	}
	var tile [tileLen]int32
	stride := a.qStride / 4
	q := &ChannelRequant{n: c, period: c, stride: stride, p: unsafe.Slice(a.qp, qRows*stride)}
	row := a
	row.rows, row.mode, row.dC, row.dRowStep = 1, 1, a.c4, 0
	acc := tile[:a.cols*c]
	for r := 0; r < a.rows; r++ {
		dwConvBlocksNEON((*byte)(unsafe.Pointer(&acc[0])), &x[r*a.xRowStep/4], &w[0], &bias[0], &row, 0, 0)
		requantChannelsArm64(dst[r*a.dRowStep:r*a.dRowStep+len(acc)], acc, q, a.zp, a.lo, a.hi)
	}
}

var _ = dwConvImpls.add("neon", NEON, nil, dwConvNEONGo)
