//go:build !purego

package arch

import "unsafe"

// The AVX2 and AVX-512 kernels of DepthwiseMultF32
// (dwmult_avx2_amd64.s, dwmult_avx512_amd64.s) and their registration.
// The assembly computes one block of up to 8 (16) channels over the
// whole rectangle; the wrappers walk the blocks and send rectangles
// without taps, and multipliers whose blocks read several input channels
// (other than 1), to the portable code. The AVX-512 wrapper leaves 8
// channels or fewer, and multipliers whose blocks of 8 channels read one
// input channel but blocks of 16 do not, to the AVX2 kernel.

// dwmArgs is a rectangle as the assembly reads it: steps in bytes, the
// group's pixel offsets and the walk's state (A_* there).
type dwmArgs struct {
	n, cols, th, tw             int // pixels, columns, tap rows and columns
	xRowStep, xColStep, xTapCol int
	xRowAdj                     int // XTapRow - TapCols·XTapCol
	dRowStep, dColStep, wTapCol int
	wRowAdj                     int // WTapRow - TapCols·WTapCol
	mode                        int // 0 float32, 1 int32
	kind                        int // 0 broadcast, 1 full block, 2 masked block
	full                        int // 1: all 8 lanes stored
	p, r, q                     int // walk: next pixel and its row and column
	xoff, doff                  [8]int
}

var (
	_ = [1]struct{}{}[unsafe.Offsetof(dwmArgs{}.p)-120]
	_ = [1]struct{}{}[unsafe.Offsetof(dwmArgs{}.xoff)-144]
	_ = [1]struct{}{}[unsafe.Offsetof(dwmArgs{}.doff)-208]
)

//go:noescape
func dwMultAVX2(dst *uint32, x, w *float32, bias *uint32, a *dwmArgs, lo, hi float32, mask *int32)

//go:noescape
func dwMultAVX512(dst *uint32, x, w *float32, bias *uint32, a *dwmArgs, lo, hi float32, mask uint16)

// dwmArgsOf returns g's steps as the assembly reads them.
func dwmArgsOf(g *DepthwiseMultGeom, mode int) dwmArgs {
	return dwmArgs{
		n: g.Rows * g.Cols, cols: g.Cols, th: g.TapRows, tw: g.TapCols,
		xRowStep: 4 * g.XRowStep, xColStep: 4 * g.XColStep, xTapCol: 4 * g.XTapCol,
		xRowAdj:  4 * (g.XTapRow - g.TapCols*g.XTapCol),
		dRowStep: 4 * g.DstRowStep, dColStep: 4 * g.DstColStep, wTapCol: 4 * g.C,
		wRowAdj: 4 * (g.WTapRow - g.TapCols*g.C),
		mode:    mode,
	}
}

func dwMultAVX512Go(dst []uint32, x, w []float32, bias []uint32, g DepthwiseMultGeom, mode int, lo, hi float32) {
	bc := g.dwMultBroadcast(16)
	if g.C <= 8 || g.TapRows == 0 || g.TapCols == 0 || (g.Mult > 1 && !bc) {
		dwMultAVX2Go(dst, x, w, bias, g, mode, lo, hi)
		return
	}
	a := dwmArgsOf(&g, mode)
	for c0 := 0; c0 < g.C; c0 += 16 {
		nb := min(16, g.C-c0)
		xo := c0
		a.kind, a.full = 1, 0
		if nb == 16 {
			a.full = 1
		} else {
			a.kind = 2
		}
		if bc {
			a.kind, xo = 0, c0/g.Mult
		}
		a.p, a.r, a.q = 0, 0, 0
		dwMultAVX512(&dst[c0], &x[xo], &w[c0], &bias[c0], &a, lo, hi, uint16(1<<nb-1))
	}
}

func dwMultAVX2Go(dst []uint32, x, w []float32, bias []uint32, g DepthwiseMultGeom, mode int, lo, hi float32) {
	bc := g.dwMultBroadcast(8)
	if g.TapRows == 0 || g.TapCols == 0 || (g.Mult > 1 && !bc) {
		dwMultGeneric(dst, x, w, bias, g, mode, lo, hi)
		return
	}
	a := dwmArgsOf(&g, mode)
	for c0 := 0; c0 < g.C; c0 += 8 {
		nb := min(8, g.C-c0)
		xo := c0
		a.kind, a.full = 1, 0
		if nb == 8 {
			a.full = 1
		} else {
			a.kind = 2
		}
		if bc {
			a.kind, xo = 0, c0/g.Mult
		}
		a.p, a.r, a.q = 0, 0, 0
		dwMultAVX2(&dst[c0], &x[xo], &w[c0], &bias[c0], &a, lo, hi, &tailMask32[8-nb])
	}
}

var (
	_ = dwMultImpls.add("avx2", AVX2, nil, dwMultAVX2Go)
	_ = dwMultImpls.add("avx512", AVX512, nil, dwMultAVX512Go)
)
