//go:build !purego && arm.7

package arch

// The 32-bit ARM int8 GEMM kernel (gemm_int8_neon_arm.s) and its
// registration at the neon level, in GOARM=7 builds only (GOARM=6
// targets the ARM1176, which has no NEON). Accumulation is exact, so
// every implementation gives the portable code's bits (gemm_test.go).

//go:noescape
func gemmInt8BlockNEON(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)

// gemmInt8Block runs the NEON block kernel; ARMv7 has no dot product nor
// matrix multiply, so kind is always kindNEON here.
func gemmInt8Block(kind gemmKind, dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int) {
	gemmInt8BlockNEON(dst, ldd, a, lda, w, seed, m, k)
}

// rowSumInt8 is Σ a[i], the weights' zero-point term of gemmInt8RqTiled
// (non-zero only for uint8 filters; one pass over the row against the
// GEMM's n passes).
func rowSumInt8(a []int8) int32 {
	var s int32
	for _, v := range a {
		s += int32(v)
	}
	return s
}

func gemmInt8NEON(dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int) {
	gemmInt8Blocks(kindNEON, dst, ldd, a, lda, w, seed, m, n, k)
}

func gemmInt8RqNEON(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	gemmInt8RqTiled(kindNEON, dst, ldd, a, lda, w, seed, wZero, q, m, n, k, zp, lo, hi)
}

var (
	_ = gemmInt8Impls.add("neon", NEON, nil, gemmInt8NEON)
	_ = gemmInt8RqImpls.add("neon", NEON, nil, gemmInt8RqNEON)
)
