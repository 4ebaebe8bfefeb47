//go:build !purego && (arm64 || arm.7)

package arch

import "unsafe"

// The depthwise wrapper shared by arm64 (dwconv_arm64.go) and 32-bit ARM
// in GOARM=7 builds (dwconv_arm.go): each architecture's
// dwConvBlocksNEON runs modes 0 and 1 over every channel block.
// Rectangles without taps (only the bias) go to the portable code, as on
// amd64, and so do those dwConvFits refuses.

// dwConvNEONGo runs modes 0 and 1 in the assembly; mode 2 runs mode 1 one
// output row at a time into a stack tile and requantises it.
func dwConvNEONGo(dst []byte, x, w []float32, bias []uint32, a dwArgs, lo, hi float32) {
	if a.th == 0 || a.tw == 0 || !dwConvFits(&a) {
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
		requantChannelsDirect(dst[r*a.dRowStep:r*a.dRowStep+len(acc)], acc, q, a.zp, a.lo, a.hi)
	}
}
