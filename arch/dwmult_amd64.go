//go:build !purego

package arch

import "unsafe"

// The AVX2 and AVX-512 kernels of DepthwiseMultF32
// (dwmult_avx2_amd64.s, dwmult_avx512_amd64.s) and their registration.
// The assembly computes one block of up to 8 (16) channels over the
// whole rectangle; the wrappers walk the blocks, choose how a block
// reads its input (one broadcast channel; with multiplier 1 a full or
// masked vector; otherwise the few input channels it reads permuted
// onto its lanes) and send rectangles without taps to the portable
// code. The AVX-512 wrapper leaves 8 channels or fewer to the AVX2
// kernel.

// dwmArgs is a rectangle as the assembly reads it: steps in bytes, the
// group's pixel offsets and the walk's state (A_* there).
type dwmArgs struct {
	n, cols, th, tw             int // pixels, columns, tap rows and columns
	xRowStep, xColStep, xTapCol int
	xRowAdj                     int // XTapRow - TapCols·XTapCol
	dRowStep, dColStep, wTapCol int
	wRowAdj                     int // WTapRow - TapCols·WTapCol
	mode                        int // 0 float32, 1 int32
	kind                        int // 0 broadcast, 1 full block, 2 masked block, 3 permuted
	full                        int // 1: all 8 lanes stored
	p, r, q                     int // walk: next pixel and its row and column
	xoff, doff                  [8]int
	idx                         [16]int32  // kind 3: lane l reads input channel idx[l] of the block's
	xmask                       int        // kind 3, AVX-512: the block's input channels
	xmaskv                      [8]int32   // kind 3, AVX2: the same as a lane mask
	init                        [8]float32 // AVX2: the sums' start
}

var (
	_ = [1]struct{}{}[unsafe.Offsetof(dwmArgs{}.p)-120]
	_ = [1]struct{}{}[unsafe.Offsetof(dwmArgs{}.xoff)-144]
	_ = [1]struct{}{}[unsafe.Offsetof(dwmArgs{}.doff)-208]
	_ = [1]struct{}{}[unsafe.Offsetof(dwmArgs{}.idx)-272]
	_ = [1]struct{}{}[unsafe.Offsetof(dwmArgs{}.xmask)-336]
	_ = [1]struct{}{}[unsafe.Offsetof(dwmArgs{}.xmaskv)-344]
	_ = [1]struct{}{}[unsafe.Offsetof(dwmArgs{}.init)-376]
)

// permute sets a for kind 3 on the block of nb channels from c0 and
// returns the first input channel it reads.
func (a *dwmArgs) permute(c0, nb, mult int) int {
	j0 := c0 / mult
	nIn := (c0+nb-1)/mult - j0 + 1
	a.kind = 3
	for l := range a.idx {
		a.idx[l] = int32((c0+min(l, nb-1))/mult - j0)
	}
	a.xmask = 1<<nIn - 1
	for l := range a.xmaskv {
		a.xmaskv[l] = 0
		if l < nIn {
			a.xmaskv[l] = -1
		}
	}
	return j0
}

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

// block sets a for the channel block starting at c0 of lanes-wide
// vectors (bc: every block reads one broadcast input channel) and
// returns the block's channel count and input offset.
func (a *dwmArgs) block(g *DepthwiseMultGeom, c0, lanes int, bc bool) (nb, xo int) {
	nb, xo = min(lanes, g.C-c0), c0
	a.kind, a.full = 1, 0
	if nb == lanes {
		a.full = 1
	} else {
		a.kind = 2
	}
	switch {
	case bc:
		a.kind, xo = 0, c0/g.Mult
	case g.Mult > 1:
		xo = a.permute(c0, nb, g.Mult)
	}
	a.p, a.r, a.q = 0, 0, 0
	return nb, xo
}

func dwMultAVX512Go(dst []uint32, x, w []float32, bias []uint32, g DepthwiseMultGeom, mode int, lo, hi float32) {
	bc := g.dwMultBroadcast(16)
	if g.C <= 8 || g.TapRows == 0 || g.TapCols == 0 {
		dwMultAVX2Go(dst, x, w, bias, g, mode, lo, hi)
		return
	}
	a := dwmArgsOf(&g, mode)
	for c0 := 0; c0 < g.C; c0 += 16 {
		nb, xo := a.block(&g, c0, 16, bc)
		dwMultAVX512(&dst[c0], &x[xo], &w[c0], &bias[c0], &a, lo, hi, uint16(1<<nb-1))
	}
}

func dwMultAVX2Go(dst []uint32, x, w []float32, bias []uint32, g DepthwiseMultGeom, mode int, lo, hi float32) {
	bc := g.dwMultBroadcast(8)
	if g.TapRows == 0 || g.TapCols == 0 {
		dwMultGeneric(dst, x, w, bias, g, mode, lo, hi)
		return
	}
	a := dwmArgsOf(&g, mode)
	for c0 := 0; c0 < g.C; c0 += 8 {
		nb, xo := a.block(&g, c0, 8, bc)
		dwMultAVX2(&dst[c0], &x[xo], &w[c0], &bias[c0], &a, lo, hi, &tailMask32[8-nb])
	}
}

var (
	_ = dwMultImpls.add("avx2", AVX2, nil, dwMultAVX2Go)
	_ = dwMultImpls.add("avx512", AVX512, nil, dwMultAVX512Go)
)
