//go:build linux || darwin || freebsd || netbsd || openbsd

package interpreter

import (
	"fmt"
	"os"

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
