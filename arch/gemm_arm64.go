//go:build !purego

package arch

// The arm64 int8 GEMM kernels (gemm_neon_arm64.s,
// gemm_neondotprod_arm64.s) and their registration. The assembly
// computes one block of 16 output channels for any number of pixel rows,
// as the float kernel does; the block walk and the requantising tile
// loop, shared with 32-bit ARM, are in gemm_int8_neon.go.

//go:noescape
func gemmInt8BlockNEON(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)

//go:noescape
func gemmInt8BlockSDOT(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)

func gemmInt8Block(dot bool, dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int) {
	if dot {
		gemmInt8BlockSDOT(dst, ldd, a, lda, w, seed, m, k)
	} else {
		gemmInt8BlockNEON(dst, ldd, a, lda, w, seed, m, k)
	}
}

func gemmInt8NEON(dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int) {
	gemmInt8Blocks(false, dst, ldd, a, lda, w, seed, m, n, k)
}

func gemmInt8SDOT(dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int) {
	gemmInt8Blocks(true, dst, ldd, a, lda, w, seed, m, n, k)
}

func gemmInt8RqNEON(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	gemmInt8RqTiled(false, dst, ldd, a, lda, w, seed, wZero, q, m, n, k, zp, lo, hi)
}

func gemmInt8RqSDOT(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	gemmInt8RqTiled(true, dst, ldd, a, lda, w, seed, wZero, q, m, n, k, zp, lo, hi)
}

var (
	_ = gemmInt8Impls.add("neon", NEON, nil, gemmInt8NEON)
	_ = gemmInt8Impls.add("neon-dotprod", NEONDotProd, nil, gemmInt8SDOT)
	_ = gemmInt8RqImpls.add("neon", NEON, nil, gemmInt8RqNEON)
	_ = gemmInt8RqImpls.add("neon-dotprod", NEONDotProd, nil, gemmInt8RqSDOT)
)

// rowSumInt8 is Σ a[i], the weights' zero-point term of gemmInt8RqTiled.
func rowSumInt8(a []int8) int32 {
	var sum [1]int32
	rowSumsInt8NEON(sum[:], a, 1, len(a))
	return sum[0]
}
