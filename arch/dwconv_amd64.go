//go:build !purego

package arch

import "unsafe"

// The amd64 depthwise kernels (dwconv_avx2_amd64.s, dwconv_avx512_amd64.s)
// and their registration. The wrappers send rectangles without taps (only
// the bias) to the portable code; the assembly assumes at least one tap.

//go:noescape
func dwConvAVX512(dst *byte, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32)

//go:noescape
func dwConvAVX2(dst *byte, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32, masks *int32)

// The field offsets the assembly reads (A_* there).
var (
	_ = [1]struct{}{}[unsafe.Offsetof(dwArgs{}.mode)-88]
	_ = [1]struct{}{}[unsafe.Offsetof(dwArgs{}.qStride)-112]
	_ = [1]struct{}{}[unsafe.Offsetof(dwArgs{}.hi)-128]
	_ = [1]struct{}{}[unsafe.Offsetof(dwArgs{}.rqFlags)-136]
)

func dwConvAVX512Go(dst []byte, x, w []float32, bias []uint32, a dwArgs, lo, hi float32) {
	if a.th == 0 || a.tw == 0 {
		dwConvGeneric(dst, x, w, bias, a, lo, hi)
		return
	}
	dwConvAVX512(&dst[0], &x[0], &w[0], &bias[0], &a, lo, hi)
}

// dwConvAVX2Go runs modes 0 and 1 in the assembly; mode 2 runs mode 1 one
// output row at a time into a stack tile and requantises it.
func dwConvAVX2Go(dst []byte, x, w []float32, bias []uint32, a dwArgs, lo, hi float32) {
	if a.th == 0 || a.tw == 0 {
		dwConvGeneric(dst, x, w, bias, a, lo, hi)
		return
	}
	if a.mode != 2 {
		dwConvAVX2(&dst[0], &x[0], &w[0], &bias[0], &a, lo, hi, &tailMask32[0])
		return
	}
	// A row wider than the tile goes in runs of whole pixels (each run
	// starts at channel 0, as the requantisation's period expects).
	const tileLen = 4096
	c := a.c4 / 4
	run := tileLen / c
	if run == 0 {
		dwConvGeneric(dst, x, w, bias, a, lo, hi)
		return
	}
	var tile [tileLen]int32
	stride := a.qStride / 4
	q := &ChannelRequant{n: c, period: c, stride: stride, p: unsafe.Slice(a.qp, qRows*stride)}
	row := a
	row.rows, row.mode, row.dC, row.dRowStep = 1, 1, a.c4, 0
	for r := 0; r < a.rows; r++ {
		for q0 := 0; q0 < a.cols; q0 += run {
			row.cols = min(run, a.cols-q0)
			acc := tile[:row.cols*c]
			dwConvAVX2((*byte)(unsafe.Pointer(&acc[0])), &x[(r*a.xRowStep+q0*a.xColStep)/4], &w[0], &bias[0], &row, 0, 0, &tailMask32[0])
			d := r*a.dRowStep + q0*c
			requantChannelsAVX2Go(dst[d:d+len(acc)], acc, q, a.zp, a.lo, a.hi)
		}
	}
}

var (
	_ = dwConvImpls.add("avx2", AVX2, nil, dwConvAVX2Go)
	_ = dwConvImpls.add("avx512", AVX512, nil, dwConvAVX512Go)
)
