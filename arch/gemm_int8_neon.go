//go:build !purego && (arm64 || arm.7)

package arch

// The int8 GEMM wrappers shared by arm64 (gemm_arm64.go) and 32-bit ARM
// in GOARM=7 builds (gemm_int8_arm.go): each architecture's assembly
// computes one block of 16 output channels for any number of pixel rows
// (gemmInt8Block); these wrappers walk the blocks and send the last,
// partial block (n%16 channels) through a tile on the stack, so that the
// kernels never write past a row's n outputs nor read past n seeds. The
// exported wrappers in gemm.go have checked the sizes (m, n, k ≥ 1,
// slices long enough).

// gemmKind selects the block kernel of gemmInt8Block: NEON multiply-
// accumulates, SDOT (arm64 neon-dotprod) or USMMLA (arm64 neon-i8mm).
// 32-bit ARM has only the first.
type gemmKind uint8

const (
	kindNEON gemmKind = iota
	kindSDOT
	kindMMLA
)

// gemmInt8Blocks runs one of the int8 block kernels (kind) over every
// channel block. (The choice is a value, not a function value: an
// indirect call would move the tile to the heap.)
func gemmInt8Blocks(kind gemmKind, dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int) {
	blkLen := 64 * ((k + 3) / 4)
	j0 := 0
	for ; j0+GemmBlock <= n; j0 += GemmBlock {
		gemmInt8Block(kind, &dst[j0], ldd, &a[0], lda, &w[j0/GemmBlock*blkLen], &seed[j0], m, k)
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
		gemmInt8Block(kind, &tile[0], GemmBlock, &a[p0*lda], lda, &w[j0/GemmBlock*blkLen], &s[0], r, k)
		for i := 0; i < r; i++ {
			copy(dst[(p0+i)*ldd+j0:(p0+i)*ldd+n], tile[i*GemmBlock:i*GemmBlock+nb])
		}
	}
}

// gemmInt8RqTiled is the requantising GEMM of the NEON levels (arm64
// NEON, SDOT and USMMLA, 32-bit ARM NEON): the level's GemmInt8 (the
// block kernel kind) into an int32 tile on the stack, the
// weights' zero-point term subtracted per row, then RequantizeChannels on
// the tile, a few rows at a time.
func gemmInt8RqTiled(kind gemmKind, dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	const tileLen = 2048
	if n > tileLen {
		gemmInt8RqGeneric(dst, ldd, a, lda, w, seed, wZero, q, m, n, k, zp, lo, hi)
		return
	}
	var tile [tileLen]int32
	rows := tileLen / n
	for p0 := 0; p0 < m; p0 += rows {
		r := min(rows, m-p0)
		acc := tile[:r*n]
		gemmInt8Blocks(kind, acc, n, a[p0*lda:], lda, w, seed, r, n, k)
		if wZero != 0 {
			for i := 0; i < r; i++ {
				subI32NEON(&acc[i*n], n, wZero*rowSumInt8(a[(p0+i)*lda:(p0+i)*lda+k]))
			}
		}
		if ldd == n {
			requantChannelsDirect(dst[p0*ldd:p0*ldd+r*n], acc, q, zp, lo, hi)
			continue
		}
		for i := 0; i < r; i++ {
			requantChannelsDirect(dst[(p0+i)*ldd:(p0+i)*ldd+n], acc[i*n:(i+1)*n], q, zp, lo, hi)
		}
	}
}

// subI32NEON subtracts c from p[0:n] (n ≥ 0, int32 arithmetic wrapping):
// the weights' zero-point term of gemmInt8RqTiled, which a scalar loop
// made a fifth of a uint8 MobileNet's instructions. In
// gemm_neon_arm64.s and gemm_int8_neon_arm.s.
//
//go:noescape
func subI32NEON(p *int32, n int, c int32)

// requantChannelsDirect is the requantisation of gemmInt8RqTiled and
// dwConvNEONGo (a direct call: the slot's indirect one would move their
// stack tiles to the heap).
func requantChannelsDirect(dst []byte, acc []int32, q *ChannelRequant, zp, lo, hi int32) {
	requantChannelsNEON(dst, acc, q, zp, lo, hi)
}
