//go:build !purego && (arm64 || arm.7)

package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSubI32NEON checks the zero-point subtraction of the NEON
// requantising GEMMs against scalar int32 arithmetic for every length
// 0..257, at every start offset within a vector, with guard bands on both
// sides and values that wrap (math.MinInt32 minus a positive c).
func TestSubI32NEON(t *testing.T) {
	if Best() < NEON {
		// 32-bit ARM without NEON (qemu-arm -cpu cortex-r5f): the routine
		// would fault, and nothing calls it there.
		t.Skipf("the CPU runs at %v, below neon", Best())
	}
	r := rand.New(rand.NewPCG(16, 32))
	for n := 0; n <= 257; n++ {
		off := n % 4
		buf := make([]int32, n+off+2*guard)
		for i := range buf {
			buf[i] = sentinelI32
		}
		v := buf[guard+off : guard+off+n]
		for i := range v {
			v[i] = []int32{int32(r.Uint32()), math.MinInt32, math.MaxInt32, 0, -1}[r.IntN(5)]
		}
		want := append([]int32(nil), v...)
		c := []int32{int32(r.Uint32()), 1, -1, math.MinInt32, 0}[n%5]
		for i := range want {
			want[i] -= c
		}
		if n > 0 {
			subI32NEON(&v[0], n, c)
		} else {
			subI32NEON(&buf[guard], 0, c)
		}
		for i, x := range buf {
			in := i - guard - off
			if in < 0 || in >= n {
				if x != sentinelI32 {
					t.Fatalf("n=%d c=%d: element %d outside the sums written (%d)", n, c, in, x)
				}
				continue
			}
			if x != want[in] {
				t.Fatalf("n=%d c=%d: p[%d] = %d, want %d", n, c, in, x, want[in])
			}
		}
	}
}
