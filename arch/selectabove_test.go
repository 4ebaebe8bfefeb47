package arch

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Tests of SelectAboveF32: every usable implementation gives the
// portable result (indices, count and resume point) for lengths 0..300,
// both comparisons, destinations of every size from 1 to past the number
// of hits (so that the scan stops at every possible place), thresholds
// equal to values in x, ±0, ±Inf and NaN (never selected), and x ending
// right before an inaccessible page.

func checkSelect(t *testing.T, name string, f func(dst []int32, x []float32, th float32, orEqual bool) (int, int), x []float32, th float32, orEqual bool, size int) {
	t.Helper()
	want := make([]int32, size)
	wn, wnext := selectAboveF32Generic(want, x, th, orEqual)
	got := make([]int32, size+2)
	got[size], got[size+1] = -7, -7
	n, next := f(got[:size], x, th, orEqual)
	if n != wn || next != wnext || !slices.Equal(got[:n], want[:wn]) || got[size] != -7 || got[size+1] != -7 {
		t.Fatalf("%s len %d th %v orEqual %v cap %d: got n=%d next=%d %v, want n=%d next=%d %v",
			name, len(x), th, orEqual, size, n, next, got[:n], wn, wnext, want[:wn])
	}
}

func TestTwinSelectAboveF32(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-45, 0.5}
	for _, im := range implsOf(selectAboveF32Impls) {
		tail := tailF32(t, 300)
		for n := 0; n <= 300; n++ {
			x := tail[len(tail)-n:]
			for i := range x {
				if r.IntN(5) == 0 {
					x[i] = specials[r.IntN(len(specials))]
				} else {
					x[i] = float32(r.IntN(9)-4) / 4
				}
			}
			th := float32(r.IntN(9)-4) / 4
			if n > 0 && r.IntN(3) == 0 {
				th = x[r.IntN(n)]
			}
			for _, orEqual := range []bool{false, true} {
				hits, _ := selectAboveF32Generic(make([]int32, n+1), x, th, orEqual)
				sizes := []int{1, 2, hits, hits + 1, n + 1}
				if hits > 2 {
					sizes = append(sizes, r.IntN(hits)+1)
				}
				for _, size := range sizes {
					if size >= 1 {
						checkSelect(t, im.name, im.fn, x, th, orEqual, size)
					}
				}
			}
		}
		for _, th := range specials {
			x := append([]float32(nil), specials...)
			x = append(x, specials...)
			x = append(x, specials...)
			for _, orEqual := range []bool{false, true} {
				checkSelect(t, im.name, im.fn, x, th, orEqual, len(x))
			}
		}
	}
	forEachLevel(t, func(t *testing.T) {
		x := []float32{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4}
		checkSelect(t, "SelectAboveF32", SelectAboveF32, x, 5, true, 6)
		if n, next := SelectAboveF32(nil, x, 0, false); n != 0 || next != 0 {
			t.Fatalf("empty dst: n=%d next=%d", n, next)
		}
	})
}

// FuzzSelectAboveF32 compares every implementation with the portable one.
//
//	go test ./arch -run='^$' -fuzz=FuzzSelectAboveF32 -fuzztime=1m
func FuzzSelectAboveF32(f *testing.F) {
	f.Add(uint8(3), true, seedF32(0.5), seedF32(1, 0.5, float32(math.NaN()), -1, 2, 0.5, 0.7))
	f.Add(uint8(0), false, seedF32(float32(math.Inf(-1))), seedF32(float32(math.Inf(-1)), 0, 1e-40))
	f.Fuzz(func(t *testing.T, sizeB uint8, orEqual bool, thB, data []byte) {
		if len(thB) < 4 {
			return
		}
		th := bytesToF32(thB)[0]
		x := bytesToF32(data)
		for _, im := range implsOf(selectAboveF32Impls) {
			checkSelect(t, im.name, im.fn, x, th, orEqual, 1+int(sizeB))
		}
	})
}
