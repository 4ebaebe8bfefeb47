//go:build linux || darwin || freebsd || netbsd || openbsd

package interpreter

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapsFiles reports whether Load memory-maps model files here.
const mapsFiles = true

// mapFile memory-maps path read-only. Empty files are read normally (mmap
// of length 0 fails).
func mapFile(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() || st.Size() == 0 {
		return readFile(path)
	}
	if st.Size() > int64(int(^uint(0)>>1)) {
		return nil, nil, fmt.Errorf("%s: file of %d bytes is too large to map", path, st.Size())
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return readFile(path)
	}
	return b, func() error { return unix.Munmap(b) }, nil
}

// dropPages tells the kernel that this process no longer needs the whole
// pages of part, a slice of the read-only shared file mapping mapping:
// madvise(MADV_DONTNEED) removes them from the process's resident set.
// The pages stay in the page cache, and a later read of any of them maps
// it again from the file with the same bytes (a minor fault), so this is
// only advice about residency, never a change of contents. Only pages
// wholly inside part are dropped; errors are ignored (the pages then
// simply stay resident).
func dropPages(mapping, part []byte) {
	if len(part) == 0 || len(mapping) == 0 {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(mapping)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(part)))
	if p < base || p-base > uintptr(len(mapping)) || uintptr(len(part)) > uintptr(len(mapping))-(p-base) {
		return // not a view of the mapping
	}
	page := uintptr(os.Getpagesize())
	lo := (p - base + page - 1) / page * page // the mapping starts on a page
	hi := (p - base + uintptr(len(part))) / page * page
	if hi <= lo {
		return
	}
	_ = unix.Madvise(mapping[lo:hi], unix.MADV_DONTNEED)
}
