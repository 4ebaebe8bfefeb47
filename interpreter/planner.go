package interpreter

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// planGreedy assigns offsets to bufs so that two buffers whose lifetimes
// overlap never share bytes, and returns the arena size. It is the greedy
// "largest first, lowest gap that fits" plan of TFLite Micro's
// GreedyMemoryPlanner: buffers are taken by decreasing size (ties: earlier
// first use, then request order) and each goes into the lowest
// arenaAlign-aligned gap between the already placed buffers that are live
// at the same time. Zero-size buffers get offset 0 and take no space.
//
// TFLite Micro compares each buffer with every buffer placed before it,
// which is quadratic in the number of tensors (a 300 000-operator chain
// took two minutes). Here the placed buffers are indexed by time (an
// interval segment tree), so a buffer meets only those live at the same
// time: a chain, or any graph whose tensors are short-lived, plans in
// O(n log n). Graphs where many buffers are live at once (900 000 graph
// inputs) still make the greedy quadratic in that number; when its work
// passes a bound of O(n log n), planGreedy gives up and plans with
// planSizeClasses instead, which is O(n log n) for any graph but shares
// memory less well. Real models stay far below the bound (the work is
// counted in node visits, buffers met and comparisons; planWork reports
// it for the scaling test).
func planGreedy(bufs []planBuffer) (int, error) {
	total, ok, err := planGreedyIndexed(bufs, greedyWorkLimit(len(bufs)))
	if err != nil || ok {
		return total, err
	}
	return planSizeClasses(bufs)
}

// planWork is the work counter of the last planGreedyIndexed run, for
// tests.
var planWork int64

// greedyWorkLimit is the work the exact greedy may do for n buffers
// before planGreedy falls back: 64·n·(log2 n + 1) plus a constant that
// lets any graph of a few thousand tensors plan exactly.
func greedyWorkLimit(n int) int64 {
	return 64*int64(n)*int64(bits.Len(uint(n))+1) + 1<<24
}

// planGreedyIndexed is the greedy plan with the time index. It returns ok
// false (and offsets to ignore) when the work exceeds limit.
func planGreedyIndexed(bufs []planBuffer, limit int64) (total int, ok bool, err error) {
	order := make([]int32, 0, len(bufs))
	tMin, tMax := math.MaxInt, math.MinInt
	for i := range bufs {
		bufs[i].offset = 0
		if bufs[i].size > 0 {
			if bufs[i].first > bufs[i].last {
				return 0, false, fmt.Errorf("buffer %d lives from %d to %d", i, bufs[i].first, bufs[i].last)
			}
			order = append(order, int32(i))
			tMin, tMax = min(tMin, bufs[i].first), max(tMax, bufs[i].last)
		}
	}
	if len(order) == 0 {
		planWork = 0
		return 0, true, nil
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		x, y := &bufs[a], &bufs[b]
		if x.size != y.size {
			return cmp.Compare(y.size, x.size)
		}
		return cmp.Compare(x.first, y.first)
	})

	tree := newIntervalTree(tMax - tMin + 1)
	stamp := make([]int32, len(bufs)) // query number that last met the buffer
	var live []int32
	var work int64
	for q, i := range order {
		b := &bufs[i]
		size, ok := alignUp(b.size)
		if !ok {
			return 0, false, fmt.Errorf("buffer of %d bytes is too large", b.size)
		}
		var w int64
		live, w = tree.query(b.first-tMin, b.last-tMin, live[:0], stamp, int32(q+1))
		work += w
		if len(live) > 1 {
			slices.SortFunc(live, func(x, y int32) int { return cmp.Compare(bufs[x].offset, bufs[y].offset) })
			work += int64(len(live)) * int64(bits.Len(uint(len(live))))
		}
		if work > limit {
			planWork = work
			return 0, false, nil
		}
		offset := 0
		for _, j := range live {
			p := &bufs[j]
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
			return 0, false, fmt.Errorf("arena size overflows")
		}
		total = max(total, offset+size)
		tree.insert(b.first-tMin, b.last-tMin, i)
	}
	planWork = work
	return total, true, nil
}

// intervalTree indexes buffers by their lifetime [first, last] over times
// 0..span-1: a segment tree whose node lists hold each buffer at the
// O(log span) canonical nodes covering its interval. The buffers whose
// intervals meet [a, b] are exactly those stored at nodes that meet
// [a, b], so a query visits those nodes only: O(log span) for a short
// query interval. Lists are linked through one entry array, so the index
// takes two int32 per node and two per stored entry.
type intervalTree struct {
	leaves int     // a power of two ≥ span; node 1 is the root
	head   []int32 // per node: first entry + 1 (0: empty)
	next   []int32 // per entry: next entry + 1 in its node's list
	buf    []int32 // per entry: the buffer
}

func newIntervalTree(span int) *intervalTree {
	leaves := 1
	for leaves < span {
		leaves *= 2
	}
	return &intervalTree{leaves: leaves, head: make([]int32, 2*leaves)}
}

// insert stores buffer i under the interval [a, b].
func (t *intervalTree) insert(a, b int, i int32) {
	l, r := a+t.leaves, b+t.leaves+1 // half-open range of leaves
	for l < r {
		if l&1 == 1 {
			t.add(l, i)
			l++
		}
		if r&1 == 1 {
			r--
			t.add(r, i)
		}
		l, r = l/2, r/2
	}
}

func (t *intervalTree) add(node int, i int32) {
	t.next = append(t.next, t.head[node])
	t.buf = append(t.buf, i)
	t.head[node] = int32(len(t.buf))
}

// query appends to live every buffer stored at a node meeting [a, b],
// once (stamp[i] == q marks buffer i as met by this query), and returns
// it with the work done: nodes visited plus entries met.
func (t *intervalTree) query(a, b int, live, stamp []int32, q int32) ([]int32, int64) {
	var work int64
	// Depth-first over the nodes meeting [a, b]; each stack item is a
	// node and the leaf range [lo, hi) it covers.
	type item struct{ node, lo, hi int }
	var stack [64]item
	stack[0] = item{1, 0, t.leaves}
	n := 1
	for n > 0 {
		n--
		it := stack[n]
		work++
		for e := t.head[it.node]; e != 0; e = t.next[e-1] {
			if j := t.buf[e-1]; stamp[j] != q {
				stamp[j] = q
				live = append(live, j)
			}
			work++
		}
		if it.hi-it.lo == 1 {
			continue
		}
		mid := (it.lo + it.hi) / 2
		if b >= mid { // the right half [mid, hi) meets [a, b]
			stack[n] = item{2*it.node + 1, mid, it.hi}
			n++
		}
		if a < mid { // the left half [lo, mid)
			stack[n] = item{2 * it.node, it.lo, mid}
			n++
		}
	}
	return live, work
}

// planSizeClasses is the fallback plan: buffers are placed in the order
// they are first used, each in a block of its size class (the size
// rounded up to one of four steps per power of two), reusing a block of
// that class freed by a buffer whose life has ended, else a new block at
// the end of the arena. Blocks never merge, so the arena may exceed the
// greedy plan's by the rounding and by blocks idle in another class; the
// interpreter's memory bound still applies to the result. Sorting makes
// it O(n log n).
func planSizeClasses(bufs []planBuffer) (int, error) {
	byFirst := make([]int32, 0, len(bufs))
	for i := range bufs {
		bufs[i].offset = 0
		if bufs[i].size > 0 {
			byFirst = append(byFirst, int32(i))
		}
	}
	byLast := slices.Clone(byFirst)
	slices.SortStableFunc(byFirst, func(a, b int32) int { return cmp.Compare(bufs[a].first, bufs[b].first) })
	slices.SortStableFunc(byLast, func(a, b int32) int { return cmp.Compare(bufs[a].last, bufs[b].last) })
	free := map[int][]int{} // class size → offsets of free blocks
	classOf := make([]int, len(bufs))
	total := 0
	f := 0 // byLast[:f] are freed
	for _, i := range byFirst {
		b := &bufs[i]
		// Free the blocks of buffers whose lives ended before b's starts.
		for ; f < len(byLast) && bufs[byLast[f]].last < b.first; f++ {
			j := byLast[f]
			free[classOf[j]] = append(free[classOf[j]], bufs[j].offset)
		}
		c, ok := sizeClass(b.size)
		if !ok {
			return 0, fmt.Errorf("buffer of %d bytes is too large", b.size)
		}
		classOf[i] = c
		if l := free[c]; len(l) > 0 {
			b.offset, free[c] = l[len(l)-1], l[:len(l)-1]
			continue
		}
		if total > math.MaxInt-arenaAlign-c {
			return 0, fmt.Errorf("arena size overflows")
		}
		b.offset = total
		total += c
	}
	return total, nil
}

// sizeClass rounds size up to the next of 2^k, 1.25·2^k, 1.5·2^k and
// 1.75·2^k, then to arenaAlign.
func sizeClass(size int) (int, bool) {
	s, ok := alignUp(size)
	if !ok {
		return 0, false
	}
	if s <= 4*arenaAlign {
		return s, true
	}
	// With 2^(k-1) < s ≤ 2^k, the classes are the multiples of
	// step = 2^(k-3) (≥ arenaAlign here) from 5·step to 8·step.
	step := 1 << (bits.Len(uint(s-1)) - 3)
	c := (s + step - 1) / step * step
	if c < s {
		return 0, false
	}
	return c, true
}
