//go:build !purego

package arch

import "unsafe"

// The amd64 depthwise kernels (dwconv_avx2_amd64.s, dwconv_avx512_amd64.s)
// and their registration. The wrappers send rectangles without taps (only
// the bias) to the portable code; the assembly assumes at least one tap.

//go:noescape
func dwConvAVX512(dst *uint32, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32)

//go:noescape
func dwConvAVX2(dst *uint32, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32, masks *int32)

// dwArgsLayout pins the field offsets the assembly reads (A_* there).
var _ = [1]struct{}{}[unsafe.Offsetof(dwArgs{}.intOut)-88]

func dwConvAVX512Go(dst []uint32, x, w []float32, bias []uint32, a dwArgs, lo, hi float32) {
	if a.th == 0 || a.tw == 0 {
		dwConvGeneric(dst, x, w, bias, a, lo, hi)
		return
	}
	dwConvAVX512(&dst[0], &x[0], &w[0], &bias[0], &a, lo, hi)
}

func dwConvAVX2Go(dst []uint32, x, w []float32, bias []uint32, a dwArgs, lo, hi float32) {
	if a.th == 0 || a.tw == 0 {
		dwConvGeneric(dst, x, w, bias, a, lo, hi)
		return
	}
	dwConvAVX2(&dst[0], &x[0], &w[0], &bias[0], &a, lo, hi, &tailMask32[0])
}

var (
	_ = dwConvImpls.add("avx2", AVX2, nil, dwConvAVX2Go)
	_ = dwConvImpls.add("avx512", AVX512, nil, dwConvAVX512Go)
)
