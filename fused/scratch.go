package fused

import "unsafe"

// scratchView reinterprets the first n elements of a scratch buffer as a
// slice of E without copying; ok is false when the buffer is too short (an
// interpreter bug the caller reports as an error). Node.Scratch buffers are
// 64-byte aligned, so any element type is aligned.
func scratchView[E any](b []byte, n int) (v []E, ok bool) {
	var z E
	size := int(unsafe.Sizeof(z))
	if n < 0 || len(b) < n*size {
		return nil, false
	}
	if n == 0 {
		return nil, true
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(b))), n), true
}

// scratchBytes is the byte size of n elements of E, for RequestScratch.
func scratchBytes[E any](n int) int {
	var z E
	return n * int(unsafe.Sizeof(z))
}
