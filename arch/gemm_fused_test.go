package arch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// tileFused calls GemmF32TileFused on a whole product (p0 = 0, total = m).
func tileFused(dst []float32, ldd int, a []float32, lda int, packed, bias []float32, m, n, k int, lo, hi float32) {
	GemmF32TileFused(dst, ldd, a, lda, packed, bias, m, n, k, lo, hi, 0, m)
}

// TestGemmF32TileFused checks GemmF32TileFused at every level against
// the float64 reference, within the bound of the fused (NEON) kernels
// (subnormals flushed on 32-bit ARM, as the level's name tells),
// on the twin tests' shapes, and that at a level with fused kernels it
// does fuse: some sum differs from GemmF32Tile's (a flag the kernels
// ignored would leave every bit equal).
func TestGemmF32TileFused(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(171, 172))
		differs := false
		for i, c := range gemmCases(r) {
			kind := f32Kind(i % int(numKinds))
			a, w, bias := gemmInputF32(t, r, c, kind, i%2 == 0)
			packed := packF32(t, w, c.n, c.k, i%2 == 0)
			lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
			if i%3 == 1 {
				lo, hi = -0.25, 0.5
			}
			ref := gemmRefF32(c, a, w, bias, lo, hi)
			checkGemmF32Ref(t, fmt.Sprint(Current()), tileFused, c, a, packed, bias, lo, hi, ref)
			if c.m == 0 || kind != kindUniform {
				continue
			}
			got, want := make([]float32, c.m*c.ldd), make([]float32, c.m*c.ldd)
			tileFused(got, c.ldd, a, c.lda, packed, bias, c.m, c.n, c.k, lo, hi)
			GemmF32(want, c.ldd, a, c.lda, packed, bias, c.m, c.n, c.k, lo, hi)
			for j := range got {
				differs = differs || got[j] != want[j]
			}
		}
		if fused := gemmF32FusedLevel(); fused != differs {
			t.Errorf("level %s: fused kernels %v, but results differ from GemmF32Tile's: %v", Current(), fused, differs)
		}
	})
}

// TestGemmF32IndirectFused checks that GemmF32IndirectFused gives
// GemmF32TileFused's bits of the gathered rows, at every level, on
// tiles inside longer products and reductions of two blocks.
func TestGemmF32IndirectFused(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(193, 194))
		for trial := range 80 {
			m, n := 1+r.IntN(40), []int{16, 24, 32, 48, 64, 8, 20, 1, 33}[trial%9]
			nRuns, runLen := 1+r.IntN(5), 1+r.IntN(60)
			if trial%7 == 0 {
				nRuns, runLen = 3, 400
			}
			x, rows, runs := randomRuns(r, m, nRuns, runLen)
			k := nRuns * runLen
			genF32(r, x, kindUniform)
			w, bias := make([]float32, n*k), make([]float32, n)
			genF32(r, w, kindUniform)
			genF32(r, bias, kindUniform)
			packed := make([]float32, PackedGemmF32Len(n, k))
			PackGemmF32(packed, w, n, k)
			p0 := r.IntN(10)
			total := p0 + m + r.IntN(10)
			a := make([]float32, m*k)
			gatherRows(a, x, rows, runs, runLen)
			want, got := make([]float32, m*n), make([]float32, m*n)
			GemmF32TileFused(want, n, a, k, packed, bias, m, n, k, 0, 6, p0, total)
			GemmF32IndirectFused(got, n, x, rows, runs, runLen, packed, bias, m, n, 0, 6, p0, total, make([]float32, m*k))
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s m=%d n=%d runs=%v×%d p0=%d total=%d: dst[%d] = %v, GemmF32TileFused %v", Current(), m, n, runs, runLen, p0, total, i, got[i], want[i])
				}
			}
		}
	})
}
