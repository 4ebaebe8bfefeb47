package interpreter

import (
	"fmt"
	"math"
	"sort"
)

// arenaAlign is the alignment (bytes) of every buffer placed in the arena:
// a cache line, and the widest vector load (AVX-512) the kernels use.
const arenaAlign = 64

// planBuffer is one request to the memory planner: size bytes needed from
// operator first to operator last inclusive (-1 means "before the first
// operator", len(ops) "after the last").
type planBuffer struct {
	size        int
	first, last int
	offset      int // set by planGreedy
}

// alignUp rounds n up to a multiple of arenaAlign, reporting overflow.
func alignUp(n int) (int, bool) {
	if n > math.MaxInt-arenaAlign {
		return 0, false
	}
	return (n + arenaAlign - 1) &^ (arenaAlign - 1), true
}

// planGreedy assigns offsets to bufs so that two buffers whose lifetimes
// overlap never share bytes, and returns the arena size. It is the greedy
// "largest first, lowest gap that fits" plan of TFLite Micro's
// GreedyMemoryPlanner: buffers are taken by decreasing size (ties: earlier
// first use, then request order) and each goes into the lowest
// arenaAlign-aligned gap between the already placed buffers that are live
// at the same time. Zero-size buffers get offset 0 and take no space.
func planGreedy(bufs []planBuffer) (int, error) {
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
