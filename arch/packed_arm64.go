//go:build !purego

package arch

// The arm64 packed matrix × vector kernel (packed_neon_arm64.s),
// registered at the neon level (ASIMD is part of every arm64 CPU).

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
