//go:build !purego && arm.7

package arch

import "unsafe"

// The 32-bit ARM depthwise kernels (dwconv_neon_arm.s) and their
// registration at the neon level, in GOARM=7 builds only. The assembly
// computes one block of 16, 4 or 1 channels over the whole rectangle,
// reading the taps from a table of byte offsets built here (ARMv7 has
// too few registers to keep the five strides of dwArgs and the loop
// counters); dwConvBlocksNEON walks the channels with the widest blocks
// that fit, so no lane outside the channels is touched.

// dwArmArgs is what the assembly reads (A_* offsets there): the
// rectangle's size, the mode (0 float with bias and clamp, 1 int32 sums
// plus bias), the byte steps between output pixels, the steps from a
// row's end to the next row's start, the clamp bounds' bits and the tap
// table (x offset, w offset) pairs.
type dwArmArgs struct {
	rows, cols, ntaps, mode int32
	xColStep, dC            int32
	xAdv, dAdv              int32
	lo, hi                  float32
	taps                    *int32
}

// The field offsets the assembly reads.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(dwArmArgs{}.xAdv)-24]
	_ = [1]struct{}{}[unsafe.Offsetof(dwArmArgs{}.taps)-40]
)

// dwArmMaxTaps bounds the tap table on the stack (a 7×7 filter has 49
// taps); larger filters run the portable code.
const dwArmMaxTaps = 64

//go:noescape
func dwConvNEON16(dst *byte, x, w *float32, bias *uint32, a *dwArmArgs)

//go:noescape
func dwConvNEON4(dst *byte, x, w *float32, bias *uint32, a *dwArmArgs)

//go:noescape
func dwConvNEON1(dst *byte, x, w *float32, bias *uint32, a *dwArmArgs)

// dwConvFits reports whether the assembly takes the rectangle: the taps
// must fit the table.
func dwConvFits(a *dwArgs) bool { return a.th*a.tw <= dwArmMaxTaps }

// dwConvBlocksNEON runs modes 0 and 1 (4-byte outputs) block by block;
// the rectangle has taps and fits (dwConvNEONGo has checked).
func dwConvBlocksNEON(dst *byte, x, w *float32, bias *uint32, a *dwArgs, lo, hi float32) {
	var taps [2 * dwArmMaxTaps]int32
	nt := 0
	for ty := 0; ty < a.th; ty++ {
		for tx := 0; tx < a.tw; tx++ {
			taps[2*nt] = int32(ty*a.xTapRow + tx*a.xTapCol)
			taps[2*nt+1] = int32(ty*a.wTapRow + tx*a.c4)
			nt++
		}
	}
	args := dwArmArgs{
		rows: int32(a.rows), cols: int32(a.cols), ntaps: int32(nt), mode: int32(a.mode),
		xColStep: int32(a.xColStep), dC: int32(a.dC),
		xAdv: int32(a.xRowStep - a.cols*a.xColStep), dAdv: int32(a.dRowStep - a.cols*a.dC),
		lo: lo, hi: hi, taps: &taps[0],
	}
	c := a.c4 / 4
	for c0 := 0; c0 < c; {
		d := (*byte)(unsafe.Add(unsafe.Pointer(dst), 4*c0))
		xc := (*float32)(unsafe.Add(unsafe.Pointer(x), 4*c0))
		wc := (*float32)(unsafe.Add(unsafe.Pointer(w), 4*c0))
		bc := (*uint32)(unsafe.Add(unsafe.Pointer(bias), 4*c0))
		switch {
		case c-c0 >= 16:
			dwConvNEON16(d, xc, wc, bc, &args)
			c0 += 16
		case c-c0 >= 4:
			dwConvNEON4(d, xc, wc, bc, &args)
			c0 += 4
		default:
			dwConvNEON1(d, xc, wc, bc, &args)
			c0++
		}
	}
}

var _ = dwConvImpls.add("neon", NEON, nil, dwConvNEONGo)
