package arch

import (
	"math"
	"testing"
)

// TestGemmInt8RequantizeEdges runs every GemmInt8Requantize level on sums
// at the ends of the int32 range (seeds MinInt32, MaxInt32, ±2^30, ±1, 0
// plus a few products) with extreme multipliers and every shift from -31
// to 31, both tie rules and the clamp classes of the epilogues, against
// mbqmTie: the one-rounding form of ties upward (upRows), the
// two-rounding one and the byte clamps at their limits.
func TestGemmInt8RequantizeEdges(t *testing.T) {
	seeds := []int32{math.MinInt32, math.MaxInt32, 1 << 30, -1 << 30, 1, -1, 0, math.MinInt32 + 1, math.MaxInt32 - 1, 12345, -54321}
	mults := []int32{math.MaxInt32, 1 << 30, 1, 1<<30 + 1, 1<<31 - 2}
	ims := implsOf(gemmInt8RqImpls)
	for _, tie := range []int32{tieAway, tieUp} {
		// n ≤ 16: one block (8 lanes ≤ 8); 24: a tail block; 40, 48: a
		// 32-channel step, then a tail or a whole 16-channel block.
		for _, n := range []int{len(seeds), 24, 40, 48} {
			for _, k := range []int{1, 5} {
				m := 5 // one block of 8 rows, 3 of them aliases
				if k == 5 {
					m = 9 // a block of 8 rows and a 4-row kernel's one row
				}
				a := make([]int8, m*k)
				w := make([]int8, n*k)
				for i := range a {
					a[i] = int8([]int{0, 127, -128, 1, -1}[i%5])
				}
				for i := range w {
					w[i] = int8([]int{-128, 127, 0, 3}[i%4])
				}
				packed := make([]int8, PackedGemmInt8Len(n, k))
				PackGemmInt8(packed, w, n, k)
				seed := make([]int32, n)
				for j := range seed {
					seed[j] = seeds[j%len(seeds)]
				}
				for s := -31; s <= 31; s++ {
					mult, shift := make([]int32, n), make([]int, n)
					for j := range mult {
						mult[j], shift[j] = mults[(j+s+31)%len(mults)], s
						if j%5 == 4 { // mixed shifts in one block
							shift[j] = -s / 2
						}
					}
					q, err := newChannelRequant(mult, shift, tie)
					if err != nil {
						t.Fatal(err)
					}
					// Clamps: int8's and uint8's full ranges (saturating
					// narrowing), signed and unsigned sub-ranges (the byte
					// clamps), one value.
					for _, c := range [][2]int32{{-128, 127}, {0, 255}, {-100, 50}, {-128, -5}, {0, 127}, {3, 200}, {130, 254}, {7, 7}} {
						lo, hi := c[0], c[1]
						want := make([]byte, m*n)
						for p := 0; p < m; p++ {
							for j := 0; j < n; j++ {
								sum := seed[j]
								for i := 0; i < k; i++ {
									sum += int32(a[p*k+i]) * int32(w[j*k+i]) // wraps as the kernels do
								}
								want[p*n+j] = byte(max(lo, min(mbqmTie(sum, mult[j], shift[j], tie)+3, hi)))
							}
						}
						for _, im := range ims {
							dst := make([]byte, m*n)
							im.fn(dst, n, a, k, packed, seed, 0, q, m, n, k, 3, lo, hi)
							for i := range dst {
								if dst[i] != want[i] {
									j := i % n
									t.Fatalf("%s tie %d n %d k %d shift %d clamp [%d, %d]: dst[%d][%d] = %d, want %d (seed %d mult %d shift %d)",
										im.name, tie, n, k, s, lo, hi, i/n, j, dst[i], want[i], seed[j], mult[j], shift[j])
								}
							}
						}
					}
				}
			}
		}
	}
}
