//go:build !purego

package arch

// The arm64 int8 kernels and their registration: SMLAL/SADALP at the neon
// level (int8_neon_arm64.s) and SDOT at neon-dotprod
// (int8_neondotprod_arm64.s), chosen only when the CPU reports the
// ARMv8.2 dot product (FeatASIMDDP, from HWCAP through
// golang.org/x/sys/cpu). Integer accumulation is exact, so every
// implementation gives the portable code's bits (int8_test.go).

//go:noescape
func matVecMulAccInt8NEON(dst []int32, m []int8, rows, cols int, x []int8)

//go:noescape
func matVecMulAccInt8SDOT(dst []int32, m []int8, rows, cols int, x []int8)

//go:noescape
func rowSumsInt8NEON(dst []int32, m []int8, rows, cols int)

// dotInt8NEON and dotInt8SDOT are the matrix-vector kernels on a 1×n
// matrix.
func dotInt8NEON(a, b []int8) int32 {
	if len(a) == 0 {
		return 0
	}
	var s [1]int32
	matVecMulAccInt8NEON(s[:], a, 1, len(a), b)
	return s[0]
}

func dotInt8SDOT(a, b []int8) int32 {
	if len(a) == 0 {
		return 0
	}
	var s [1]int32
	matVecMulAccInt8SDOT(s[:], a, 1, len(a), b)
	return s[0]
}

var (
	_ = matVecMulAccInt8Impls.add("neon", NEON, nil, matVecMulAccInt8NEON)
	_ = matVecMulAccInt8Impls.add("neon-dotprod", NEONDotProd, nil, matVecMulAccInt8SDOT)
	_ = dotInt8Impls.add("neon", NEON, nil, dotInt8NEON)
	_ = dotInt8Impls.add("neon-dotprod", NEONDotProd, nil, dotInt8SDOT)
	_ = rowSumsInt8Impls.add("neon", NEON, nil, rowSumsInt8NEON)
)
