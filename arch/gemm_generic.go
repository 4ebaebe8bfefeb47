package arch

// Portable GEMM kernels: the reference the assembly twins are tested
// against, and the implementation of -tags purego builds and of CPUs
// without assembly. They read the packed layouts of gemm.go block by
// block: for each block of 16 output channels and each pixel, 16 sums
// kept in an array, each reduction step adding one element of a times 16
// contiguous weights.

// gemmF32Generic is a gemmF32Func (sizes checked by the wrapper, k ≥ 1).
// Each block is done in halves of 8 channels with 8 scalar sums, which
// the compiler keeps in registers (an array of 16 would live in memory).
// The products are converted to float32 before the addition, which Go
// never fuses into a multiply-add.
func gemmF32Generic(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, n, k, wk int, lo, hi float32, flags int) {
	for j0 := 0; j0 < n; j0 += GemmBlock {
		blk := w[j0*wk : j0*wk+GemmBlock*k]
		for h := j0; h < min(n, j0+GemmBlock); h += 8 {
			nb := min(8, n-h)
			var b [8]float32
			if flags&gemmFinal != 0 {
				copy(b[:nb], bias[h:h+nb])
			}
			for p := 0; p < m; p++ {
				var s0, s1, s2, s3, s4, s5, s6, s7 float32
				for i, x := range a[p*lda : p*lda+k] {
					ws := (*[8]float32)(blk[i*GemmBlock+h-j0:])
					s0 += float32(x * ws[0])
					s1 += float32(x * ws[1])
					s2 += float32(x * ws[2])
					s3 += float32(x * ws[3])
					s4 += float32(x * ws[4])
					s5 += float32(x * ws[5])
					s6 += float32(x * ws[6])
					s7 += float32(x * ws[7])
				}
				s := [8]float32{s0, s1, s2, s3, s4, s5, s6, s7}
				out := dst[p*ldd+h : p*ldd+h+nb]
				for l := range out {
					v := s[l]
					if flags&gemmAcc != 0 {
						v = out[l] + v
					}
					if flags&gemmFinal != 0 {
						v = clampF32(v+b[l], lo, hi)
					}
					out[l] = v
				}
			}
		}
	}
}

// gemmInt8Generic is GemmInt8 (sizes checked by the wrapper, k ≥ 1),
// undoing the packed weights' +128 offset.
func gemmInt8Generic(dst []int32, ldd int, a []int8, lda int, w []int8, seed []int32, m, n, k int) {
	groups := (k + 3) / 4
	blkLen := 64 * groups
	for j0 := 0; j0 < n; j0 += GemmBlock {
		blk := w[j0/GemmBlock*blkLen : (j0/GemmBlock+1)*blkLen]
		nb := min(GemmBlock, n-j0)
		for p := 0; p < m; p++ {
			var acc [GemmBlock]int32
			row := a[p*lda : p*lda+k]
			for g := 0; g < groups; g++ {
				var x [4]int32
				for t := 0; t < 4 && 4*g+t < k; t++ {
					x[t] = int32(row[4*g+t])
				}
				ws := (*[64]int8)(blk[g*64:])
				for l := range acc {
					acc[l] += x[0]*int32(ws[4*l]^-128) + x[1]*int32(ws[4*l+1]^-128) +
						x[2]*int32(ws[4*l+2]^-128) + x[3]*int32(ws[4*l+3]^-128)
				}
			}
			out := dst[p*ldd+j0 : p*ldd+j0+nb]
			for l := range out {
				out[l] = seed[j0+l] + acc[l]
			}
		}
	}
}

// gemmInt8RqGeneric is GemmInt8Requantize: each pixel's sums for one
// block of 16 channels in a stack array, then requantised.
func gemmInt8RqGeneric(dst []byte, ldd int, a []int8, lda int, w []int8, seed []int32, wZero int32, q *ChannelRequant, m, n, k int, zp, lo, hi int32) {
	blkLen := 64 * ((k + 3) / 4)
	var acc [GemmBlock]int32
	for p := 0; p < m; p++ {
		var sum int32
		for _, v := range a[p*lda : p*lda+k] {
			sum += int32(v)
		}
		corr := wZero * sum
		for j0 := 0; j0 < n; j0 += GemmBlock {
			nb := min(GemmBlock, n-j0)
			blk := w[j0/GemmBlock*blkLen : (j0/GemmBlock+1)*blkLen]
			gemmInt8Generic(acc[:nb], nb, a[p*lda:], lda, blk, seed[j0:j0+nb], 1, nb, k)
			for l := range acc[:nb] {
				acc[l] -= corr
			}
			requantSpan(dst[p*ldd+j0:p*ldd+j0+nb], acc[:nb], q, j0, zp, lo, hi)
		}
	}
}

// requantSpan requantises acc, whose element i belongs to channel c0+i,
// into dst (see requantChannelsGeneric).
func requantSpan(dst []byte, acc []int32, q *ChannelRequant, c0 int, zp, lo, hi int32) {
	dst = dst[:len(acc)]
	tie := q.tie()
	for i, x := range acc {
		c := c0 + i
		left, right := uint32(q.p[2*q.stride+c]), uint32(q.p[3*q.stride+c])
		h := int32((int64(x<<left)*int64(q.p[c]) + 1<<30) >> 31)
		th := q.p[5*q.stride+c] - h>>31&tie
		r := h>>right + int32(uint32(th-h&q.p[4*q.stride+c])>>31)
		dst[i] = byte(max(lo, min(r+zp, hi)))
	}
}
