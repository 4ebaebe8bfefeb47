package arch

// The parts of GemmF32's order (TensorFlow Lite's float GEMM on x86,
// Eigen's general_matrix_matrix_product and general_matrix_vector_product
// as built with SSE and without FMA) that the kernels' in-order sums do
// not cover: the reduction blocking, the remainder channels and the
// matrix × vector product. See GemmF32Tile for the orders.

// eigenL1 is the L1 data cache size Eigen's blocking assumes (its x86
// default, and what it reads with CPUID on the x86 CPUs checked).
const eigenL1 = 32 * 1024

// eigenKc is the reduction block of Eigen's
// evaluateProductBlockingSizesHeuristic (one thread) for a product of m
// output channels (Eigen's rows), n pixels (its columns) and depth k,
// with the register blocking of SSE without FMA (mr = 8, nr = 4).
func eigenKc(k, m, n int) int {
	if max(k, m, n) < 48 {
		return k
	}
	const mr, nr, kPeel = 8, 4, 8
	kDiv, kSub := mr*4+nr*4, mr*nr*4
	maxKc := max((eigenL1-kSub)/kDiv&^(kPeel-1), 1)
	if k <= maxKc {
		return k
	}
	if k%maxKc == 0 {
		return maxKc
	}
	return maxKc - kPeel*((maxKc-1-k%maxKc)/(kPeel*(k/maxKc+1)))
}

// gemmF32Ordered reports whether the GemmF32 kernel in use sums in
// GemmF32Tile's order (all but the NEON ones, which fuse and start at
// the bias; they get the whole reduction in one call).
func gemmF32Ordered() bool {
	return gemmF32Impls.list[gemmF32Impls.cur].name != "neon"
}

// GemmF32Fuses reports whether GemmF32TileFused and GemmF32IndirectFused
// fuse multiply-adds at the level in use (AVX-512); elsewhere they give
// GemmF32Tile's results, which the NEON kernels fuse already.
func GemmF32Fuses() bool { return gemmF32FusedLevel() }

// gemmF32FusedLevel reports whether the GemmF32 kernel in use honours
// gemmFused (the AVX-512 one), computing every channel fused.
func gemmF32FusedLevel() bool {
	return gemmF32Impls.list[gemmF32Impls.cur].name == "avx512"
}

// gemvF32Eigen is GemmF32 in the order of Eigen's row-major matrix ×
// vector product: per sum four partial sums by index mod 4 up to the
// last multiple of 4, reduced as (s0+s2)+(s1+s3), then the rest in order,
// then the bias.
func gemvF32Eigen(dst []float32, ldd int, a []float32, lda int, packed, bias []float32, m, n, k int, lo, hi float32) {
	if m == 1 {
		for j0 := 0; j0 < n; j0 += GemmBlock {
			nc := min(GemmBlock, n-j0)
			gemvRow16(dst[j0:j0+nc], a[:k], packed[j0*k:(j0+GemmBlock)*k], bias[j0:j0+nc], nc, k, lo, hi)
		}
		return
	}
	// n == 1: one channel, its weights at packed[16i].
	gemvCol(dst, ldd, a, lda, packed, bias[0], m, k, lo, hi)
}

// Function slot and registry entry of gemvCol.
var (
	gemvCol      func(dst []float32, ldd int, a []float32, lda int, w []float32, bias float32, m, k int, lo, hi float32)
	gemvColImpls = newImpls("gemvCol", &gemvCol, gemvColGeneric)
)

// gemvColGeneric is gemvF32Eigen for one channel: for rows p < m,
// dst[p·ldd] = clamp(S + bias) with S the four sums by i mod 4 from 0 of
// a[p·lda+i]·w[16i] over the first multiple of 4 of k (k ≥ 1), combined
// as (s0+s2)+(s1+s3), then the rest in order. w is the packed block
// (the channel's weights 16 apart), read in place.
func gemvColGeneric(dst []float32, ldd int, a []float32, lda int, w []float32, bias float32, m, k int, lo, hi float32) {
	k4 := k &^ 3
	for p := 0; p < m; p++ {
		row := a[p*lda : p*lda+k]
		var c [4]float32
		for i := 0; i < k4; i += 4 {
			for l := range 4 {
				c[l] += float32(row[i+l] * w[GemmBlock*(i+l)])
			}
		}
		s := (c[0] + c[2]) + (c[1] + c[3])
		for i := k4; i < k; i++ {
			s += float32(row[i] * w[GemmBlock*i])
		}
		dst[p*ldd] = clampF32(s+bias, lo, hi)
	}
}

// Function slot and registry entry of gemvRow16.
var (
	gemvRow16      func(dst, a, w, bias []float32, nc, k int, lo, hi float32)
	gemvRow16Impls = newImpls("gemvRow16", &gemvRow16, gemvRow16Generic)
)

// gemvRow16Generic is gemvF32Eigen for one row a (k values, k ≥ 1)
// against one packed block w of 16 channels (weight i of channel c at
// w[16i+c]), storing channels c < nc (nc ≤ 16) to dst[c] with bias[c]:
// per channel four sums by i mod 4 from 0 over the first multiple of 4
// of k, combined as (s0+s2)+(s1+s3), then the rest in order, then the
// bias and the clamp. Working across the block's channels reads the
// packed weights in place, without gathering a channel's column.
func gemvRow16Generic(dst, a, w, bias []float32, nc, k int, lo, hi float32) {
	var s [4][GemmBlock]float32
	k4 := k &^ 3
	a = a[:k]
	w = w[:GemmBlock*k]
	for i := 0; i < k4; i += 4 {
		for l := range 4 {
			x := a[i+l]
			row := w[GemmBlock*(i+l) : GemmBlock*(i+l+1)]
			acc := &s[l]
			for c := range GemmBlock {
				acc[c] += float32(x * row[c])
			}
		}
	}
	var r [GemmBlock]float32
	for c := range GemmBlock {
		r[c] = (s[0][c] + s[2][c]) + (s[1][c] + s[3][c])
	}
	for i := k4; i < k; i++ {
		x := a[i]
		row := w[GemmBlock*i : GemmBlock*(i+1)]
		for c := range GemmBlock {
			r[c] += float32(x * row[c])
		}
	}
	for c := range nc {
		dst[c] = clampF32(r[c]+bias[c], lo, hi)
	}
}

// Flags of eigenTail: whether the 4-channel packet and the n%4
// remainder channels are computed, whether the block adds to the sums
// already in dst, and whether it is the last (bias and clamp follow).
const (
	tailPacket = 1 << iota
	tailRem
	tailAcc
	tailFinal
)

// Function slot and registry entry of eigenTail.
var (
	eigenTail      func(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, kb, rem, flags int, lo, hi float32)
	eigenTailImpls = newImpls("eigenTail", &eigenTail, eigenTailGeneric)
)

// eigenTailGeneric is one reduction block (kb ≥ 1 indices) of
// gemmF32EigenTail for rows p < m: a[p·lda+i] against the weights
// w[16i+c] of the tail channels (the packed block's columns from the
// first tail channel on), results in dst[p·ldd+c] with bias[c]. With
// tailPacket, channels c < 4 are the 4-channel packet (even and odd sums
// over the block's first multiple of 8, added, then the rest in order;
// the block sum is added to 0 or, with tailAcc, to dst). With tailRem the
// rem (1..3) channels after the packet (or from c = 0 without it) take
// four sums by i mod 4 over the first multiple of 4, combined as
// (s0+s1)+(s2+s3), then the rest in order; with tailAcc dst is added
// before them. With tailFinal the bias is added and the clamp applied.
func eigenTailGeneric(dst []float32, ldd int, a []float32, lda int, w, bias []float32, m, kb, rem, flags int, lo, hi float32) {
	peel, end4 := kb&^7, kb&^3
	r0 := 0
	if flags&tailPacket != 0 {
		r0 = 4
	}
	for p := 0; p < m; p++ {
		row := a[p*lda : p*lda+kb]
		out := dst[p*ldd:]
		if flags&tailPacket != 0 {
			for c := range 4 {
				var e, o float32
				for i := 0; i < peel; i += 2 {
					e += float32(row[i] * w[GemmBlock*i+c])
					o += float32(row[i+1] * w[GemmBlock*(i+1)+c])
				}
				s := e + o
				for i := peel; i < kb; i++ {
					s += float32(row[i] * w[GemmBlock*i+c])
				}
				var res float32
				if flags&tailAcc != 0 {
					res = out[c]
				}
				res += s
				if flags&tailFinal != 0 {
					res = clampF32(res+bias[c], lo, hi)
				}
				out[c] = res
			}
		}
		if flags&tailRem == 0 {
			continue
		}
		for c := r0; c < r0+rem; c++ {
			var l [4]float32
			for i := 0; i < end4; i += 4 {
				for q := range 4 {
					l[q] += float32(row[i+q] * w[GemmBlock*(i+q)+c])
				}
			}
			s := (l[0] + l[1]) + (l[2] + l[3])
			for i := end4; i < kb; i++ {
				s += float32(row[i] * w[GemmBlock*i+c])
			}
			if flags&tailAcc != 0 {
				s = out[c] + s
			}
			if flags&tailFinal != 0 {
				s = clampF32(s+bias[c], lo, hi)
			}
			out[c] = s
		}
	}
}

// gemmF32EigenTail recomputes, for the first m rows (all in groups of 4
// pixels of the whole product), the channels from n rounded down to 8 on
// in the order of Eigen's remainder paths: a 4-channel packet (when n%8
// ≥ 4) with two sums, even and odd indices, over each block's first
// multiple of 8, then the block's rest; the last n%4 channels with four
// sums by index mod 4 over the block's first multiple of 4, combined as
// (s0+s1)+(s2+s3), then the rest. Blocks of kc are added in order, then
// the bias. The tail channels lie in one packed block (n8 is a multiple
// of 8), so eigenTail reads their weights in place.
func gemmF32EigenTail(dst []float32, ldd int, a []float32, lda int, packed, bias []float32, m, n, k, kc int, lo, hi float32) {
	n8 := n &^ 7
	flags := 0
	if n%8 >= 4 {
		flags |= tailPacket
	}
	if n%4 != 0 {
		flags |= tailRem
	}
	if flags == 0 {
		return
	}
	base := n8/GemmBlock*GemmBlock*k + n8%GemmBlock
	for k0 := 0; k0 < k; k0 += kc {
		kb := min(kc, k-k0)
		f := flags
		if k0 > 0 {
			f |= tailAcc
		}
		if k0+kb == k {
			f |= tailFinal
		}
		eigenTail(dst[n8:], ldd, a[k0:], lda, packed[base+GemmBlock*k0:], bias[n8:], m, kb, n%4, f, lo, hi)
	}
}
