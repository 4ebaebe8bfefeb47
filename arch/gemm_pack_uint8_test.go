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

// TestPackGemmInt8Layout checks PackGemmInt8 against its documented
// layout, element by element: weight (j, i) at block j/16, byte
// 64·(i/4) + 4·(j%16) + i%4, stored XOR 0x80, padding 0x80; sizes with
// and without whole blocks and groups.
func TestPackGemmInt8Layout(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for _, n := range []int{1, 3, 16, 17, 40} {
		for _, k := range []int{1, 3, 4, 5, 8, 31, 32, 33} {
			w := make([]int8, n*k)
			for i := range w {
				w[i] = int8(r.Uint32())
			}
			got := make([]int8, PackedGemmInt8Len(n, k))
			PackGemmInt8(got, w, n, k)
			want := make([]int8, len(got))
			for i := range want {
				want[i] = -128
			}
			blkLen := 64 * ((k + 3) / 4)
			for j := 0; j < n; j++ {
				for i := 0; i < k; i++ {
					want[j/GemmBlock*blkLen+64*(i/4)+4*(j%GemmBlock)+i%4] = w[j*k+i] ^ -128
				}
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("n=%d k=%d: packed byte %d is %d, want %d", n, k, i, got[i], want[i])
				}
			}
		}
	}
}
