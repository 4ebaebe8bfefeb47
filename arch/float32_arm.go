//go:build !purego && arm.7

package arch

// The 32-bit ARM float32 matrix × vector kernel (float32_neon_arm.s) and
// its registration at the neon level, in GOARM=7 builds only (GOARM=6
// targets the ARM1176, which has no NEON). The summation order, the
// unfused products and NEON's flush of subnormals differ from the
// portable code within MatVecMulAcc's documented accuracy
// (float32_test.go).

// matVecMulAccNEONAsm does the first cols columns (a positive multiple of
// 4) of rows rows stride elements apart.
//
//go:noescape
func matVecMulAccNEONAsm(dst, m []float32, rows, cols, stride int, x []float32)

// matVecMulAccNEON runs the assembly on the columns up to a multiple of 4
// and adds the last cols%4 products of each row in Go.
func matVecMulAccNEON(dst, m []float32, rows, cols int, x []float32) {
	c4 := cols &^ 3
	if c4 > 0 {
		matVecMulAccNEONAsm(dst, m, rows, c4, cols, x)
	}
	if c4 == cols {
		return
	}
	xt := x[c4:cols]
	for r := 0; r < rows; r++ {
		row := m[r*cols+c4 : r*cols+cols]
		var s float32
		for c, v := range row {
			s += v * xt[c]
		}
		dst[r] += s
	}
}

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
)
