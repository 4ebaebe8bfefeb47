//go:build !purego

package arch

import "unsafe"

// The arm64 int8 GEMM kernels (gemm_neon_arm64.s,
// gemm_neondotprod_arm64.s, gemm_neoni8mm_arm64.s) and their
// registration. The assembly computes one block of 16 output channels for
// any number of pixel rows (the USMMLA kernel: a multiple of four), as
// the float kernel does; the block walk and the requantising tile loop,
// shared with 32-bit ARM, are in gemm_int8_neon.go.

//go:noescape
func gemmInt8BlockNEON(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)

//go:noescape
func gemmInt8BlockSDOT(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)

//go:noescape
func gemmInt8BlockMMLA(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)

// mmlaMinK is the shortest reduction the USMMLA kernel takes: its
// epilogue (the 128·Σa correction, the pair-to-row shuffles) costs about
// what SDOT loses over 32 reduction indices, so shorter ones (and the
// last m%4 rows) run the SDOT kernel, which every CPU with FEAT_I8MM has
// (the neon-i8mm level includes neon-dotprod).
const mmlaMinK = 32

func gemmInt8Block(kind gemmKind, dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int) {
	switch kind {
	case kindMMLA:
		if m4 := m &^ 3; m4 > 0 && k >= mmlaMinK {
			gemmInt8BlockMMLA(dst, ldd, a, lda, w, seed, m4, k)
			if m4 == m {
				return
			}
			dst = (*int32)(unsafe.Add(unsafe.Pointer(dst), m4*ldd*4))
			a = (*int8)(unsafe.Add(unsafe.Pointer(a), m4*lda))
			m -= m4
		}
		gemmInt8BlockSDOT(dst, ldd, a, lda, w, seed, m, k)
	case kindSDOT:
		gemmInt8BlockSDOT(dst, ldd, a, lda, w, seed, m, k)
	default:
		gemmInt8BlockNEON(dst, ldd, a, lda, w, seed, m, k)
	}
}

func gemmInt8NEON(dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int) {
	gemmInt8Blocks(kindNEON, dst, ldd, a, lda, w, seed, m, n, k)
}

func gemmInt8SDOT(dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int) {
	gemmInt8Blocks(kindSDOT, dst, ldd, a, lda, w, seed, m, n, k)
}

func gemmInt8MMLA(dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int) {
	gemmInt8Blocks(kindMMLA, dst, ldd, a, lda, w, seed, m, n, k)
}

func gemmInt8RqNEON(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	gemmInt8RqTiled(kindNEON, dst, ldd, a, lda, w, seed, wZero, q, m, n, k, zp, lo, hi)
}

func gemmInt8RqSDOT(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	gemmInt8RqTiled(kindSDOT, dst, ldd, a, lda, w, seed, wZero, q, m, n, k, zp, lo, hi)
}

func gemmInt8RqMMLA(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	gemmInt8RqTiled(kindMMLA, dst, ldd, a, lda, w, seed, wZero, q, m, n, k, zp, lo, hi)
}

var (
	_ = gemmInt8Impls.add("neon", NEON, nil, gemmInt8NEON)
	_ = gemmInt8Impls.add("neon-dotprod", NEONDotProd, nil, gemmInt8SDOT)
	_ = gemmInt8Impls.add("neon-i8mm", NEONI8MM, nil, gemmInt8MMLA)
	_ = gemmInt8RqImpls.add("neon", NEON, nil, gemmInt8RqNEON)
	_ = gemmInt8RqImpls.add("neon-dotprod", NEONDotProd, nil, gemmInt8RqSDOT)
	_ = gemmInt8RqImpls.add("neon-i8mm", NEONI8MM, nil, gemmInt8RqMMLA)
)

// rowSumInt8 is Σ a[i], the weights' zero-point term of gemmInt8RqTiled.
func rowSumInt8(a []int8) int32 {
	var sum [1]int32
	rowSumsInt8NEON(sum[:], a, 1, len(a))
	return sum[0]
}
