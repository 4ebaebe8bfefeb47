package builtin

// This file reproduces the C++ standard library algorithms whose results
// TFLite's detection kernels expose: the order of elements that compare
// equal. std::priority_queue (NON_MAX_SUPPRESSION_V4/V5) and
// std::partial_sort (TFLite_Detection_PostProcess) are heaps whose tie
// order is the library's; the native build tflrun is checked against uses
// GCC's libstdc++, whose heap steps (bits/stl_heap.h: __push_heap,
// __adjust_heap, __make_heap, __pop_heap, __sort_heap; bits/stl_algo.h:
// __heap_select) these functions follow step for step. std::stable_sort
// and std::inplace_merge are stable, so any stable algorithm gives their
// result; the ones here merge through a caller's buffer and allocate
// nothing.
//
// less(a, b) is the comparator the C++ code passes (true when a must come
// after b in the heap's order, i.e. a "less than" b).

// heapSiftUp moves v up from the hole toward top while its parent is
// less (libstdc++'s __push_heap).
func heapSiftUp[T any](h []T, hole, top int, v T, less func(a, b T) bool) {
	parent := (hole - 1) / 2
	for hole > top && less(h[parent], v) {
		h[hole] = h[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	h[hole] = v
}

// heapAdjust moves the hole down to a leaf along the larger children, then
// sifts v up from there (libstdc++'s __adjust_heap on a heap of n
// elements).
func heapAdjust[T any](h []T, hole, n int, v T, less func(a, b T) bool) {
	top, child := hole, hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if less(h[child], h[child-1]) {
			child--
		}
		h[hole] = h[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		h[hole] = h[child-1]
		hole = child - 1
	}
	heapSiftUp(h, hole, top, v, less)
}

// heapPush restores the heap h after its last element was appended
// (std::push_heap).
func heapPush[T any](h []T, less func(a, b T) bool) {
	n := len(h)
	heapSiftUp(h, n-1, 0, h[n-1], less)
}

// heapPop moves the top of the heap h to its end and restores the heap
// on the rest (std::pop_heap).
func heapPop[T any](h []T, less func(a, b T) bool) {
	n := len(h)
	if n > 1 {
		v := h[n-1]
		h[n-1] = h[0]
		heapAdjust(h, 0, n-1, v, less)
	}
}

// heapMake arranges h into a heap (std::make_heap).
func heapMake[T any](h []T, less func(a, b T) bool) {
	n := len(h)
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		heapAdjust(h, parent, n, h[parent], less)
		if parent == 0 {
			return
		}
	}
}

// partialSort puts the middle smallest elements of h (by less) in order
// at its front, as libstdc++'s std::partial_sort: a heap of the first
// middle elements, every later element that is less than the heap's top
// swapped in, then the heap sorted.
func partialSort[T any](h []T, middle int, less func(a, b T) bool) {
	heapMake(h[:middle], less)
	for i := middle; i < len(h); i++ {
		if less(h[i], h[0]) {
			v := h[i]
			h[i] = h[0]
			heapAdjust(h, 0, middle, v, less)
		}
	}
	for last := middle; last > 1; {
		last--
		v := h[last]
		h[last] = h[0]
		heapAdjust(h, 0, last, v, less)
	}
}

// stableSort sorts s by less keeping equal elements in their order
// (std::stable_sort's result), with buf (at least len(s) long) as the
// merge buffer.
func stableSort[T any](s, buf []T, less func(a, b T) bool) {
	n := len(s)
	// Insertion-sort runs of 8, then merge runs bottom-up.
	const run = 8
	for lo := 0; lo < n; lo += run {
		hi := min(lo+run, n)
		for i := lo + 1; i < hi; i++ {
			v := s[i]
			j := i
			for j > lo && less(v, s[j-1]) {
				s[j] = s[j-1]
				j--
			}
			s[j] = v
		}
	}
	for width := run; width < n; width *= 2 {
		for lo := 0; lo+width < n; lo += 2 * width {
			mergeRuns(s[lo:min(lo+2*width, n)], width, buf, less)
		}
	}
}

// mergeRuns merges the sorted runs s[:mid] and s[mid:] stably (an element
// of the first run goes before an equal one of the second), as
// std::inplace_merge, through buf (at least mid long).
func mergeRuns[T any](s []T, mid int, buf []T, less func(a, b T) bool) {
	if mid <= 0 || mid >= len(s) || !less(s[mid], s[mid-1]) {
		return // already in order
	}
	left := buf[:mid]
	copy(left, s[:mid])
	i, j, o := 0, mid, 0
	for i < len(left) && j < len(s) {
		if less(s[j], left[i]) {
			s[o] = s[j]
			j++
		} else {
			s[o] = left[i]
			i++
		}
		o++
	}
	copy(s[o:], left[i:])
}
