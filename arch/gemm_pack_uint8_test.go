package arch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPackGemmUint8 checks that packing a uint8 matrix equals
// PackGemmInt8 of its re-centred copy, on random and edge sizes.
func TestPackGemmUint8(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][2]int{{1, 1}, {1, 5}, {15, 3}, {16, 4}, {17, 9}, {33, 27}, {64, 1}, {0, 3}, {3, 0}} {
		n, k := sz[0], sz[1]
		u := make([]uint8, n*k)
		for i := range u {
			u[i] = uint8(rng.IntN(256))
		}
		if len(u) > 1 {
			u[0], u[len(u)-1] = 0, 255
		}
		w := make([]int8, n*k)
		for i, v := range u {
			w[i] = int8(int(v) - 128)
		}
		size := PackedGemmInt8Len(n, k)
		want, got := make([]int8, size), make([]int8, size)
		PackGemmInt8(want, w, n, k)
		PackGemmUint8(got, u, n, k)
		if !slices.Equal(got, want) {
			t.Errorf("n=%d k=%d: PackGemmUint8 differs from PackGemmInt8 of the re-centred matrix", n, k)
		}
	}
}
