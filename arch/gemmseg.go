package arch

// The indirect float GEMM: GemmF32Tile's product for pixel rows that are
// not stored as rows. A convolution's patch row (im2col's) is, with
// dilation 1 along the width, fH runs of fW·inC contiguous input values;
// the kernels read those runs in place from the input (padded once per
// image when the convolution pads), so no patch is copied, as XNNPACK's
// indirect GEMM does. The order of every sum is GemmF32Tile's: the
// values and their order are those of the patch row.

// Function slot and registry entry of the indirect GEMM kernel: one
// reduction block of GemmF32Tile's order (a gemmF32Func whose rows are
// given by offsets and runs; see gemmF32SegGeneric).
var (
	gemmF32Seg      func(dst []float32, ldd int, x []float32, rows, runs []int, runLen, k0, kb int, w, bias []float32, m, n, wk int, lo, hi float32, flags int)
	gemmF32SegImpls = newImpls("GemmF32Indirect", &gemmF32Seg, gemmF32SegGeneric)
)

// gemmF32SegGeneric is gemmF32Func for the reduction indices k0 ≤ i <
// k0+kb of rows p < m whose reduction vector is the concatenation of
// x[rows[p]+runs[r] : rows[p]+runs[r]+runLen] over the runs r (element
// offsets); w is the packed weights from index k0 on, wk their
// reduction length. It gathers the rows and runs the portable kernel,
// so it sums exactly as that does.
func gemmF32SegGeneric(dst []float32, ldd int, x []float32, rows, runs []int, runLen, k0, kb int, w, bias []float32, m, n, wk int, lo, hi float32, flags int) {
	k := len(runs) * runLen
	a := make([]float32, m*k)
	gatherRows(a, x, rows[:m], runs, runLen)
	gemmF32Generic(dst, ldd, a[k0:], k, w, bias, m, n, kb, wk, lo, hi, flags)
}

// gatherRows writes row p's runs, concatenated, to a[p·len(runs)·runLen:].
func gatherRows(a, x []float32, rows, runs []int, runLen int) {
	j := 0
	for _, off := range rows {
		for _, r := range runs {
			j += copy(a[j:j+runLen], x[off+r:off+r+runLen])
		}
	}
}

// GemmF32Indirect is GemmF32Tile (same arguments p0, total, lo, hi,
// packed, bias, m, n and the same order of every sum) for m rows given
// in place: row p's reduction vector is the concatenation, over r <
// len(runs), of x[rowOff[p]+runs[r] : rowOff[p]+runs[r]+runLen], so
// k = len(runs)·runLen. A CONV_2D passes its (padded) input as x, the
// offset of each output pixel's window as rowOff and the offsets of the
// filter rows within a window as runs: the rows are im2col's patch
// rows, not copied. col is scratch of at least m·k values, used when
// the level in use has no indirect kernel (the rows are gathered into it
// and GemmF32Tile runs on them) and for the shapes the kernel leaves to
// GemmF32Tile (one row or one channel in all, channel counts not a
// multiple of 8 or below 16, runs shorter than 1). It panics if an
// offset is negative or a run reaches past x, or a slice is shorter than
// the sizes say (a kernel bug: kernels check shapes at Prepare).
func GemmF32Indirect(dst []float32, ldd int, x []float32, rowOff, runs []int, runLen int, packed, bias []float32, m, n int, lo, hi float32, p0, total int, col []float32) {
	gemmF32Indirect(dst, ldd, x, rowOff, runs, runLen, packed, bias, m, n, lo, hi, p0, total, col, false)
}

// GemmF32IndirectFused is GemmF32Indirect with GemmF32TileFused's fused
// products: it gives GemmF32TileFused's bits of the gathered rows.
func GemmF32IndirectFused(dst []float32, ldd int, x []float32, rowOff, runs []int, runLen int, packed, bias []float32, m, n int, lo, hi float32, p0, total int, col []float32) {
	gemmF32Indirect(dst, ldd, x, rowOff, runs, runLen, packed, bias, m, n, lo, hi, p0, total, col, true)
}

func gemmF32Indirect(dst []float32, ldd int, x []float32, rowOff, runs []int, runLen int, packed, bias []float32, m, n int, lo, hi float32, p0, total int, col []float32, fused bool) {
	if m <= 0 || n <= 0 {
		return
	}
	if runLen < 1 || len(runs) == 0 {
		panic("arch.GemmF32Indirect: no runs")
	}
	k := len(runs) * runLen
	lo0, hi0 := runs[0], runs[0]
	for _, r := range runs {
		lo0, hi0 = min(lo0, r), max(hi0, r)
	}
	rLo, rHi := rowOff[0], rowOff[0]
	for _, off := range rowOff[:m] {
		rLo, rHi = min(rLo, off), max(rHi, off)
	}
	if rLo < 0 || rLo+lo0 < 0 || rHi+hi0+runLen > len(x) {
		panic("arch.GemmF32Indirect: row outside the source")
	}
	if !GemmF32IndirectFast(n) || total == 1 || len(runs) > maxSegs {
		a := col[:m*k]
		gatherRows(a, x, rowOff[:m], runs, runLen)
		gemmF32Tile(dst, ldd, a, k, packed, bias, m, n, k, lo, hi, p0, total, fused)
		return
	}
	if p0 < 0 || total < p0+m {
		panic("arch.GemmF32Tile: rows outside the product")
	}
	_ = dst[(m-1)*ldd+n-1]
	_ = bias[n-1]
	_ = packed[PackedGemmF32Len(n, k)-1]
	kc := eigenKc(k, n, total)
	for k0 := 0; k0 < k; k0 += kc {
		kb := min(kc, k-k0)
		gemmF32Seg(dst, ldd, x, rowOff[:m], runs, runLen, k0, kb, packed[k0*GemmBlock:], bias, m, n, k, lo, hi, blockFlags(k0, kb, k, fused))
	}
}

// maxSegs bounds the runs of one indirect product (a 7×7 dilated filter
// has 49); more take the gathering path.
const maxSegs = 64

// GemmF32IndirectFast reports whether GemmF32Indirect has a kernel at the
// level in use for n output channels (else it gathers the rows, which
// costs what im2col does): a kernel may choose the indirect path at
// Prepare, both ways giving the same bits.
func GemmF32IndirectFast(n int) bool {
	return gemmF32SegImpls.cur != 0 && gemmF32Ordered() && n >= 16 && n%8 == 0
}
