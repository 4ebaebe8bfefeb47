package arch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomRuns returns row offsets and runs over a source of xLen values:
// a convolution-like window (fh runs of runLen, rowStride apart) at
// random offsets, overlapping as neighbouring pixels' windows do.
func randomRuns(r *rand.Rand, m, nRuns, runLen int) (x []float32, rows, runs []int) {
	rowStride := runLen + r.IntN(5)
	runs = make([]int, nRuns)
	for i := range runs {
		runs[i] = i * rowStride
		if r.IntN(4) == 0 && i > 0 { // any order, any gaps
			runs[i] = r.IntN(nRuns * rowStride)
		}
	}
	span := 0
	for _, o := range runs {
		span = max(span, o+runLen)
	}
	xLen := span + 3*m + r.IntN(20)
	rows = make([]int, m)
	for p := range rows {
		rows[p] = r.IntN(xLen - span + 1)
	}
	return make([]float32, xLen), rows, runs
}

// TestTwinGemmF32Seg checks the indirect kernels against the portable
// one bit for bit: random rows, runs, reduction blocks of longer packed
// weights, flags, channel tails, specials and clamps.
func TestTwinGemmF32Seg(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for trial := range 300 {
		m, n := 1+r.IntN(20), 1+r.IntN(70)
		if trial%5 == 0 {
			m = 1 + r.IntN(600) // more than one row table
		}
		nRuns, runLen := 1+r.IntN(6), 1+r.IntN(40)
		x, rows, runs := randomRuns(r, m, nRuns, runLen)
		k := nRuns * runLen
		extra := r.IntN(3) * r.IntN(20) // packed weights longer than the block
		wk := k + extra
		k0 := r.IntN(extra + 1)
		kind := f32Kind(trial % int(numKinds))
		genF32(r, x, kind)
		w, bias := make([]float32, n*wk), make([]float32, n)
		genF32(r, w, kind)
		genF32(r, bias, kindUniform)
		packed := make([]float32, PackedGemmF32Len(n, wk))
		PackGemmF32(packed, w, n, wk)
		ldd := n + r.IntN(3)
		init := make([]float32, m*ldd)
		genF32(r, init, kindUniform)
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		if trial%3 == 1 {
			lo, hi = -0.5, 0.25
		}
		flags := trial % 4
		// A reduction block [kb0, kb0+kb) of the rows, at k0 of the weights.
		kb0 := r.IntN(k)
		kb := 1 + r.IntN(k-kb0)
		if trial%3 == 0 {
			kb0, kb = 0, k
		}
		want := append([]float32(nil), init...)
		gemmF32SegGeneric(want, ldd, x, rows, runs, runLen, kb0, kb, packed[k0*GemmBlock:], bias, m, n, wk, lo, hi, flags)
		for _, im := range implsOf(gemmF32SegImpls) {
			got := append([]float32(nil), init...)
			im.fn(got, ldd, x, rows, runs, runLen, kb0, kb, packed[k0*GemmBlock:], bias, m, n, wk, lo, hi, flags)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%s m=%d n=%d runs=%v×%d [%d, +%d) of %d at %d, flags %d: dst[%d] = %v, portable %v", im.name, m, n, runs, runLen, kb0, kb, wk, k0, flags, i, got[i], want[i])
				}
			}
		}
	}
}

// TestGemmF32Indirect checks that GemmF32Indirect equals GemmF32Tile on
// the gathered rows bit for bit, at every level's kernels, with Eigen's
// reduction blocks (k above kc), channel counts on and off the
// indirect kernel's shapes, tiles of a larger product and a clamp.
func TestGemmF32Indirect(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	for trial := range 120 {
		m, n := 1+r.IntN(40), []int{16, 24, 32, 48, 64, 8, 20, 1, 33}[trial%9]
		nRuns, runLen := 1+r.IntN(5), 1+r.IntN(60)
		if trial%7 == 0 {
			nRuns, runLen = 3, 400 // k = 1200: two reduction blocks
		}
		x, rows, runs := randomRuns(r, m, nRuns, runLen)
		k := nRuns * runLen
		kind := f32Kind(trial % int(numKinds))
		genF32(r, x, kind)
		w, bias := make([]float32, n*k), make([]float32, n)
		genF32(r, w, kind)
		genF32(r, bias, kindUniform)
		packed := make([]float32, PackedGemmF32Len(n, k))
		PackGemmF32(packed, w, n, k)
		lo, hi := float32(math.Inf(-1)), float32(math.Inf(1))
		if trial%2 == 1 {
			lo, hi = 0, 6
		}
		p0 := r.IntN(10)
		total := p0 + m + r.IntN(10)
		if trial%11 == 0 {
			p0, total = 0, m
		}
		a := make([]float32, m*k)
		gatherRows(a, x, rows, runs, runLen)
		ldd := n + r.IntN(2)
		want := make([]float32, m*ldd)
		GemmF32Tile(want, ldd, a, k, packed, bias, m, n, k, lo, hi, p0, total)
		got := make([]float32, m*ldd)
		GemmF32Indirect(got, ldd, x, rows, runs, runLen, packed, bias, m, n, lo, hi, p0, total, make([]float32, m*k))
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
				t.Fatalf("m=%d n=%d runs=%v×%d p0=%d total=%d: dst[%d] = %v, GemmF32Tile %v", m, n, runs, runLen, p0, total, i, got[i], want[i])
			}
		}
	}
}

// TestGemmF32IndirectBounds checks that a row reaching past the source
// panics instead of reading outside it.
func TestGemmF32IndirectBounds(t *testing.T) {
	x := make([]float32, 100)
	packed := make([]float32, PackedGemmF32Len(16, 20))
	bias := make([]float32, 16)
	for _, rows := range [][]int{{0, 81}, {-1, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("rows %v: no panic", rows)
				}
			}()
			GemmF32Indirect(make([]float32, 32), 16, x, rows, []int{0, 10}, 10, packed, bias, 2, 16, 0, 1, 0, 2, make([]float32, 40))
		}()
	}
}
