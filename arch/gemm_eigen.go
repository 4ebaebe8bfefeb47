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

// packedF32 is weight (j, i) of the packed matrix of depth k.
func packedF32(packed []float32, j, i, k int) float32 {
	return packed[j/GemmBlock*GemmBlock*k+i*GemmBlock+j%GemmBlock]
}

// gemvF32Eigen is GemmF32 in the order of Eigen's row-major matrix ×
// vector product: per sum four partial sums by index mod 4 up to the
// last multiple of 4, reduced as (s0+s2)+(s1+s3), then the rest in order,
// then the bias.
func gemvF32Eigen(dst []float32, ldd int, a []float32, lda int, packed, bias []float32, m, n, k int, lo, hi float32) {
	k4 := k &^ 3
	for p := 0; p < m; p++ {
		row := a[p*lda : p*lda+k]
		for j := 0; j < n; j++ {
			var c [4]float32
			for i := 0; i < k4; i += 4 {
				for l := range c {
					c[l] += float32(row[i+l] * packedF32(packed, j, i+l, k))
				}
			}
			s := (c[0] + c[2]) + (c[1] + c[3])
			for i := k4; i < k; i++ {
				s += float32(row[i] * packedF32(packed, j, i, k))
			}
			dst[p*ldd+j] = clampF32(s+bias[j], lo, hi)
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
// the bias.
func gemmF32EigenTail(dst []float32, ldd int, a []float32, lda int, packed, bias []float32, m, n, k, kc int, lo, hi float32) {
	n8, n4 := n&^7, n&^3
	for p := 0; p < m; p++ {
		row := a[p*lda : p*lda+k]
		for j := n8; j < n; j++ {
			var res float32
			for k0 := 0; k0 < k; k0 += kc {
				k1 := min(k0+kc, k)
				var s float32
				if j < n4 {
					peel := k0 + (k1-k0)&^7
					var c, d float32
					for i := k0; i < peel; i += 2 {
						c += float32(row[i] * packedF32(packed, j, i, k))
						d += float32(row[i+1] * packedF32(packed, j, i+1, k))
					}
					s = c + d
					for i := peel; i < k1; i++ {
						s += float32(row[i] * packedF32(packed, j, i, k))
					}
				} else {
					end4 := k0 + (k1-k0)&^3
					var c [4]float32
					for i := k0; i < end4; i += 4 {
						for l := range c {
							c[l] += float32(row[i+l] * packedF32(packed, j, i+l, k))
						}
					}
					s = (c[0] + c[1]) + (c[2] + c[3])
					for i := end4; i < k1; i++ {
						s += float32(row[i] * packedF32(packed, j, i, k))
					}
				}
				res += s
			}
			dst[p*ldd+j] = clampF32(res+bias[j], lo, hi)
		}
	}
}
