//go:build !purego && (arm64 || arm.7)

package arch

// The NEON GemmF32 of arm64 (gemm_neon_arm64.s) and of 32-bit ARM in
// GOARM=7 builds (gemm_neon_arm.s): both assembly kernels compute one
// block of 16 output channels for any number of pixel rows, and this
// wrapper, shared by the two, walks the blocks and sends the last,
// partial block (n%16 channels) through a tile on the stack, so that the
// kernels never write past a row's n outputs nor read past n bias
// values. The exported wrapper in gemm.go has checked the sizes (m, n, k
// ≥ 1, slices long enough).

//go:noescape
func gemmF32BlockNEON(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, k int, lo, hi float32)

// gemmTileRows is the number of pixel rows of a partial channel block
// computed at a time into the stack tile.
const gemmTileRows = 64

// gemmF32NEON is the NEON gemmF32Func. Its kernels start at the bias and
// fuse, so GemmF32Tile gives it the whole reduction with gemmFinal
// (gemmF32Ordered); other calls go to the portable kernel.
func gemmF32NEON(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, n, k, wk int, lo, hi float32, flags int) {
	if wk != k || flags != gemmFinal {
		gemmF32Generic(dst, ldd, a, lda, w, bias, m, n, k, wk, lo, hi, flags)
		return
	}
	j0 := 0
	for ; j0+GemmBlock <= n; j0 += GemmBlock {
		gemmF32BlockNEON(&dst[j0], ldd, &a[0], lda, &w[j0*k], &bias[j0], m, k, lo, hi)
	}
	if j0 == n {
		return
	}
	nb := n - j0
	var b [GemmBlock]float32
	var tile [gemmTileRows * GemmBlock]float32
	copy(b[:], bias[j0:n])
	for p0 := 0; p0 < m; p0 += gemmTileRows {
		r := min(gemmTileRows, m-p0)
		gemmF32BlockNEON(&tile[0], GemmBlock, &a[p0*lda], lda, &w[j0*k], &b[0], r, k, lo, hi)
		for i := 0; i < r; i++ {
			copy(dst[(p0+i)*ldd+j0:(p0+i)*ldd+n], tile[i*GemmBlock:i*GemmBlock+nb])
		}
	}
}

var _ = gemmF32Impls.add("neon", NEON, nil, gemmF32NEON)
