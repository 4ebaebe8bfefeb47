package fused

import (
	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Batched matrix×vector products for the LSTM panels. arch's primitives
// multiply one vector per call, so a batch of n vectors would stream the
// whole panel from memory n times per step; a float panel of a 256-cell
// LSTM (1.3 MB) does not stay in cache. These helpers walk the panel in
// row blocks of about productBlockBytes and multiply every batch vector
// with a block while it is hot. Each row is still summed by one arch
// call (its order may depend on where the block boundaries fall, within
// the primitive's stated accuracy).

// productBlockBytes is the panel slice kept hot across the batch vectors:
// half a typical 64 KiB L1/L2 working set, leaving room for the vectors.
const productBlockBytes = 32 << 10

// blockRows is the number of rows of cols elements of size bytes that fit
// in productBlockBytes, a multiple of 8 and at least 8.
func blockRows(cols, size int) int {
	r := productBlockBytes / max(1, cols*size)
	return max(8, r&^7)
}

// matBatchVecMulAccPacked sets dst[b*rows+r] += Σ_c m[r*cols+c]·x[b*cols+c]
// for b < nb, the matrix given packed (arch.PackMatrix), blocked over rows
// when nb > 1. A run of whole 16-row blocks of a packed matrix is itself
// a packed matrix, so a block of rows r0.. (r0 a multiple of 16) starts at
// p[r0*cols].
func matBatchVecMulAccPacked(dst, p []float32, rows, cols int, x []float32, nb int) {
	if nb <= 1 {
		if nb == 1 {
			arch.MatVecMulAccPacked(dst, p, rows, cols, x)
		}
		return
	}
	if rows <= 0 || cols <= 0 {
		return
	}
	// Blocks of whole productUnits keep each row's order that of one
	// call over the panel (see productUnit).
	blk := max(productUnit, blockRows(cols, 4)&^(productUnit-1))
	for r0 := 0; r0 < rows; r0 += blk {
		n := min(blk, rows-r0)
		w := p[r0*cols : r0*cols+arch.PackedLen(n, cols)]
		for b := 0; b < nb; b++ {
			arch.MatVecMulAccPacked(dst[b*rows+r0:b*rows+r0+n], w, n, cols, x[b*cols:(b+1)*cols])
		}
	}
}

// matBatchVecMulAccI8 is matBatchVecMulAccPacked for row-major int8 with exact int32
// accumulation (arch.MatVecMulAccInt8 per vector and block).
func matBatchVecMulAccI8(dst []int32, m []int8, rows, cols int, x []int8, nb int) {
	if nb <= 1 {
		if nb == 1 {
			arch.MatVecMulAccInt8(dst, m, rows, cols, x)
		}
		return
	}
	if rows <= 0 || cols <= 0 {
		return
	}
	blk := blockRows(cols, 1)
	for r0 := 0; r0 < rows; r0 += blk {
		n := min(blk, rows-r0)
		w := m[r0*cols : (r0+n)*cols]
		for b := 0; b < nb; b++ {
			arch.MatVecMulAccInt8(dst[b*rows+r0:b*rows+r0+n], w, n, cols, x[b*cols:(b+1)*cols])
		}
	}
}

// productUnit is the number of rows in one unit of a split gate product:
// four packed blocks. The AVX2 kernel sums a group of four blocks with one
// accumulator per block and a lone block with two (even and odd
// columns), and the NEON kernel pairs blocks, so a unit must start where
// a whole-panel call would start a group of four: units of 64 rows from
// row 0 give every row the order of the one-call product.
const productUnit = 4 * arch.PackedBlock

// packedProduct is one gate product of a float step split over the
// node's threads (ops.Node.Parallel) in units of productUnit rows: every
// row is then summed exactly as one arch.MatVecMulAccPacked call over
// the whole panel sums it, so the split does not change a bit
// (TestPackedProductSplit, at every ISA level).
type packedProduct struct {
	dst, p, x      []float32
	rows, cols, nb int
}

// run multiplies the row blocks [lo, hi).
func (pp *packedProduct) run(worker, lo, hi int) {
	r0, r1 := lo*productUnit, min(hi*productUnit, pp.rows)
	n := r1 - r0
	w := pp.p[r0*pp.cols : r0*pp.cols+arch.PackedLen(n, pp.cols)]
	for b := 0; b < pp.nb; b++ {
		arch.MatVecMulAccPacked(pp.dst[b*pp.rows+r0:b*pp.rows+r1], w, n, pp.cols, pp.x[b*pp.cols:(b+1)*pp.cols])
	}
}

// productOn is matBatchVecMulAccPacked on the threads of node n (nil:
// one thread): a step's gate products are split by rows when the panel
// is large (an LSTM(256) step reads 1.5 MB of weights; two cores have
// twice the cache bandwidth). It must not run concurrently on one cell.
func (c *lstmCell) productOn(n *ops.Node, dst, p []float32, rows, cols int, x []float32, nb int) {
	if n == nil || n.Threads() == 1 || rows <= 0 || cols <= 0 || nb <= 0 {
		matBatchVecMulAccPacked(dst, p, rows, cols, x, nb)
		return
	}
	c.prod = packedProduct{dst: dst, p: p, x: x, rows: rows, cols: cols, nb: nb}
	n.Parallel((rows+productUnit-1)/productUnit, rows*cols*nb, c.prodFn)
	c.prod = packedProduct{}
}
