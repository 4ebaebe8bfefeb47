package arch

import "sync"

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

// packedCol returns channel j's weights in the packed matrix of depth k:
// weight i is at col[16·i].
func packedCol(packed []float32, j, k int) []float32 {
	base := j/GemmBlock*GemmBlock*k + j%GemmBlock
	return packed[base : base+GemmBlock*(k-1)+1]
}

// Function slot and registry entry of laneSums4.
var (
	laneSums4      func(out, a []float32, lda int, w []float32, m, k4 int)
	laneSums4Impls = newImpls("laneSums4", &laneSums4, laneSums4Generic)
)

// laneSums4Generic adds to out[4p+l], for rows p < m and lanes l < 4,
// Σ_t a[p·lda + 4t + l]·w[4t + l] over t < k4/4 (k4 a multiple of 4) in
// order of t, products rounded before the addition: the four lanes of an
// SSE dot product, as Eigen's matrix × vector product and its 1-row
// remainder of the GEMM accumulate them.
func laneSums4Generic(out, a []float32, lda int, w []float32, m, k4 int) {
	for p := 0; p < m; p++ {
		row := a[p*lda : p*lda+k4]
		s := out[4*p : 4*p+4]
		c0, c1, c2, c3 := s[0], s[1], s[2], s[3]
		for i := 0; i < k4; i += 4 {
			x, y := row[i:i+4], w[i:i+4]
			c0 += float32(x[0] * y[0])
			c1 += float32(x[1] * y[1])
			c2 += float32(x[2] * y[2])
			c3 += float32(x[3] * y[3])
		}
		s[0], s[1], s[2], s[3] = c0, c1, c2, c3
	}
}

// laneChunk is the number of reduction indices (a multiple of 4) and
// laneRows the number of rows laneBuf.rowSums handles at a time.
const (
	laneChunk = 512
	laneRows  = 64
)

// laneBuf holds the scratch of laneBuf.rowSums: a chunk of one channel's
// weights made contiguous, and the lane sums of a group of rows. They
// come from a pool, as slices handed to a kernel through its slot would
// make stack arrays escape.
type laneBuf struct {
	w    [laneChunk]float32
	sums [4 * laneRows]float32
}

var laneBufs = sync.Pool{New: func() any { return new(laneBuf) }}

// rowSums returns the lane sums (laneSums4) of rows [p0, p0+r) of a
// (r ≤ laneRows), indices [k0, k0+k4) against channel j's packed
// weights (depth k): element 4q+l for row p0+q, lane l.
func (b *laneBuf) rowSums(a []float32, lda int, packed []float32, j, k, k0, k4, p0, r int) []float32 {
	col := packedCol(packed, j, k)
	sums := b.sums[:4*r]
	clear(sums)
	for c0 := 0; c0 < k4; c0 += laneChunk {
		cn := min(laneChunk, k4-c0)
		for i := range cn {
			b.w[i] = col[GemmBlock*(k0+c0+i)]
		}
		laneSums4(sums, a[p0*lda+k0+c0:], lda, b.w[:cn], r, cn)
	}
	return sums
}

// gemvF32Eigen is GemmF32 in the order of Eigen's row-major matrix ×
// vector product: per sum four partial sums by index mod 4 up to the
// last multiple of 4, reduced as (s0+s2)+(s1+s3), then the rest in order,
// then the bias.
func gemvF32Eigen(dst []float32, ldd int, a []float32, lda int, packed, bias []float32, m, n, k int, lo, hi float32) {
	b := laneBufs.Get().(*laneBuf)
	defer laneBufs.Put(b)
	k4 := k &^ 3
	for j := 0; j < n; j++ {
		col := packedCol(packed, j, k)
		for p0 := 0; p0 < m; p0 += laneRows {
			sums := b.rowSums(a, lda, packed, j, k, 0, k4, p0, min(laneRows, m-p0))
			for q := 0; q < len(sums)/4; q++ {
				c := sums[4*q : 4*q+4]
				s := (c[0] + c[2]) + (c[1] + c[3])
				row := a[(p0+q)*lda : (p0+q)*lda+k]
				for i := k4; i < k; i++ {
					s += float32(row[i] * col[GemmBlock*i])
				}
				dst[(p0+q)*ldd+j] = clampF32(s+bias[j], lo, hi)
			}
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
	for j := n8; j < n4; j++ {
		col := packedCol(packed, j, k)
		for p := 0; p < m; p++ {
			row := a[p*lda : p*lda+k]
			var res float32
			for k0 := 0; k0 < k; k0 += kc {
				k1 := min(k0+kc, k)
				peel := k0 + (k1-k0)&^7
				var c, d float32
				for i := k0; i < peel; i += 2 {
					c += float32(row[i] * col[GemmBlock*i])
					d += float32(row[i+1] * col[GemmBlock*(i+1)])
				}
				s := c + d
				for i := peel; i < k1; i++ {
					s += float32(row[i] * col[GemmBlock*i])
				}
				res += s
			}
			dst[p*ldd+j] = clampF32(res+bias[j], lo, hi)
		}
	}
	if n4 == n {
		return
	}
	b := laneBufs.Get().(*laneBuf)
	defer laneBufs.Put(b)
	for j := n4; j < n; j++ {
		col := packedCol(packed, j, k)
		for k0 := 0; k0 < k; k0 += kc {
			k1 := min(k0+kc, k)
			end4 := k0 + (k1-k0)&^3
			for p0 := 0; p0 < m; p0 += laneRows {
				sums := b.rowSums(a, lda, packed, j, k, k0, end4-k0, p0, min(laneRows, m-p0))
				for q := 0; q < len(sums)/4; q++ {
					c := sums[4*q : 4*q+4]
					s := (c[0] + c[1]) + (c[2] + c[3])
					row := a[(p0+q)*lda : (p0+q)*lda+k]
					for i := end4; i < k1; i++ {
						s += float32(row[i] * col[GemmBlock*i])
					}
					o := &dst[(p0+q)*ldd+j]
					if k0 > 0 {
						s = *o + s
					}
					if k1 == k {
						s = clampF32(s+bias[j], lo, hi)
					}
					*o = s
				}
			}
		}
	}
}
