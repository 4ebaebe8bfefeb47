package perception

import "math"

// The orders of libstdc++'s std::priority_queue (a binary heap) and
// std::sort (introsort), reproduced step for step: neither is stable, so
// the order of equal elements, which decides which pose a decoder keeps
// and in which order it lists them, is the algorithm's. Coral's
// PosenetDecoderOp (posenet_decoder_op) is built with GCC and libstdc++.

// keypoint is coral's KeypointWithScore: a point (y first, as upstream),
// a keypoint id and a score.
type keypoint struct {
	y, x  float32
	id    int32
	score float32
}

// kpHeap is std::priority_queue<KeypointWithScore, vector,
// KeypointWithScoreComparator>: a max-heap on score (comparator
// lhs.score < rhs.score) in libstdc++'s push_heap and pop_heap.
type kpHeap []keypoint

func kpLess(a, b *keypoint) bool { return a.score < b.score }

// pushHole is libstdc++'s __push_heap: move value up from hole while its
// parent compares less.
func (h kpHeap) pushHole(hole, top int, v keypoint) {
	parent := (hole - 1) / 2
	for hole > top && kpLess(&h[parent], &v) {
		h[hole] = h[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	h[hole] = v
}

// adjust is libstdc++'s __adjust_heap.
func (h kpHeap) adjust(hole, n int, v keypoint) {
	top, second := hole, hole
	for second < (n-1)/2 {
		second = 2 * (second + 1)
		if kpLess(&h[second], &h[second-1]) {
			second--
		}
		h[hole] = h[second]
		hole = second
	}
	if n&1 == 0 && second == (n-2)/2 {
		second = 2 * (second + 1)
		h[hole] = h[second-1]
		hole = second - 1
	}
	h.pushHole(hole, top, v)
}

// push is priority_queue::emplace (push_back, push_heap); the caller
// guarantees the capacity.
func (h *kpHeap) push(v keypoint) {
	*h = append(*h, v)
	s := *h
	s.pushHole(len(s)-1, 0, s[len(s)-1])
}

// pop removes and returns the top (pop_heap, pop_back).
func (h *kpHeap) pop() keypoint {
	s := *h
	top := s[0]
	n := len(s)
	if n > 1 {
		v := s[n-1]
		s[n-1] = s[0]
		s[:n-1].adjust(0, n-1, v)
	}
	*h = s[:n-1]
	return top
}

// argSorter is std::sort of indices with the comparator scores[i] >
// scores[j] (coral's DecreasingArgSort). A NaN score, with which upstream's
// comparator is no strict weak order (undefined behaviour there), sorts
// as −Inf here so that the order stays consistent and the unguarded loops
// stay in bounds.
type argSorter struct {
	scores []float32
	idx    []int32
}

func (s *argSorter) key(i int32) float32 {
	v := s.scores[i]
	if v != v {
		return float32(math.Inf(-1))
	}
	return v
}

// comp is the sort's comparator on indices.
func (s *argSorter) comp(a, b int32) bool { return s.key(a) > s.key(b) }

// sort fills idx with 0 … len(scores)−1 (std::iota) and sorts it as
// libstdc++'s std::sort does.
func (s *argSorter) sort() {
	for i := range s.idx {
		s.idx[i] = int32(i)
	}
	n := len(s.idx)
	if n == 0 {
		return
	}
	lg := 0
	for m := n; m > 1; m >>= 1 {
		lg++
	}
	s.introsortLoop(0, n, 2*lg)
	s.finalInsertionSort(0, n)
}

const sortThreshold = 16 // libstdc++'s _S_threshold

func (s *argSorter) introsortLoop(first, last, depth int) {
	for last-first > sortThreshold {
		if depth == 0 {
			s.heapSort(first, last)
			return
		}
		depth--
		cut := s.partitionPivot(first, last)
		s.introsortLoop(cut, last, depth)
		last = cut
	}
}

func (s *argSorter) swap(i, j int) { s.idx[i], s.idx[j] = s.idx[j], s.idx[i] }

// moveMedianToFirst is __move_median_to_first(result, a, b, c).
func (s *argSorter) moveMedianToFirst(result, a, b, c int) {
	x := s.idx
	switch {
	case s.comp(x[a], x[b]):
		switch {
		case s.comp(x[b], x[c]):
			s.swap(result, b)
		case s.comp(x[a], x[c]):
			s.swap(result, c)
		default:
			s.swap(result, a)
		}
	case s.comp(x[a], x[c]):
		s.swap(result, a)
	case s.comp(x[b], x[c]):
		s.swap(result, c)
	default:
		s.swap(result, b)
	}
}

// partitionPivot is __unguarded_partition_pivot; the bounds tests only
// guard against an inconsistent order, which key rules out.
func (s *argSorter) partitionPivot(first, last int) int {
	mid := first + (last-first)/2
	s.moveMedianToFirst(first, first+1, mid, last-1)
	pivot := s.idx[first]
	lo, hi := first+1, last
	for {
		for lo < last && s.comp(s.idx[lo], pivot) {
			lo++
		}
		hi--
		for hi > first && s.comp(pivot, s.idx[hi]) {
			hi--
		}
		if !(lo < hi) {
			return lo
		}
		s.swap(lo, hi)
		lo++
	}
}

// heapSort is __partial_sort(first, last, last): make_heap, then
// sort_heap, with the comparator as a "less".
func (s *argSorter) heapSort(first, last int) {
	n := last - first
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		s.adjust(first, parent, n, s.idx[first+parent])
		if parent == 0 {
			break
		}
	}
	for end := last; end-first > 1; {
		end--
		v := s.idx[end]
		s.idx[end] = s.idx[first]
		s.adjust(first, 0, end-first, v)
	}
}

// adjust is __adjust_heap over idx[first:first+n].
func (s *argSorter) adjust(first, hole, n int, v int32) {
	x := s.idx[first:]
	top, second := hole, hole
	for second < (n-1)/2 {
		second = 2 * (second + 1)
		if s.comp(x[second], x[second-1]) {
			second--
		}
		x[hole] = x[second]
		hole = second
	}
	if n&1 == 0 && second == (n-2)/2 {
		second = 2 * (second + 1)
		x[hole] = x[second-1]
		hole = second - 1
	}
	parent := (hole - 1) / 2
	for hole > top && s.comp(x[parent], v) {
		x[hole] = x[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	x[hole] = v
}

func (s *argSorter) finalInsertionSort(first, last int) {
	if last-first > sortThreshold {
		s.insertionSort(first, first+sortThreshold)
		for i := first + sortThreshold; i < last; i++ {
			s.linearInsert(first, i)
		}
		return
	}
	s.insertionSort(first, last)
}

// insertionSort is __insertion_sort.
func (s *argSorter) insertionSort(first, last int) {
	for i := first + 1; i < last; i++ {
		v := s.idx[i]
		if s.comp(v, s.idx[first]) {
			copy(s.idx[first+1:i+1], s.idx[first:i])
			s.idx[first] = v
		} else {
			s.linearInsert(first, i)
		}
	}
}

// linearInsert is __unguarded_linear_insert (stopping at first only as a
// guard).
func (s *argSorter) linearInsert(first, i int) {
	v := s.idx[i]
	j := i
	for j > first && s.comp(v, s.idx[j-1]) {
		s.idx[j] = s.idx[j-1]
		j--
	}
	s.idx[j] = v
}
