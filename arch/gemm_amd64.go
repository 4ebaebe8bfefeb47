//go:build !purego

package arch

// The amd64 GEMM kernels (gemm_avx2_amd64.s, gemm_avx512_amd64.s) and
// their registration. The assembly computes blocks of pixel rows against
// all output channels; these wrappers split the rows among the kernels
// and pass the channel tail masks. The exported wrappers in gemm.go have
// checked the sizes (m, n, k ≥ 1, slices long enough).

//go:noescape
func gemmF32R8AVX512(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, tail uint64, wskip int, flags uint64)

//go:noescape
func gemmF32R4AVX512(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, tail uint64, wskip int, flags uint64)

//go:noescape
func gemmF32R8AVX512Y(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, tail uint64, wskip int, flags uint64)

//go:noescape
func gemmF32R4AVX512Y(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, tail uint64, wskip int, flags uint64)

//go:noescape
func gemmF32R4AVX2(dst *float32, ldd int, a *float32, lda int, w *float32, bias *float32, m, n, k int, lo, hi float32, mlo, mhi *int32, wskip int, flags uint64)

// gemmF32ChunkBytes bounds the packed weights one pass of the AVX-512
// kernels streams for every block of rows: a product with more weights
// is done in chunks of channels (multiples of GemmBlock), each over all
// rows, so that a chunk stays in the L2 cache while the rows go by
// instead of the whole weight matrix coming again from L3 for every 8
// rows (a 7×7×192 → 1152 pointwise layer: 20 → 50 GMAC/s). Every
// channel's sum is the same whatever the chunks, only the loop order
// changes.
const gemmF32ChunkBytes = 128 << 10

// gemmF32AVX512 runs gemmF32AVX512Part over chunks of channels whose
// weights fit gemmF32ChunkBytes when there is more than one block of rows.
func gemmF32AVX512(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, n, k, wk int, lo, hi float32, flags int) {
	chunk := max(gemmF32ChunkBytes/(4*k)&^(GemmBlock-1), GemmBlock)
	if m <= 8 || n <= chunk+GemmBlock {
		gemmF32AVX512Part(dst, ldd, a, lda, w, bias, m, n, k, wk, lo, hi, flags)
		return
	}
	for j0 := 0; j0 < n; {
		nc := min(chunk, n-j0)
		if n-j0-nc < GemmBlock { // no last chunk of less than a block
			nc = n - j0
		}
		gemmF32AVX512Part(dst[j0:], ldd, a, lda, w[j0*wk:], bias[j0:], m, nc, k, wk, lo, hi, flags)
		j0 += nc
	}
}

// gemmF32AVX512Part runs the 8-row kernel over all full blocks of 8 rows
// (and a last block of 5-7 rows), and the 4-row kernel over a last block
// of 1-4 rows, so that at most 3 rows of work are wasted. A last channel
// block of at most 8 channels runs on the 8-lane (YMM) kernels, which on
// CPUs that split 512-bit operations in two take half the time of a
// masked 16-lane block (n = 24: 0.75 → 1.0 of the full-block rate).
func gemmF32AVX512Part(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, n, k, wk int, lo, hi float32, flags int) {
	wskip, fl := (wk-k)*GemmBlock*4, uint64(flags)
	m8 := m
	if r := m % 8; r > 0 && r <= 4 {
		m8 = m - r
	}
	n16 := n &^ (GemmBlock - 1)
	if r := n - n16; r == 0 || r > 8 {
		n16 = n
	}
	if n16 > 0 {
		tail := uint64(1)<<(n16%GemmBlock) - 1
		if m8 > 0 {
			gemmF32R8AVX512(&dst[0], ldd, &a[0], lda, &w[0], &bias[0], m8, n16, k, lo, hi, tail, wskip, fl)
		}
		if m8 < m {
			gemmF32R4AVX512(&dst[m8*ldd], ldd, &a[m8*lda], lda, &w[0], &bias[0], m-m8, n16, k, lo, hi, tail, wskip, fl)
		}
	}
	if n16 == n {
		return
	}
	// 8-lane vectors for the last 1-8 channels (their block starts at
	// n16·wk in the packed weights).
	r := n - n16
	tail := uint64(1)<<r - 1
	d, wb, b := dst[n16:], w[n16*wk:], bias[n16:]
	if m8 > 0 {
		gemmF32R8AVX512Y(&d[0], ldd, &a[0], lda, &wb[0], &b[0], m8, r, k, lo, hi, tail, wskip, fl)
	}
	if m8 < m {
		gemmF32R4AVX512Y(&d[m8*ldd], ldd, &a[m8*lda], lda, &wb[0], &b[0], m-m8, r, k, lo, hi, tail, wskip, fl)
	}
}

// gemmF32AVX2 passes the VMASKMOVPS masks of the last channel block:
// lanes n%16 of the two 8-lane halves.
func gemmF32AVX2(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, n, k, wk int, lo, hi float32, flags int) {
	t := n % GemmBlock
	lo8, hi8 := min(t, 8), max(t-8, 0)
	gemmF32R4AVX2(&dst[0], ldd, &a[0], lda, &w[0], &bias[0], m, n, k, lo, hi, &tailMask32[8-lo8], &tailMask32[8-hi8], (wk-k)*GemmBlock*4, uint64(flags))
}

var (
	_ = gemmF32Impls.add("avx2", AVX2, nil, gemmF32AVX2)
	_ = gemmF32Impls.add("avx512", AVX512, nil, gemmF32AVX512)
)

//go:noescape
func gemmInt8R8VNNI(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail, rtail uint64)

//go:noescape
func gemmInt8R4VNNI(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail, rtail uint64)

//go:noescape
func gemmInt8R4AVX2(dst *int32, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, masks *int32)

// gemmInt8VNNI splits the rows as gemmF32AVX512 does.
func gemmInt8VNNI(dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int) {
	tail := uint64(1)<<(n%GemmBlock) - 1
	ktail := uint64(1)<<(k%4) - 1
	rtail := uint64(1)<<(k%64) - 1 // the row sums' last k%64 bytes
	m8 := m
	if r := m % 8; r > 0 && r <= 4 {
		m8 = m - r
	}
	if m8 > 0 {
		gemmInt8R8VNNI(&dst[0], ldd, &a[0], lda, &w[0], &seed[0], m8, n, k, tail, ktail, rtail)
	}
	if m8 < m {
		gemmInt8R4VNNI(&dst[m8*ldd], ldd, &a[m8*lda], lda, &w[0], &seed[0], m-m8, n, k, tail, ktail, rtail)
	}
}

// gemmInt8AVX2 needs k ≥ 4 (its tail reads a row's last four bytes).
func gemmInt8AVX2(dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int) {
	if k < 4 {
		gemmInt8Generic(dst, ldd, a, lda, w, seed, m, n, k)
		return
	}
	gemmInt8R4AVX2(&dst[0], ldd, &a[0], lda, &w[0], &seed[0], m, n, k, &tailMask32[0])
}

var (
	_ = gemmInt8Impls.add("avx2", AVX2, nil, gemmInt8AVX2)
	_ = gemmInt8Impls.add("avx512vnni", AVX512, []Feature{FeatAVX512VNNI}, gemmInt8VNNI)
)

//go:noescape
func gemmInt8RqR8VNNI(dst *byte, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail uint64, qp *int32, qstride int, zp, lo, hi int32, flags uint64, wz int32, rtail uint64)

//go:noescape
func gemmInt8RqR4VNNI(dst *byte, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail uint64, qp *int32, qstride int, zp, lo, hi int32, flags uint64, wz int32, rtail uint64)

//go:noescape
func gemmInt8RqR8VNNIY(dst *byte, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail uint64, qp *int32, qstride int, zp, lo, hi int32, flags uint64, wz int32, rtail uint64)

//go:noescape
func gemmInt8RqR4VNNIY(dst *byte, ldd int, a *int8, lda int, w *int8, seed *int32, m, n, k int, tail, ktail uint64, qp *int32, qstride int, zp, lo, hi int32, flags uint64, wz int32, rtail uint64)

// gemmInt8RqVNNI splits the rows as gemmInt8VNNI does; up to 8 channels
// run on 8-lane vectors.
func gemmInt8RqVNNI(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	tail := uint64(1)<<(n%GemmBlock) - 1
	ktail := uint64(1)<<(k%4) - 1
	rtail := uint64(1)<<(k%64) - 1 // the row sums' last k%64 bytes
	flags := q.rqFlags(lo, hi)
	m8 := m
	if r := m % 8; r > 0 && r <= 4 {
		m8 = m - r
	}
	if n <= 8 {
		if n == 8 {
			tail = 0xff
		}
		if m8 > 0 {
			gemmInt8RqR8VNNIY(&dst[0], ldd, &a[0], lda, &w[0], &seed[0], m8, n, k, tail, ktail, &q.p[0], 4*q.stride, zp, lo, hi, flags, wZero, rtail)
		}
		if m8 < m {
			gemmInt8RqR4VNNIY(&dst[m8*ldd], ldd, &a[m8*lda], lda, &w[0], &seed[0], m-m8, n, k, tail, ktail, &q.p[0], 4*q.stride, zp, lo, hi, flags, wZero, rtail)
		}
		return
	}
	if m8 > 0 {
		gemmInt8RqR8VNNI(&dst[0], ldd, &a[0], lda, &w[0], &seed[0], m8, n, k, tail, ktail, &q.p[0], 4*q.stride, zp, lo, hi, flags, wZero, rtail)
	}
	if m8 < m {
		gemmInt8RqR4VNNI(&dst[m8*ldd], ldd, &a[m8*lda], lda, &w[0], &seed[0], m-m8, n, k, tail, ktail, &q.p[0], 4*q.stride, zp, lo, hi, flags, wZero, rtail)
	}
}

// gemmInt8RqAVX2 runs the AVX2 GEMM into an int32 tile on the stack,
// subtracts the weights' zero point term and requantises the tile, a few
// rows at a time.
func gemmInt8RqAVX2(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
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
		gemmInt8AVX2(acc, n, a[p0*lda:], lda, w, seed, r, n, k)
		if wZero != 0 {
			for i := 0; i < r; i++ {
				rowSumsInt8AVX2(sum[:], a[(p0+i)*lda:], 1, k) // (direct: the slot would move sum to the heap)
				corr := wZero * sum[0]
				for j := range acc[i*n : (i+1)*n] {
					acc[i*n+j] -= corr
				}
			}
		}
		if ldd == n {
			requantChannelsAVX2Go(dst[p0*ldd:p0*ldd+r*n], acc, q, zp, lo, hi)
			continue
		}
		for i := 0; i < r; i++ {
			requantChannelsAVX2Go(dst[(p0+i)*ldd:(p0+i)*ldd+n], acc[i*n:(i+1)*n], q, zp, lo, hi)
		}
	}
}

var (
	_ = gemmInt8RqImpls.add("avx2", AVX2, nil, gemmInt8RqAVX2)
	_ = gemmInt8RqImpls.add("avx512vnni", AVX512, []Feature{FeatAVX512VNNI}, gemmInt8RqVNNI)
)
