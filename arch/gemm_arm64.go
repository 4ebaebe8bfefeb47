//go:build !purego

package arch

// The arm64 int8 GEMM kernels (gemm_neon_arm64.s,
// gemm_neondotprod_arm64.s) and their registration (the float kernel's
// wrapper, shared with 32-bit ARM, is in gemm_neon.go). The assembly
// computes one block of 16 output channels for any number of pixel rows,
// as the float kernel does; these wrappers walk the blocks
// and send the last, partial block (n%16 channels) through a tile on the
// stack, so that the kernels never write past a row's n outputs nor read
// past n bias values. The exported wrappers in gemm.go have checked the
// sizes (m, n, k ≥ 1, slices long enough).

//go:noescape
func gemmInt8BlockNEON(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)

//go:noescape
func gemmInt8BlockSDOT(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, k int)

// gemmInt8Blocks runs one of the int8 block kernels (SDOT if dot) over
// every channel block. (The choice is a flag, not a function value: an
// indirect call would move the tile to the heap.)
func gemmInt8Blocks(dot bool, dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int) {
	blkLen := 64 * ((k + 3) / 4)
	j0 := 0
	for ; j0+GemmBlock <= n; j0 += GemmBlock {
		gemmInt8Block(dot, &dst[j0], ldd, &a[0], lda, &w[j0/GemmBlock*blkLen], &seed[j0], m, k)
	}
	if j0 == n {
		return
	}
	nb := n - j0
	var s [GemmBlock]int32
	var tile [gemmTileRows * GemmBlock]int32
	copy(s[:], seed[j0:n])
	for p0 := 0; p0 < m; p0 += gemmTileRows {
		r := min(gemmTileRows, m-p0)
		gemmInt8Block(dot, &tile[0], GemmBlock, &a[p0*lda], lda, &w[j0/GemmBlock*blkLen], &s[0], r, k)
		for i := 0; i < r; i++ {
			copy(dst[(p0+i)*ldd+j0:(p0+i)*ldd+n], tile[i*GemmBlock:i*GemmBlock+nb])
		}
	}
}

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

// gemmInt8RqArm64 is the requantising GEMM of both arm64 levels: the
// level's GemmInt8 (SDOT if dot) into an int32 tile on the stack, the
// weights' zero-point term subtracted per row, then RequantizeChannels on
// the tile, a few rows at a time.
func gemmInt8RqArm64(dot bool, dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	const tileLen = 2048
	if n > tileLen {
		gemmInt8RqGeneric(dst, ldd, a, lda, w, seed, wZero, q, m, n, k, zp, lo, hi)
		return
	}
	var tile [tileLen]int32
	var sum [1]int32
	rows := tileLen / n
	for p0 := 0; p0 < m; p0 += rows {
		r := min(rows, m-p0)
		acc := tile[:r*n]
		gemmInt8Blocks(dot, acc, n, a[p0*lda:], lda, w, seed, r, n, k)
		if wZero != 0 {
			for i := 0; i < r; i++ {
				rowSumsInt8NEON(sum[:], a[(p0+i)*lda:], 1, k)
				corr := wZero * sum[0]
				for j := range acc[i*n : (i+1)*n] {
					acc[i*n+j] -= corr
				}
			}
		}
		if ldd == n {
			requantChannelsArm64(dst[p0*ldd:p0*ldd+r*n], acc, q, zp, lo, hi)
			continue
		}
		for i := 0; i < r; i++ {
			requantChannelsArm64(dst[(p0+i)*ldd:(p0+i)*ldd+n], acc[i*n:(i+1)*n], q, zp, lo, hi)
		}
	}
}

func gemmInt8RqNEON(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	gemmInt8RqArm64(false, dst, ldd, a, lda, w, seed, wZero, q, m, n, k, zp, lo, hi)
}

func gemmInt8RqSDOT(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	gemmInt8RqArm64(true, dst, ldd, a, lda, w, seed, wZero, q, m, n, k, zp, lo, hi)
}

var (
	_ = gemmInt8Impls.add("neon", NEON, nil, gemmInt8NEON)
	_ = gemmInt8Impls.add("neon-dotprod", NEONDotProd, nil, gemmInt8SDOT)
	_ = gemmInt8RqImpls.add("neon", NEON, nil, gemmInt8RqNEON)
	_ = gemmInt8RqImpls.add("neon-dotprod", NEONDotProd, nil, gemmInt8RqSDOT)
)

// requantChannelsArm64 is the requantisation of gemmInt8RqArm64 and
// dwConvNEONGo (a direct call: the slot's indirect one would move their
// stack tiles to the heap).
func requantChannelsArm64(dst []byte, acc []int32, q *ChannelRequant, zp, lo, hi int32) {
	requantChannelsNEON(dst, acc, q, zp, lo, hi)
}
