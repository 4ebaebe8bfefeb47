package fused

import "github.com/tflrun/tflrun/arch"

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
	blk := max(arch.PackedBlock, blockRows(cols, 4)&^(arch.PackedBlock-1))
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
