package arch

// Portable packed matrix × vector product (MatVecMulAccPacked): the reference
// the assembly twins are tested against, and the implementation of
// -tags purego builds and of CPUs without them.

// matVecMulAccPackedGeneric is the portable MatVecMulAccPacked: per block,
// sixteen row sums over the columns in order, then added to dst.
func matVecMulAccPackedGeneric(dst, p []float32, rows, cols int, x []float32) {
	x = x[:cols]
	for r0 := 0; r0 < rows; r0 += PackedBlock {
		blk := p[r0*cols : (r0+PackedBlock)*cols]
		// Sixteen named accumulators stay in registers; an array would
		// live in memory.
		var a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15 float32
		for c, xv := range x {
			w := blk[c*PackedBlock : c*PackedBlock+PackedBlock : c*PackedBlock+PackedBlock]
			a0 += w[0] * xv
			a1 += w[1] * xv
			a2 += w[2] * xv
			a3 += w[3] * xv
			a4 += w[4] * xv
			a5 += w[5] * xv
			a6 += w[6] * xv
			a7 += w[7] * xv
			a8 += w[8] * xv
			a9 += w[9] * xv
			a10 += w[10] * xv
			a11 += w[11] * xv
			a12 += w[12] * xv
			a13 += w[13] * xv
			a14 += w[14] * xv
			a15 += w[15] * xv
		}
		acc := [PackedBlock]float32{a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15}
		d := dst[r0:min(r0+PackedBlock, rows)]
		for i := range d {
			d[i] += acc[i]
		}
	}
}
