//go:build linux

package arch

import (
	"syscall"
	"testing"
	"unsafe"
)

// tailBytes returns a byte slice of length n whose last byte is the last
// byte before an inaccessible page, so that a kernel reading even one
// byte past the end of its input faults. The mapping lives until the test
// ends.
func tailBytes(t testing.TB, n int) []byte {
	t.Helper()
	page := syscall.Getpagesize()
	size := (n+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[size-page:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	return mem[size-page-n : size-page : size-page]
}

// tailF32 is tailBytes for n float32 values.
func tailF32(t testing.TB, n int) []float32 {
	b := tailBytes(t, 4*n)
	if n == 0 {
		return []float32{}
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
}

// tailI8 is tailBytes for n int8 values.
func tailI8(t testing.TB, n int) []int8 {
	b := tailBytes(t, n)
	if n == 0 {
		return []int8{}
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), n)
}

// tailI32 is tailBytes for n int32 values.
func tailI32(t testing.TB, n int) []int32 {
	b := tailBytes(t, 4*n)
	if n == 0 {
		return []int32{}
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), n)
}
