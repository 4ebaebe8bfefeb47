//go:build !purego && arm.7

package arch

// The 32-bit ARM int8 kernels (int8_neon_arm.s) and their registration at
// the neon level, in GOARM=7 builds only (GOARM=6 targets the ARM1176,
// which has no NEON). Integer accumulation is exact, so every
// implementation gives the portable code's bits (int8_test.go).

// matVecMulAccInt8NEONAsm does the first cols columns (a positive multiple
// of 8) of rows rows stride bytes apart.
//
//go:noescape
func matVecMulAccInt8NEONAsm(dst []int32, m []int8, rows, cols, stride int, x []int8)

// matVecMulAccInt8NEON runs the assembly on the columns up to a multiple
// of 8 and adds the last cols%8 products of each row in Go.
func matVecMulAccInt8NEON(dst []int32, m []int8, rows, cols int, x []int8) {
	c8 := cols &^ 7
	if c8 > 0 {
		matVecMulAccInt8NEONAsm(dst, m, rows, c8, cols, x)
	}
	if c8 == cols {
		return
	}
	xt := x[c8:cols]
	for r := 0; r < rows; r++ {
		row := m[r*cols+c8 : r*cols+cols]
		var s int32
		for c, v := range row {
			s += int32(v) * int32(xt[c])
		}
		dst[r] += s
	}
}

// dotInt8NEON is the matrix-vector kernel on a 1×n matrix.
func dotInt8NEON(a, b []int8) int32 {
	if len(a) == 0 {
		return 0
	}
	var s [1]int32
	matVecMulAccInt8NEON(s[:], a, 1, len(a), b)
	return s[0]
}

var (
	_ = matVecMulAccInt8Impls.add("neon", NEON, nil, matVecMulAccInt8NEON)
	_ = dotInt8Impls.add("neon", NEON, nil, dotInt8NEON)
)
