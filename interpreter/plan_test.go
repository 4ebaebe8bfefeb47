package interpreter

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// planGreedyReference is the planner as it was before the time index: it
// compares each buffer with every one placed before it (quadratic). It
// assigns offsets to bufs so that two buffers whose lifetimes
// overlap never share bytes, and returns the arena size. It is the greedy
// "largest first, lowest gap that fits" plan of TFLite Micro's
// GreedyMemoryPlanner: buffers are taken by decreasing size (ties: earlier
// first use, then request order) and each goes into the lowest
// arenaAlign-aligned gap between the already placed buffers that are live
// at the same time. Zero-size buffers get offset 0 and take no space.
func planGreedyReference(bufs []planBuffer) (int, error) {
	order := make([]int, 0, len(bufs))
	for i := range bufs {
		bufs[i].offset = 0
		if bufs[i].size > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := bufs[order[a]], bufs[order[b]]
		if x.size != y.size {
			return x.size > y.size
		}
		return x.first < y.first
	})
	var placed []int // indices into bufs, in placement order
	var live []int   // scratch: placed buffers overlapping the current one
	total := 0
	for _, i := range order {
		b := &bufs[i]
		size, ok := alignUp(b.size)
		if !ok {
			return 0, fmt.Errorf("buffer of %d bytes is too large", b.size)
		}
		live = live[:0]
		for _, j := range placed {
			p := bufs[j]
			if p.first <= b.last && b.first <= p.last {
				live = append(live, j)
			}
		}
		sort.Slice(live, func(x, y int) bool { return bufs[live[x]].offset < bufs[live[y]].offset })
		offset := 0
		for _, j := range live {
			p := bufs[j]
			if p.offset >= offset+size {
				break // the gap before p fits
			}
			end, _ := alignUp(p.offset + p.size)
			if end > offset {
				offset = end
			}
		}
		b.offset = offset
		// The arena is allocated with arenaAlign bytes of slack
		// (alignedBytes), which must fit an int too (32-bit platforms).
		if offset > math.MaxInt-arenaAlign-size {
			return 0, fmt.Errorf("arena size overflows")
		}
		if offset+size > total {
			total = offset + size
		}
		placed = append(placed, i)
	}
	return total, nil
}

// randomBuffers draws n buffers over nOps operators: lifetimes of random
// length (some spanning the whole run, as graph inputs do), sizes from a
// small set (so that ties in size are common) or random, some zero.
func randomBuffers(r *rand.Rand, n, nOps int) []planBuffer {
	bufs := make([]planBuffer, n)
	sizes := []int{0, 1, 64, 100, 4096, 777}
	for i := range bufs {
		first := r.IntN(nOps+2) - 1
		last := first + r.IntN(4)
		if r.IntN(8) == 0 {
			last = first + r.IntN(nOps+2)
		}
		if r.IntN(10) == 0 {
			first, last = -1, nOps
		}
		last = min(last, nOps)
		size := sizes[r.IntN(len(sizes))]
		if r.IntN(3) == 0 {
			size = r.IntN(10000)
		}
		bufs[i] = planBuffer{size: size, first: first, last: last}
	}
	return bufs
}

// checkPlan fails unless no two buffers live at the same time share a
// byte, every offset is aligned and every buffer ends within total.
func checkPlan(t *testing.T, bufs []planBuffer, total int) {
	t.Helper()
	for i, b := range bufs {
		if b.size == 0 {
			continue
		}
		if b.offset%arenaAlign != 0 || b.offset < 0 || b.offset+b.size > total {
			t.Fatalf("buffer %d %+v outside the %d-byte arena or misaligned", i, b, total)
		}
		for j := i + 1; j < len(bufs); j++ {
			c := bufs[j]
			if c.size == 0 || c.last < b.first || b.last < c.first {
				continue
			}
			if b.offset < c.offset+c.size && c.offset < b.offset+b.size {
				t.Fatalf("buffers %d %+v and %d %+v live at once and overlap", i, b, j, c)
			}
		}
	}
}

// TestPlanGreedyMatchesReference: the indexed greedy gives exactly the
// offsets and arena size of the quadratic one it replaces.
func TestPlanGreedyMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 300; iter++ {
		n, nOps := 1+r.IntN(200), 1+r.IntN(60)
		bufs := randomBuffers(r, n, nOps)
		ref := slices.Clone(bufs)
		wantTotal, err := planGreedyReference(ref)
		if err != nil {
			t.Fatal(err)
		}
		total, err := planGreedy(bufs)
		if err != nil {
			t.Fatal(err)
		}
		if total != wantTotal {
			t.Fatalf("iteration %d: arena %d bytes, the reference plans %d", iter, total, wantTotal)
		}
		for i := range bufs {
			if bufs[i].size > 0 && bufs[i].offset != ref[i].offset {
				t.Fatalf("iteration %d: buffer %d at %d, the reference puts it at %d", iter, i, bufs[i].offset, ref[i].offset)
			}
		}
		checkPlan(t, bufs, total)
	}
}

// TestPlanSizeClassesValid: the fallback plan never lets two live
// buffers share bytes, and stays within a small factor of the greedy plan
// on random graphs.
func TestPlanSizeClassesValid(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 300; iter++ {
		bufs := randomBuffers(r, 1+r.IntN(200), 1+r.IntN(60))
		total, err := planSizeClasses(bufs)
		if err != nil {
			t.Fatal(err)
		}
		checkPlan(t, bufs, total)
		greedy, _ := planGreedy(slices.Clone(bufs))
		if total > 4*greedy+4096 {
			t.Errorf("iteration %d: size classes plan %d bytes, greedy %d", iter, total, greedy)
		}
	}
	for _, s := range []int{1, 64, 65, 256, 257, 320, 321, 511, 512, 513, 1000, 1 << 20, 1<<20 + 1} {
		c, ok := sizeClass(s)
		if !ok || c < s || c%arenaAlign != 0 || c > s+s/4+arenaAlign {
			t.Errorf("sizeClass(%d) = %d, %v", s, c, ok)
		}
	}
}

// chainBuffers is the plan of an n-operator chain: tensor k is written by
// operator k-1 and read by operator k (the graph input lives throughout).
func chainBuffers(n int) []planBuffer {
	bufs := make([]planBuffer, n+1)
	bufs[0] = planBuffer{size: 64, first: -1, last: n}
	for k := 1; k <= n; k++ {
		bufs[k] = planBuffer{size: 64, first: k - 1, last: min(k, n)}
	}
	return bufs
}

// TestPlanScaling checks that the planner's work grows as n log n: a
// chain of 4n operators costs at most 4·(1 + 1/4)… ≈ 6 times a chain of
// n, and a graph whose n buffers are all live at once (n graph inputs)
// falls back within the O(n log n) work bound. Work, not time, is
// compared, so the test does not depend on the machine.
func TestPlanScaling(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 5000
	}
	if _, err := planGreedy(chainBuffers(n)); err != nil {
		t.Fatal(err)
	}
	small := planWork
	bufs := chainBuffers(4 * n)
	total, err := planGreedy(bufs)
	if err != nil {
		t.Fatal(err)
	}
	big := planWork
	if ratio := float64(big) / float64(small); ratio > 6 {
		t.Errorf("chain of %d operators: work %d; of %d: %d (ratio %.1f, want ≤ 6 for n log n)", n, small, 4*n, big, ratio)
	}
	if total > 3*64 {
		t.Errorf("chain arena %d bytes, want at most 3 tensors of 64", total)
	}
	wide := make([]planBuffer, 4*n)
	for i := range wide {
		wide[i] = planBuffer{size: 64 + i%3*64, first: -1, last: 2}
	}
	total, err = planGreedy(wide)
	if err != nil {
		t.Fatal(err)
	}
	// The greedy stops at the bound, after at most one more buffer's
	// query and sort (n log n of the n buffers it meets).
	if planWork > greedyWorkLimit(len(wide))+32*int64(len(wide)) {
		t.Errorf("%d buffers live at once: work %d above the bound %d", len(wide), planWork, greedyWorkLimit(len(wide)))
	}
	checkPlanSample(t, wide, total)
}

// checkPlanSample is checkPlan on a graph whose buffers are all live at
// once: sorted by offset, each must end before the next begins.
func checkPlanSample(t *testing.T, bufs []planBuffer, total int) {
	t.Helper()
	s := slices.Clone(bufs)
	sort.Slice(s, func(i, j int) bool { return s[i].offset < s[j].offset })
	for i := range s {
		if i > 0 && s[i-1].offset+s[i-1].size > s[i].offset || s[i].offset+s[i].size > total {
			t.Fatalf("buffers %+v and %+v overlap (arena %d)", s[i-1], s[i], total)
		}
	}
}

// TestPlanMillionChain plans a chain of a million operators (skipped
// under -short); it reports the time, which the scaling test bounds by
// work.
func TestPlanMillionChain(t *testing.T) {
	if testing.Short() {
		t.Skip("1M-buffer plan skipped under -short")
	}
	bufs := chainBuffers(1 << 20)
	start := time.Now()
	total, err := planGreedy(bufs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("planned %d buffers in %v (work %d), arena %d bytes", len(bufs), time.Since(start), planWork, total)
	if planWork > greedyWorkLimit(len(bufs)) {
		t.Errorf("fell back to the size-class plan: work %d", planWork)
	}
}
