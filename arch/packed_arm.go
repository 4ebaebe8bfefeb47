//go:build !purego && arm.7

package arch

// The 32-bit ARM packed matrix × vector kernel (packed_neon_arm.s),
// registered at the neon level in GOARM=7 builds.

//go:noescape
func matVecMulAccPackedNEONAsm(dst, p []float32, rows, cols int, x []float32)

// matVecMulAccPackedNEON runs the assembly on the full 16-row blocks and
// on the partial last block through a 16-row buffer on the stack, whose
// first rows%16 sums it then adds to dst (the kernel writes whole blocks).
func matVecMulAccPackedNEON(dst, p []float32, rows, cols int, x []float32) {
	full := rows &^ (PackedBlock - 1)
	if full > 0 {
		matVecMulAccPackedNEONAsm(dst, p, full, cols, x)
	}
	if n := rows - full; n > 0 {
		var tmp [PackedBlock]float32
		matVecMulAccPackedNEONAsm(tmp[:], p[full*cols:], PackedBlock, cols, x)
		for i, v := range tmp[:n] {
			dst[full+i] += v
		}
	}
}

var _ = matVecMulAccPackedImpls.add("neon", NEON, nil, matVecMulAccPackedNEON)
