package builtin

import (
	"math/rand/v2"
	"testing"
)

// TestCopyRuns checks copyRuns' size classes (fixed moves up to 64 bytes,
// 32-byte steps up to 256, memmove above) against element-wise copies for
// every segment length up to 600 bytes, int8 and float32, with nothing
// written between or after the segments.
func TestCopyRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2))
	checkCopyRuns[int8](t, r, func(r *rand.Rand) int8 { return int8(r.Uint32()) }, 1)
	checkCopyRuns[float32](t, r, func(r *rand.Rand) float32 { return r.Float32() }, 4)
}

func checkCopyRuns[T comparable](t *testing.T, r *rand.Rand, gen func(*rand.Rand) T, size int) {
	t.Helper()
	for seg := 1; seg*size <= 600; seg++ {
		for _, run := range []int{1, 2, 5} {
			dstStride, srcStride := seg+r.IntN(5), seg+r.IntN(7)
			src := make([]T, (run-1)*srcStride+seg)
			for i := range src {
				src[i] = gen(r)
			}
			sentinel := gen(r)
			dst := make([]T, (run-1)*dstStride+seg+8)
			for i := range dst {
				dst[i] = sentinel
			}
			copyRuns(dst, dstStride, src, srcStride, seg, run)
			for i, v := range dst {
				p, o := i/dstStride, i%dstStride
				want := sentinel
				if p < run && o < seg {
					want = src[p*srcStride+o]
				}
				if v != want {
					t.Fatalf("seg %d run %d strides %d/%d: dst[%d] = %v, want %v", seg, run, dstStride, srcStride, i, v, want)
				}
			}
		}
	}
}
