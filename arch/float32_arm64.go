//go:build !purego

package arch

// The arm64 float32 kernels (float32_neon_arm64.s) and their
// registration at the neon level (ASIMD is part of every arm64 CPU, so
// they also run at neon-dotprod). Each has the signature and contract of
// its portable twin in float32_generic.go; the exported wrappers in
// float32.go have already checked the slice lengths, so the kernels may
// assume rows, cols > 0 and in-bounds slices. The elementwise kernels
// round every product to float32 before adding (FMUL then FADD, no FMLA),
// so they give the portable code's bits.

//go:noescape
func matVecMulAccNEON(dst, m []float32, rows, cols int, x []float32)

//go:noescape
func vecAddNEON(dst, a, b []float32)

//go:noescape
func vecMulNEON(dst, a, b []float32)

//go:noescape
func vecMulAccNEON(dst, a, b []float32)

// dotNEON is the matrix-vector kernel on a 1×n matrix.
func dotNEON(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	var s [1]float32
	matVecMulAccNEON(s[:], a, 1, len(a), b)
	return s[0]
}

var (
	_ = matVecMulAccImpls.add("neon", NEON, nil, matVecMulAccNEON)
	_ = dotImpls.add("neon", NEON, nil, dotNEON)
	_ = vecAddImpls.add("neon", NEON, nil, vecAddNEON)
	_ = vecMulImpls.add("neon", NEON, nil, vecMulNEON)
	_ = vecMulAccImpls.add("neon", NEON, nil, vecMulAccNEON)
)
