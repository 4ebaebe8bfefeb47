//go:build !purego

package arch

import "unsafe"

// The arm64 depthwise kernels (dwconv_neon_arm64.s) and their
// registration. The assembly computes one block of 16, 4 or 1 channels
// over the whole rectangle; dwConvBlocksNEON walks the channels with the
// widest blocks that fit, so no lane outside the channels is touched.
// dwConvNEONGo (dwconv_neon.go, shared with 32-bit ARM) handles the
// modes.

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

// dwConvFits reports whether the assembly takes the rectangle: on arm64
// every one.
func dwConvFits(a *dwArgs) bool { return true }

var _ = dwConvImpls.add("neon", NEON, nil, dwConvNEONGo)
